"""Attack probes (SPEC §5.2), pure: which harmless, self-proving probes to send, and what their
answers prove. The engine (``engine/attack_probes.py``) supplies the random parts (a nonce, two
numbers, the planted file, the loopback listener), sends the probes and hands the answers back.

- **command injection**: a string argument with a shell tail that makes a shell *compute*
  something (``;echo mcprobe-$((A+B))``, ``$(…)``, backticks, ``|``, ``&&``, a newline, a
  double-quote break-out). The sum in the answer (never in what was sent) proves a shell ran it.
- **path traversal / any-file read**: a file planted outside the server's files, asked for as
  ``../``×12 + its path, URL-encoded, absolute and ``file://``. Its content (a nonce) in the
  answer proves the read; ``../`` and encoded forms are a traversal (the server joined and did
  not check), absolute and ``file://`` an any-file read.
- **SSRF**: a URL on a listener mcprobe runs on 127.0.0.1 (never any other address); a request
  for the probe's own path proves the server fetches what it is told.

Each finding names the probe with its exact arguments, so an author can reproduce it.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcprobe.core.lint.registry import finding
from mcprobe.core.lint.security_text import excerpt, shown
from mcprobe.core.model import Finding, Location

__all__ = [
    "INJECTION_VARIANTS",
    "Probe",
    "ProbeSetup",
    "judge_probes",
    "plan_probes",
]

_MAX_PARAMS = 3  # string parameters probed per tool and probe class


@dataclass(frozen=True)
class ProbeSetup:
    """The random, machine-made parts of the probes (made by the engine)."""

    nonce: str  # short [a-z0-9] token naming this audit's probes
    addends: tuple[int, int]  # the shell probes compute their sum
    canary_file: str | None = None  # absolute path of the planted file (None: no traversal)
    canary_content: str = ""
    listener: str | None = None  # http://127.0.0.1:PORT (None: no SSRF probes)

    @property
    def sum_proof(self) -> str:
        return f"mcprobe-{self.addends[0] + self.addends[1]}"


@dataclass(frozen=True)
class Probe:
    tool: str
    kind: str  # injection | traversal | file_read | ssrf | repeat
    variant: str  # semicolon, dollar_paren, dotdot, absolute, loopback, ...
    param: str | None
    arguments: Any
    proof: str  # what in the answer (or, for ssrf, the listener path) proves it

    @property
    def label(self) -> str:
        return f"probe:{self.kind}:{self.variant}" + (f":{self.param}" if self.param else "")


INJECTION_VARIANTS: tuple[tuple[str, str], ...] = (
    ("semicolon", "{base};echo {expr}"),
    ("dollar_paren", "{base}$(echo {expr})"),
    ("backticks", "{base}`echo {expr}`"),
    ("pipe", "{base}|echo {expr}"),
    ("and", "{base}&&echo {expr}"),
    ("newline", "{base}\necho {expr}"),
    ("quote_break", '{base}";echo {expr};"'),
    ("single_quote_break", "{base}';echo {expr};'"),
)
_PATHISH = re.compile(
    r"(^|_)(path|file|filename|filepath|file_path|name|doc|document|note|page|key|dir|directory|"
    r"folder|resource|uri|template|source|src|location)s?($|_)",
    re.IGNORECASE,
)
_URLISH = re.compile(
    r"(^|_)(url|uri|href|link|endpoint|website|webhook|callback|feed|site|source|src)s?($|_)",
    re.IGNORECASE,
)


def _string_params(tool: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    schema = tool.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return []
    found = []
    for key, sub in props.items():
        if not isinstance(sub, Mapping) or "enum" in sub or "const" in sub:
            continue
        typ = sub.get("type")
        if typ == "string" or (isinstance(typ, list) and "string" in typ):
            found.append((str(key), sub))
    return found


def _camel_split(name: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)


def _with(base: Mapping[str, Any], param: str, value: str) -> dict[str, Any]:
    return {**base, param: value}


def plan_probes(
    tool: Mapping[str, Any], valid: Mapping[str, Any], setup: ProbeSetup
) -> list[Probe]:
    """The probes for one tool, built on its valid case's arguments ``valid``: a second valid
    call first (answers that change are read too), then per string parameter the injection
    variants, and for path-like / URL-like parameters the traversal and SSRF probes."""
    name = str(tool.get("name"))
    probes = [Probe(name, "repeat", "valid", None, dict(valid), "")]
    params = _string_params(tool)
    a, b = setup.addends
    expr = f"mcprobe-$(({a}+{b}))"
    for param, _ in params[:_MAX_PARAMS]:
        base = valid.get(param)
        base_text = base if isinstance(base, str) and "\n" not in base else "x"
        for variant, template in INJECTION_VARIANTS:
            value = template.format(base=base_text, expr=expr)
            probes.append(
                Probe(
                    name, "injection", variant, param, _with(valid, param, value), setup.sum_proof
                )
            )
    if setup.canary_file is not None:
        pathish = [(p, s) for p, s in params if _PATHISH.search(_camel_split(p))]
        relative = setup.canary_file.lstrip("/")
        forms = (
            ("traversal", "dotdot", "../" * 12 + relative),
            ("traversal", "encoded", "..%2F" * 12 + urllib.parse.quote(relative, safe="")),
            ("file_read", "absolute", setup.canary_file),
            ("file_read", "file_url", "file://" + setup.canary_file),
        )
        for param, _ in pathish[:_MAX_PARAMS]:
            for kind, variant, value in forms:
                probes.append(
                    Probe(
                        name, kind, variant, param, _with(valid, param, value), setup.canary_content
                    )
                )
    if setup.listener is not None:
        urlish = [
            (p, s)
            for p, s in params
            if _URLISH.search(_camel_split(p)) or s.get("format") in ("uri", "url", "iri")
        ]
        for i, (param, _) in enumerate(urlish[:_MAX_PARAMS]):
            path = f"/mcprobe-ssrf-{setup.nonce}-{_slug(name)}-{i}"
            url = setup.listener.rstrip("/") + path
            probes.append(Probe(name, "ssrf", "loopback", param, _with(valid, param, url), path))
    return probes


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name)[:40] or "tool"


def _args(arguments: Any) -> str:
    text = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 300 else text[:299] + "…"


_WORDS = {
    "injection": (
        "security.command_injection",
        "made a shell compute `{proof}` from the argument it was sent: `{param}` reaches "
        "`/bin/sh` unquoted (command injection)",
        "Run programs with an argument list (`execFile`, `subprocess.run([...])`, no "
        "`shell=True`); never build a command string from an argument.",
    ),
    "traversal": (
        "security.path_traversal",
        "returned the contents of a file mcprobe planted outside the server's files, asked for "
        "through `{param}` with `../` segments: the path is joined and never checked (path "
        "traversal)",
        "Resolve the path (realpath, symlinks followed) and refuse anything outside the allowed "
        "root before opening it; decode percent-escapes before the check, not after.",
    ),
    "file_read": (
        "security.any_file_read",
        "returned the contents of a file mcprobe planted outside the server's files, asked for "
        "by its absolute path in `{param}`: the tool reads any file the process can",
        "Accept only paths inside the directories the user allowed (resolved, symlinks "
        "followed); refuse absolute paths and `file://` URLs outside them.",
    ),
    "ssrf": (
        "security.ssrf",
        "fetched a loopback URL mcprobe gave it in `{param}` (mcprobe's own listener on "
        "127.0.0.1 saw the request): it fetches whatever address it is told, internal services "
        "included (server-side request forgery)",
        "Refuse loopback, link-local and private addresses (after DNS resolution and on every "
        "redirect) unless the user configured them.",
    ),
}


def judge_probes(
    probes: Sequence[Probe],
    answers: Mapping[tuple[str, str], str],
    listener_paths: Iterable[str] = (),
) -> list[Finding]:
    """One finding per (tool, class) that a probe proved, naming the first proving probe with
    its exact arguments. ``answers``: (tool, probe label) → the whole answer text;
    ``listener_paths``: the paths the loopback listener was asked for."""
    hit_paths = set(listener_paths)
    found: dict[tuple[str, str], Finding] = {}
    for probe in probes:
        if probe.kind == "repeat" or (probe.tool, probe.kind) in found:
            continue
        answer = answers.get((probe.tool, probe.label), "")
        sent = json.dumps(probe.arguments, ensure_ascii=False, default=str)
        if probe.kind == "ssrf":
            proved = probe.proof in hit_paths
        else:
            proved = bool(probe.proof) and probe.proof in answer and probe.proof not in sent
        if not proved:
            continue
        code, what, fix = _WORDS[probe.kind]
        at = answer.find(probe.proof)
        evidence = (
            f" The answer: `{excerpt(answer, at, at + len(probe.proof))}`." if at >= 0 else ""
        )
        found[(probe.tool, probe.kind)] = finding(
            code,
            f"Tool `{shown(probe.tool)}` "
            + what.format(proof=probe.proof, param=shown(probe.param or ""))
            + f". Probe `{shown(probe.label)}`, arguments `{shown(_args(probe.arguments))}`."
            + evidence,
            fix,
            Location(probe.tool, probe.param),
        )
    return list(found.values())
