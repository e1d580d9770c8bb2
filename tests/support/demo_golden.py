"""Helpers several test modules share, from tests/engine/test_demo_golden.py
(no test module imports another)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


GOLDEN_JSON = GOLDEN / "demo_report.json"


_LATENCY_CELL = re.compile(r"\| \d+ ms \|")


_P50 = re.compile(r"p50 latency [\d.]+ ms")


# The canary planted in a stdio target's environment is random per run (client/canary.py).
_CANARY = re.compile(r"MCPROBE_CANARY_[0-9A-F]+=mcprobe-canary-[0-9a-f]+")


CANARY_SHOWN = "MCPROBE_CANARY_N=mcprobe-canary-N"


def normalise_canary(text: str) -> str:
    return _CANARY.sub(CANARY_SHOWN, text)


_ISOLATION_LINE = re.compile(r"^- Isolation: .*\n", re.MULTILINE)


def normalise_markdown(markdown: str) -> str:
    """Latencies, the canary and the isolation line (it names this machine's paths and
    sandbox tool; tests/client/test_sandbox.py tests isolation) are normalised away."""
    text = _P50.sub("p50 latency N ms", _LATENCY_CELL.sub("| N ms |", markdown))
    return normalise_canary(_ISOLATION_LINE.sub("", text))


def as_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
