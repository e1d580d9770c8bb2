"""What tools answer, read like what they define (SPEC §5.2), pure: the watched answers of the
fuzz run (and of the attack probes) in; findings out.

- ``instruction_findings``: an answer whose text carries an order to the model (the patterns of
  ``security.model_instruction``) or characters that hide text — ``security.result_instruction``.
  Every call is read, not only the first, so an answer that turns malicious on a later call is
  caught; a span that repeats what mcprobe sent is an echo, not the server's order.
- ``credential_findings``: credential-shaped strings (JWTs, bearer tokens, provider key
  prefixes, private key blocks, URLs with a password, ``password:`` lines) in answers or
  resource contents — ``security.credential_exposed``; the value is never shown (a prefix and
  its length only).
- ``shell_findings``: a shell's own error text quoting an argument mcprobe sent —
  ``security.shell_reached``; ``code_findings``: an interpreter error proving an argument was
  evaluated as code — ``security.code_execution``. Tools that declare running commands or code
  are exempt: there, a shell error is the job.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcprobe.core.lint.registry import finding
from mcprobe.core.lint.rules import ToolView
from mcprobe.core.lint.security_capabilities import EXEC, capabilities
from mcprobe.core.lint.security_text import (
    ModelText,
    check_hidden_characters,
    check_model_instructions,
    excerpt,
    shown,
)
from mcprobe.core.model import Finding, Location

__all__ = [
    "Answer",
    "answer_findings",
    "answer_texts",
    "arguments_strings",
    "code_runners",
    "credential_findings",
    "credential_hits",
    "exposed_values",
]

_MAX_TEXTS = 64
_MAX_TEXT = 200_000


@dataclass(frozen=True)
class Answer:
    """One tool call's answer as the model would read it: ``texts`` are (pointer, text) pairs
    (``/content/0/text``, ``/structuredContent/…``, ``/error/message``), ``arguments`` what
    mcprobe sent, ``label`` the case (or probe) that sent it."""

    tool: str
    label: str
    arguments: Any
    texts: tuple[tuple[str, str], ...]


def answer_texts(
    result: Any, error_message: str | None, error_data: Any
) -> tuple[tuple[str, str], ...]:
    """The strings of one raw answer a model reads, each with a JSON pointer into it."""
    out: list[tuple[str, str]] = []

    def walk(node: Any, at: str, depth: int) -> None:
        if len(out) >= _MAX_TEXTS or depth > 8:
            return
        if isinstance(node, str):
            out.append((at, node[:_MAX_TEXT]))
        elif isinstance(node, Mapping):
            for key, value in node.items():
                if key in ("type", "mimeType", "uri", "blob", "data"):
                    continue  # block kinds and binary payloads are not read as text
                walk(value, f"{at}/{key}", depth + 1)
        elif isinstance(node, list):
            for i, value in enumerate(node[:_MAX_TEXTS]):
                walk(value, f"{at}/{i}", depth + 1)

    if isinstance(result, Mapping):
        walk(result.get("content"), "/content", 0)
        walk(result.get("structuredContent"), "/structuredContent", 0)
    if error_message:
        out.append(("/error/message", error_message[:_MAX_TEXT]))
    walk(error_data, "/error/data", 0)
    return tuple(out)


def arguments_strings(arguments: Any) -> list[str]:
    """Every string mcprobe sent in ``arguments`` (keys included), for echo checks."""
    found: list[str] = []

    def walk(node: Any, depth: int) -> None:
        if depth > 8 or len(found) > 256:
            return
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, Mapping):
            for key, value in node.items():
                found.append(str(key))
                walk(value, depth + 1)
        elif isinstance(node, list):
            for value in node:
                walk(value, depth + 1)

    walk(arguments, 0)
    return found


# --------------------------------------------------------------------------- orders in answers


def _what(answer: Answer) -> str:
    return f"the answer of tool `{shown(answer.tool)}` to case `{shown(answer.label)}`"


def _echoed(span: str, sent: Sequence[str]) -> bool:
    core = span.strip()
    return bool(core) and any(core in s for s in sent)


def instruction_findings(answers: Iterable[Answer]) -> list[Finding]:
    """One critical finding per tool whose answer carries an order to the model or text-hiding
    characters; the first answer that shows it is quoted."""
    found: dict[str, Finding] = {}
    for answer in answers:
        if answer.tool in found:
            continue
        sent = arguments_strings(answer.arguments)
        for at, text in answer.texts:
            if _echoed(text, sent):
                continue  # the whole text is what mcprobe sent
            model_text = ModelText(
                Location(answer.tool, pointer=at), _what(answer), text, "content", answer.tool
            )
            hits = [*check_model_instructions([model_text]), *check_hidden_characters([model_text])]
            if not hits:
                continue
            evidence = hits[0].message.split(": `", 1)
            quoted = f": `{evidence[1]}" if len(evidence) == 2 else "."
            what = evidence[0].split(" carries ", 1)[-1].split(" contains ", 1)[-1]
            what = what.split(" rather than ", 1)[0].split(", which ", 1)[0]
            found[answer.tool] = finding(
                "security.result_instruction",
                f"The answer of tool `{shown(answer.tool)}` to case `{shown(answer.label)}` "
                f"(at `{shown(at)}`) carries {what}{quoted} The model reads a tool's answer as "
                "input it may act on: the server is giving it orders outside the tool's "
                "description the user approved.",
                f"Return data only from tool `{shown(answer.tool)}`: no instructions to the model, "
                "no pseudo-system headers, no hidden characters. Content from third parties "
                "(documents, web pages) must be passed on as quoted data, never as orders.",
                Location(answer.tool, pointer=at),
            )
            break
    return list(found.values())


# --------------------------------------------------------------------------- credentials

_CREDENTIALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "a private key block",
        re.compile(
            r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----"
        ),
    ),
    (
        "a JSON Web Token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (
        "a GitHub token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b"),
    ),
    ("a GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    (
        "an OpenAI/Anthropic API key",
        re.compile(r"\bsk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{24,}\b"),
    ),
    ("a Stripe secret key", re.compile(r"\b[sr]k_live_[A-Za-z0-9]{20,}\b")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("an npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("a bearer token", re.compile(r"\b[Bb]earer\s+(?P<v>[A-Za-z0-9._~+/-]{20,}=*)")),
    (
        "a URL with a password",
        re.compile(r"\b[a-z][a-z0-9+.-]{1,15}://[^\s/:@'\"]{1,64}:[^\s/@'\"]{3,128}@[\w.-]+"),
    ),
    (
        "a password line",
        re.compile(
            r"(?im)^[ \t\"']*(?:password|passwd|pwd|secret|api[_-]?key|token)[\"']?\s*[:=]\s*"
            # an absolute path is where a value lives, not the value: `"PWD": "/srv/app"` (the
            # working directory of an environment dump), `token: /run/secrets/token`
            r"[\"']?(?![/~]|[A-Za-z]:\\)[^\s\"',;]{6,}"
        ),
    ),
)
# Values that show the shape without being one: documentation placeholders and masks.
_PLACEHOLDER = re.compile(
    r"x{4,}|X{4,}|\*{3,}|•{3,}|\.{3}|<[^>]*>|\$\{|\{\{|\byour[_-]|example|changeme|placeholder|"
    r"redacted|dummy|sample|fake|test[_-]?(key|token)|0{8,}|1234567|abcdef|(.)\1{7,}",
    re.IGNORECASE,
)


def _masked(value: str) -> str:
    return f"{value[:4]}… ({len(value)} characters)"


def credential_hits(text: str, sent: Sequence[str] = ()) -> Iterator[tuple[str, str]]:
    """(kind, masked value) for each credential-shaped string in ``text`` that is neither a
    placeholder nor something mcprobe sent."""
    for kind, pattern in _CREDENTIALS:
        for m in pattern.finditer(text):
            value = m.group()
            if _PLACEHOLDER.search(value) or any(
                value in s or (s and s in value and len(s) > 8) for s in sent
            ):
                continue
            yield kind, _masked(value.strip())
            break


def exposed_values(answers: Iterable[Answer], contents: Iterable[ModelText] = ()) -> list[str]:
    """The raw credential-shaped values in ``answers`` and ``contents``, for the report's
    redaction: the findings show a masked prefix; every other place the report quotes an answer
    (result excerpts, surface checks) must not republish the value either."""
    values: list[str] = []
    texts = [text for a in answers for _, text in a.texts] + [t.text for t in contents]
    for text in texts:
        for _, pattern in _CREDENTIALS:
            for m in pattern.finditer(text):
                value = (m.groupdict().get("v") or m.group()).strip()
                if not _PLACEHOLDER.search(value) and value not in values and len(value) >= 8:
                    values.append(value)
    return values


def credential_findings(
    answers: Iterable[Answer], contents: Iterable[ModelText] = (), known: Sequence[str] = ()
) -> list[Finding]:
    """One error per tool (and per resource or prompt) that hands out a credential-shaped
    string; the kind and a masked prefix are shown, never the value. ``known``: credentials
    mcprobe sent itself (an echo of those is ``security.secret_echo``)."""
    found: dict[str, Finding] = {}
    for answer in answers:
        if answer.tool in found:
            continue
        sent = [*arguments_strings(answer.arguments), *known]
        for at, text in answer.texts:
            hit = next(credential_hits(text, sent), None)
            if hit is None:
                continue
            found[answer.tool] = finding(
                "security.credential_exposed",
                f"The answer of tool `{shown(answer.tool)}` to case `{shown(answer.label)}` (at "
                f"`{shown(at)}`) contains {hit[0]} (`{shown(hit[1])}`, the rest not shown): "
                "whatever a tool returns reaches the model and the conversation.",
                f"Never return credentials from tool `{shown(answer.tool)}`; return a masked "
                "form or a reference the user resolves outside the conversation.",
                Location(answer.tool, pointer=at),
            )
            break
    for t in contents:
        key = f"{t.location.resource or ''}|{t.location.prompt or ''}"
        if key in found:
            continue
        hit = next(credential_hits(t.text), None)
        if hit is None:
            continue
        found[key] = finding(
            "security.credential_exposed",
            f"{t.what[:1].upper() + t.what[1:]} contains {hit[0]} (`{shown(hit[1])}`, the rest not "
            "shown): a client reads resource and prompt contents into the conversation.",
            "Keep credentials out of resources and prompts; serve a masked form.",
            t.location,
        )
    return list(found.values())


# --------------------------------------------------------------------------- shell and code

_SHELL_ERROR = re.compile(
    r"(?m)(^|[\s'\"])(/bin/|/usr/bin/)?(sh|bash|dash|zsh|ash|ksh):\s+(line\s+\d+:\s+|\d+:\s+|-c:\s+"
    r"(line\s+\d+:\s+)?)?(?P<rest>[^\n]{0,200})"
)
_SHELL_SYNTAX = re.compile(
    r"syntax error|unexpected EOF|Unterminated quoted string|unexpected token|bad substitution|"
    r"command not found|not found|No such file or directory|Permission denied|can't|cannot",
    re.IGNORECASE,
)
_SHELL_META = re.compile(r"[;&|`$<>()'\"\n]")
_CODE_TRACE = re.compile(
    r"File \"<string>\", line \d+|\bat eval\b|\beval at\b|<anonymous>:\d+|File \"<stdin>\"",
)


def _fragments(sent: Sequence[str]) -> list[str]:
    """The words of what mcprobe sent that are long enough to prove an echo (≥ 3 characters)."""
    words: list[str] = []
    for s in sent:
        words += [w for w in re.split(r"[\s;&|`$<>()'\"=]+", s) if len(w) >= 3]
    return words


def shell_findings(answers: Iterable[Answer], exempt: frozenset[str]) -> list[Finding]:
    """A shell's own error text naming what mcprobe sent: the argument reached ``/bin/sh``."""
    found: dict[str, Finding] = {}
    for answer in answers:
        if answer.tool in found or answer.tool in exempt:
            continue
        sent = arguments_strings(answer.arguments)
        words = _fragments(sent)
        meta = any(_SHELL_META.search(s) for s in sent)
        for at, text in answer.texts:
            m = next(
                (
                    m
                    for m in _SHELL_ERROR.finditer(text)
                    if _SHELL_SYNTAX.search(m.group("rest"))
                    and (
                        any(w in m.group("rest") for w in words)
                        or (
                            (meta and "syntax" in m.group("rest").lower())
                            or (meta and "unexpected" in m.group("rest").lower())
                            or (meta and "nterminated" in m.group("rest"))
                        )
                    )
                ),
                None,
            )
            if m is None:
                continue
            found[answer.tool] = finding(
                "security.shell_reached",
                f"The answer of tool `{shown(answer.tool)}` to case `{shown(answer.label)}` "
                f"carries a shell's own error about what mcprobe sent: "
                f"`{excerpt(text, m.start(), m.end())}` (arguments "
                f"`{shown(_args(answer.arguments))}`): an argument is parsed by `/bin/sh`, so "
                "shell metacharacters in it run commands (command injection).",
                f"Run programs from tool `{shown(answer.tool)}` with an argument list "
                "(`execFile`, `subprocess.run([...])`, no `shell=True`), never a command string "
                "built from arguments.",
                Location(answer.tool, pointer=at),
            )
            break
    return list(found.values())


