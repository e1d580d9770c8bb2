"""Make untrusted JSON values safe to put in a report: strict UTF-8, strict JSON, bounded depth.

A target may send what JSON (and Python's ``json``) accepts but UTF-8 and strict JSON do not:

- **lone surrogates** (``"\\ud83d"``: half an emoji, cut by a JavaScript server). Valid JSON
  escapes, but no UTF-8 encoder writes them and pydantic refuses to serialise them, so one in a
  server name would break every output. Each becomes the visible six-character text ``\\ud83d``
  (the reports show exactly what was sent, as an escape);
- **NaN / Infinity** (Python's ``json`` reads and writes these literals): not JSON. Each becomes
  the string ``"NaN"``, ``"Infinity"`` or ``"-Infinity"``;
- **nesting** beyond ``json_depth.MAX_JSON_DEPTH``: clipped (``json_depth.clip``).

``report_model.WireModel`` applies ``safe_value`` to every field on construction, so every
renderer and ``probe_report`` receive safe values whatever path the data took. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from typing import Any

from mcprobe.core.schema.json_depth import clip

__all__ = ["safe_text", "safe_value"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def safe_text(text: str) -> str:
    """``text`` with every lone surrogate written as a visible ``\\uXXXX`` escape."""
    if text.isascii():
        return text
    return _SURROGATE.sub(_escape, text)


def _safe_float(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def safe_value(value: Any) -> Any:
    """``value`` with safe strings (keys too), finite numbers and bounded nesting. Returns the
    same object when nothing needed a change (the common case allocates nothing new)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, float):
        return _safe_float(value)
    if not isinstance(value, dict | list | tuple):
        return value
    value = clip(value)
    return _safe_container(value)


def _safe_container(value: Any) -> Any:
    # Recursive, but only after ``clip``: at most MAX_JSON_DEPTH levels (Python allows 1000).
    changed = False
    if isinstance(value, dict):
        out_dict: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = safe_text(key) if isinstance(key, str) else key
            new_item = _safe_item(item)
            changed = changed or new_key is not key or new_item is not item
            out_dict[new_key] = new_item
        return out_dict if changed else value
    out_list = [_safe_item(item) for item in value]
    if any(new is not old for new, old in zip(out_list, value, strict=True)):
        return out_list if isinstance(value, list) else tuple(out_list)
    return value


def _safe_item(item: Any) -> Any:
    if isinstance(item, str):
        return safe_text(item)
    if isinstance(item, float):
        return _safe_float(item)
    if isinstance(item, dict | list | tuple):
        return _safe_container(item)
    return item
