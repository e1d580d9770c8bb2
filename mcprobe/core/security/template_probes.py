"""Path traversal through resource templates (SPEC §5.2, issue 24 item 4), pure.

A template such as ``document://{filename}`` is a path parameter in a URI: a server that joins
the variable to its folder and reads the result serves any file its process can. The probes
ask ``resources/read`` for URIs whose variable names the file mcprobe planted outside the
server's files (``probes.ProbeSetup.canary_file``), in the forms a handler may decode:

- ``dotdot``: ``../``×12 + the planted path, inserted as is;
- ``encoded``: the same, percent-encoded (what RFC 6570 simple expansion sends, and what a
  template whose variable matches no ``/`` still routes to its handler);
- ``absolute``: the planted file's absolute path, as is;
- ``absolute_encoded``: that path percent-encoded.

The planted file's random content in the ``resources/read`` answer (never in the URI sent)
proves the read; ``../`` forms are ``security.path_traversal``, absolute ones
``security.any_file_read``. Each finding names the template, the variable and the exact URI, so
an author can replay it. Reading a resource is read-only by the spec, but a vulnerable server
does read what it is told, so the engine sends these only with the consent of the tool probes.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcprobe.core.checks.resources import expand_template, template_variables
from mcprobe.core.lint.registry import finding
from mcprobe.core.lint.rules import quote
from mcprobe.core.lint.security_text import excerpt, shown, visible
from mcprobe.core.model import JSON, Finding, Location

__all__ = ["MAX_TEMPLATE_PROBES", "TemplateProbe", "judge_template_probes", "plan_template_probes"]

MAX_TEMPLATE_PROBES = 5  # templates probed per audit, in listing order
_MAX_VARIABLES = 3  # variables probed per template
_OTHER_VALUE = "1"  # what the template's other variables get (protocol_probes.TEMPLATE_VALUE)
_URI_LIMIT = 600  # characters of the probe URI shown: whole, so an author can replay it


@dataclass(frozen=True)
class TemplateProbe:
    template: str
    variable: str
    kind: str  # traversal | file_read
    variant: str  # dotdot | encoded | absolute | absolute_encoded
    uri: str
    proof: str  # the planted file's content

    @property
    def label(self) -> str:
        return f"probe:template_{self.kind}:{self.variant}:{self.variable}"


def _forms(canary_file: str) -> tuple[tuple[str, str, str], ...]:
    relative = canary_file.lstrip("/")
    return (
        ("traversal", "dotdot", "../" * 12 + relative),
        ("traversal", "encoded", urllib.parse.quote("../" * 12 + relative, safe="")),
        ("file_read", "absolute", canary_file),
        ("file_read", "absolute_encoded", urllib.parse.quote(canary_file, safe="")),
    )


def listed_templates(templates: Sequence[JSON]) -> list[str]:
    """The ``uriTemplate`` strings of a ``resources/templates/list`` answer, in order, once."""
    found = [
        t["uriTemplate"]
        for t in templates
        if isinstance(t, Mapping) and isinstance(t.get("uriTemplate"), str)
    ]
    return list(dict.fromkeys(found))


def plan_template_probes(
    templates: Sequence[JSON], canary_file: str, canary_content: str
) -> list[TemplateProbe]:
    """The probes for the first ``MAX_TEMPLATE_PROBES`` listed templates: per variable (up to
    three; the others get ``"1"``) each form of the planted path. An invalid template gets none
    (its lint finding says why)."""
    probes: list[TemplateProbe] = []
    for template in listed_templates(templates)[:MAX_TEMPLATE_PROBES]:
        names = template_variables(template)
        for variable in names[:_MAX_VARIABLES]:
            for kind, variant, value in _forms(canary_file):
                values = {n: (value if n == variable else _OTHER_VALUE) for n in names}
                uri = expand_template(template, values)
                if uri is not None:
                    probes.append(
                        TemplateProbe(template, variable, kind, variant, uri, canary_content)
                    )
    return probes


_WORDS = {
    "traversal": (
        "security.path_traversal",
        "with `../` segments in `{{{variable}}}`: the variable is joined to a path and never "
        "checked (path traversal)",
        "Resolve the path built from the template variable (realpath, symlinks followed) and "
        "refuse anything outside the served folder before opening it; decode percent-escapes "
        "before the check, not after.",
    ),
    "file_read": (
        "security.any_file_read",
        "by its absolute path in `{{{variable}}}`: the template reads any file the process can",
        "Accept only names inside the served folder (resolved, symlinks followed); refuse "
        "absolute paths, percent-encoded or not.",
    ),
}


def _uri(uri: str) -> str:
    """The probe's URI for a code span: whole (the template part is the target's, so bounded),
    invisible characters made visible, backticks named."""
    return visible(quote(uri, _URI_LIMIT)).replace("`", "⟨backtick⟩")


def judge_template_probes(
    probes: Sequence[TemplateProbe], answers: Mapping[str, str]
) -> list[Finding]:
    """One finding per (template, class) a probe proved, naming the first proving probe with
    its exact URI. ``answers``: URI sent → the whole ``resources/read`` answer as text."""
    found: dict[tuple[str, str], Finding] = {}
    for probe in probes:
        if (probe.template, probe.kind) in found:
            continue
        answer = answers.get(probe.uri, "")
        if not probe.proof or probe.proof not in answer or probe.proof in probe.uri:
            continue
        code, how, fix = _WORDS[probe.kind]
        at = answer.find(probe.proof)
        found[(probe.template, probe.kind)] = finding(
            code,
            f"Resource template `{shown(probe.template)}` returned the contents of a file "
            "mcprobe planted outside the server's files, asked for "
            + how.format(variable=shown(probe.variable))
            + f". Probe `{shown(probe.label)}`: `resources/read` of `{_uri(probe.uri)}`."
            + f" The answer: `{excerpt(answer, at, at + len(probe.proof))}`.",
            fix,
            Location(resource=probe.template),
        )
    return list(found.values())
