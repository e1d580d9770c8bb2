"""Which client capabilities mcprobe declares to a target, and how it answers their requests.

Some servers show tools only to capable clients (the reference ``server-everything`` registers
``get-roots-list`` only for a client that declares ``roots``), so by default mcprobe declares all
three client capabilities and answers their requests with the least it can give: ``roots`` with
an empty list, ``elicitation`` by declining, ``sampling`` with an error. The report says what was
declared. ``--client-capabilities none`` declares nothing (every such request is then declined
with -32601 and reported as ``server.unexpected_request``).

Pure: the answers are data; ``target.raw_session`` sends them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Literal

from mcprobe.core.model import INTERNAL_ERROR

__all__ = [
    "CLIENT_CAPABILITIES",
    "DEFAULT_CLIENT_CAPABILITIES",
    "SAMPLING_ERROR",
    "ClientCapability",
    "answer_for",
    "capability_of",
    "check_client_capabilities",
    "declared_capabilities",
    "describe_capabilities",
    "parse_client_capabilities",
    "wire_capabilities",
]

CLIENT_CAPABILITIES: Mapping[str, str] = MappingProxyType(
    {
        "roots": "roots (answers roots/list with an empty list)",
        "elicitation": "elicitation (declines every elicitation/create)",
        "sampling": "sampling (answers sampling/createMessage with an error)",
    }
)
DEFAULT_CLIENT_CAPABILITIES: tuple[str, ...] = tuple(CLIENT_CAPABILITIES)
ClientCapability = Literal["roots", "elicitation", "sampling"]
"""The names of ``CLIENT_CAPABILITIES``, for pydantic inputs (a test keeps the two equal)."""

_METHODS = {
    "roots/list": "roots",
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
}
SAMPLING_ERROR = (INTERNAL_ERROR, "mcprobe is an auditor and does not sample a model")
"""The error every sampling/createMessage gets (the spec lets a client refuse sampling)."""

_WIRE: Mapping[str, dict[str, Any]] = MappingProxyType(
    {
        "roots": {"listChanged": False},
        "elicitation": {"form": {}},
        "sampling": {},
    }
)


def parse_client_capabilities(text: str) -> tuple[str, ...]:
    """``roots,elicitation,sampling`` (any subset, comma-separated) or ``none``. Raises
    ``ValueError`` with a one-line message for anything else."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    if words == ["none"]:
        return ()
    if not words:
        raise ValueError(f"unknown client capability {text!r}; {_choices('a comma list')}, or none")
    try:
        return check_client_capabilities(words, form="a comma list")
    except ValueError as exc:
        raise ValueError(f"{exc}, or none") from None


def check_client_capabilities(names: Iterable[object], *, form: str = "a list") -> tuple[str, ...]:
    """The one check of a list of capability names (the CLI's comma list once split, the
    library's ``client_capabilities=``; ``probe_connect``'s pydantic Literal agrees): the names
    in catalogue order, each once; ``ValueError`` naming the unknown ones and the choices. A
    string is not a list (``"roots"`` would be five letters). ``form``: how the message
    names a list in the caller's front-end."""
    if isinstance(names, str | bytes):
        raise ValueError(f"expected a list of names, not a string; {_choices(form)}")
    words = list(names)
    unknown = [w for w in words if not isinstance(w, str) or w not in CLIENT_CAPABILITIES]
    if unknown:
        listed = ", ".join(str(w) for w in unknown)
        raise ValueError(f"unknown client capability {listed!r}; {_choices(form)}")
    return declared_capabilities(w for w in words if isinstance(w, str))


def _choices(form: str) -> str:
    return f"use {form} of {', '.join(CLIENT_CAPABILITIES)}"


def declared_capabilities(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` (already validated) in catalogue order, each once: what ``--client-capabilities``
    makes of a comma list, for callers that pass a list (``probe_connect``)."""
    given = set(names)
    return tuple(c for c in CLIENT_CAPABILITIES if c in given)


def wire_capabilities(declared: Iterable[str]) -> dict[str, Any]:
    """The ``capabilities`` object of mcprobe's ``initialize``."""
    return {name: dict(_WIRE[name]) for name in declared}


def describe_capabilities(declared: Iterable[str]) -> list[str]:
    """One phrase per declared capability, for the report."""
    return [CLIENT_CAPABILITIES[name] for name in declared]


def capability_of(method: str) -> str | None:
    """The client capability a server-to-client request needs (None: not one of the three)."""
    return _METHODS.get(method)


def answer_for(method: str) -> dict[str, Any] | None:
    """The result mcprobe sends for a request of a declared capability; None for sampling
    (answered with ``SAMPLING_ERROR``) and for methods of no capability."""
    if method == "roots/list":
        return {"roots": []}
    if method == "elicitation/create":
        return {"action": "decline"}
    return None
