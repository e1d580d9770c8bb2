"""The static security text rules over resources and prompts (pure): what the model reads
about them and from them.

mcprobe lists resources, templates and prompts and reads up to a few of each anyway (the
surface checks, ``engine/protocol_probes.py``); the same rules that guard tool definitions run
over what came back:

- **listings** (names, titles, descriptions, prompt argument names and descriptions): hidden
  characters, look-alike letters, instructions aimed at the model; exfiltration cues only in
  prompt *argument* descriptions, which the model fills in like a tool parameter (a prompt
  described as "Summarize the conversation history" is what it says, not a grab for it);
- **contents** (``resources/read`` text, ``prompts/get`` message text): instructions aimed at
  the model, and hidden characters of the kinds that hide or reorder text (zero-width, bidi
  controls, tag characters, variation-selector smuggling) — documents and data legitimately
  hold blank runs, control characters and mixed scripts, and talk about ``~/.ssh`` or chat
  histories, so padding, homoglyph and exfiltration rules stay off there.

Shadowing (a text steering another tool) stays a tool rule: its wording and its evidence are
about one tool's definition. Findings carry the resource URI (or template) or prompt name in
their location and quote the evidence with invisible characters made visible.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mcprobe.core.lint.security_text import (
    ModelText,
    check_exfiltration,
    check_hidden_characters,
    check_homoglyphs,
    check_model_instructions,
    listing_texts,
    shown,
)
from mcprobe.core.model import Finding, Location

__all__ = ["LISTING_KINDS", "content_texts", "listing_texts", "surface_security_findings"]

LISTING_KINDS = {
    "resources/list": "resource",
    "resources/templates/list": "resource",
    "prompts/list": "prompt",
}
"""The list methods whose entries are scanned, and what their entries are."""
_MAX_TEXT = 200_000  # characters of one content scanned (the transport caps the answer anyway)


def _text_of(block: Any) -> str | None:
    if isinstance(block, Mapping) and isinstance(block.get("text"), str):
        return str(block["text"])[:_MAX_TEXT]
    return None


def _read_texts(uri: str, result: Mapping[str, Any]) -> Iterator[ModelText]:
    contents = result.get("contents")
    for i, item in enumerate(contents if isinstance(contents, list) else ()):
        text = _text_of(item)
        if text is not None:
            yield ModelText(
                Location(resource=uri, pointer=f"/contents/{i}/text"),
                f"the text contents of resource `{shown(uri)}`",
                text,
                "content",
                owner="resource",
            )


def _prompt_texts(name: str, result: Mapping[str, Any]) -> Iterator[ModelText]:
    description = result.get("description")
    if isinstance(description, str):
        what = f"the description prompts/get returned for prompt `{shown(name)}`"
        at = Location(prompt=name, pointer="/description")
        yield ModelText(at, what, description, "description", owner="prompt")
    messages = result.get("messages")
    for i, message in enumerate(messages if isinstance(messages, list) else ()):
        content = message.get("content") if isinstance(message, Mapping) else None
        blocks = content if isinstance(content, list) else [content]
        for j, block in enumerate(blocks):
            text = _text_of(block)
            if text is None:
                continue
            where = f"/messages/{i}/content" + (f"/{j}" if isinstance(content, list) else "")
            yield ModelText(
                Location(prompt=name, pointer=where + "/text"),
                f"message {i} of prompt `{shown(name)}`",
                text,
                "content",
                owner="prompt",
            )


def content_texts(method: str, subject: str, result: Any) -> list[ModelText]:
    """The texts of one successful ``resources/read`` (``subject``: the URI) or ``prompts/get``
    (the prompt name) answer; [] for anything else."""
    if not isinstance(result, Mapping):
        return []
    if method == "resources/read":
        return list(_read_texts(subject, result))
    if method == "prompts/get":
        return list(_prompt_texts(subject, result))
    return []


def surface_security_findings(texts: Sequence[ModelText]) -> list[Finding]:
    """The security findings over resource and prompt texts (see the module docstring)."""
    listed = [t for t in texts if t.kind != "content"]
    arguments = [t for t in listed if "/arguments/" in (t.location.pointer or "")]
    return [
        *check_hidden_characters(texts),
        *check_homoglyphs(listed),
        *check_model_instructions(texts),
        *check_exfiltration(arguments),
    ]