def code_findings(answers: Iterable[Answer], exempt: frozenset[str]) -> list[Finding]:
    """An interpreter's error proving an argument was evaluated as code: ``NameError: name 'x'
    is not defined`` / ``ReferenceError: x is not defined`` for a whole string mcprobe sent, or an
    ``eval`` frame (``File "<string>"``, ``at eval``) quoting it."""
    found: dict[str, Finding] = {}
    for answer in answers:
        if answer.tool in found or answer.tool in exempt:
            continue
        sent = [s for s in arguments_strings(answer.arguments) if len(s) >= 3]
        for at, text in answer.texts:
            m = _code_proof(text, sent)
            if m is None:
                continue
            found[answer.tool] = finding(
                "security.code_execution",
                f"The answer of tool `{shown(answer.tool)}` to case `{shown(answer.label)}` "
                f"carries an interpreter error that evaluated what mcprobe sent: "
                f"`{excerpt(text, m[0], m[1])}` (arguments `{shown(_args(answer.arguments))}`): "
                "the argument runs as code (`eval`/`exec`), so any caller runs any code.",
                f"Never `eval`/`exec` an argument of tool `{shown(answer.tool)}`; parse it "
                "(a real parser, `ast.literal_eval`, a safe expression evaluator).",
                Location(answer.tool, pointer=at),
            )
            break
    return list(found.values())


