"""``scripts/compare_real.py`` compares what two reports say, not their bytes."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "compare_real.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compare_real", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _report() -> dict[str, Any]:
    return {
        "schemaVersion": "1.11",
        "overall": 86,
        "grade": "B",
        "dimensions": [{"key": "metadata", "score": 10.0}],
        "findings": [
            {
                "code": "security.canary_leak",
                "severity": "critical",
                "message": "returned the canary mcprobe-canary-1111",
                "location": {"tool": "get-env", "param": None},
            }
        ],
        "fuzz": [
            {"name": "echo", "case": "valid", "outcome": "ok", "verdicts": [], "latencyMs": 3.0},
            {
                "name": "echo",
                "case": "wrong_type:message",
                "outcome": "toolError",
                "verdicts": [],
                "latencyMs": 2.0,
            },
        ],
        "surface": {"checks": [{"check": "protocol.ping", "subject": None, "verdict": "pass"}]},
    }


def test_reports_that_differ_only_in_latencies_and_message_text_compare_the_same() -> None:
    script = _script()
    before, now = _report(), _report()
    now["fuzz"][0]["latencyMs"] = 250.0
    now["findings"][0]["message"] = "returned the canary mcprobe-canary-2222"
    now["fuzz"].reverse()  # order of completion is not behaviour
    assert script.differences(script.summary(0, before), script.summary(0, now)) == []


def test_a_changed_verdict_a_lost_check_and_another_exit_code_are_each_a_difference() -> None:
    script = _script()
    before = _report()
    now = copy.deepcopy(before)
    now["fuzz"][1]["verdicts"] = ["silentlyAccepted"]
    now["surface"]["checks"] = []
    found = script.differences(script.summary(0, before), script.summary(3, now))
    assert [line.split(":")[0].strip() for line in found] == ["exit code", "fuzz", "checks"]
    assert "silentlyAccepted" in found[1] and "protocol.ping" in found[2]


def test_a_call_made_twice_where_it_was_made_once_is_shown_as_the_extra_call() -> None:
    script = _script()
    before = _report()
    now = copy.deepcopy(before)
    now["fuzz"].append(copy.deepcopy(now["fuzz"][0]))
    found = script.differences(script.summary(0, before), script.summary(0, now))
    assert found == ["  fuzz: only before []; only now [('echo', 'valid', 'ok', ())]"]
