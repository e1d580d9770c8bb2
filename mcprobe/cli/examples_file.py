"""Reading an examples file (``--examples FILE``, ``examples = "FILE"`` in mcprobe.toml).

JSON: tool name → one argument object or a non-empty list of them. Only the shape is checked
here (stdlib, before the target starts); each example is validated against its tool's schema
once the tools are listed (``core/cases/user_examples.py``). Errors are one-line
``ValueError``s; the caller words them as its usage error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["read_examples_file"]


def read_examples_file(path: Path | str) -> dict[str, Any]:
    shown = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {shown!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{shown!r} is not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{shown!r} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{shown!r}: expected an object of tool name → examples")
    for name, value in data.items():
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(item, dict) for item in items):
            raise ValueError(
                f"{shown!r}: tool {name!r} needs an argument object or a non-empty list of them"
            )
    return data