def _code_proof(text: str, sent: Sequence[str]) -> tuple[int, int] | None:
    for s in sent:
        if not re.fullmatch(r"[A-Za-z_]\w{2,63}", s):
            continue
        m = re.search(
            rf"NameError: name '{re.escape(s)}' is not defined|ReferenceError: {re.escape(s)} is "
            r"not defined",
            text,
        )
        if m is not None:
            return m.span()
    trace = _CODE_TRACE.search(text)
    if trace is not None:
        tail = text[trace.end() : trace.end() + 400]
        for s in sent:
            if s in tail:
                return trace.start(), trace.end() + tail.index(s) + len(s)
    return None


def _args(arguments: Any) -> str:
    text = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 200 else text[:199] + "…"


def code_runners(tools: Sequence[Any]) -> frozenset[str]:
    """The tools that declare running commands or code (by name, description or a `command`
    parameter): a shell's error in their answers is their job, not a finding."""
    runners = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
            continue
        view = ToolView(i, tool["name"], tool, tool)
        if any(c.kind == EXEC for c in capabilities(view)):
            runners.add(tool["name"])
    return frozenset(runners)


def answer_findings(
    answers: Sequence[Answer], exempt: frozenset[str], known: Sequence[str] = ()
) -> list[Finding]:
    """Every result-scan finding (``exempt``: tools that declare running commands or code;
    ``known``: the credentials mcprobe sent)."""
    return [
        *instruction_findings(answers),
        *credential_findings(answers, known=known),
        *shell_findings(answers, exempt),
        *code_findings(answers, exempt),
    ]
