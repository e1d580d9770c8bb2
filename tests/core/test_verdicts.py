"""The verdict catalogue is the one source of every verdict's words, for every renderer."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations, product

from mcprobe.core.verdicts import (
    CRITICAL_KEYS,
    VERDICTS,
    VERDICTS_BY_KEY,
    call_verdicts,
    flagged,
    priority,
    verdict,
)
from mcprobe.report.build import derive_verdicts
from mcprobe.report.model import FixPlanOut
from mcprobe.report.render.junit import render_junit
from mcprobe.report.render.markdown import CLEAN
from mcprobe.report.render.sarif import BEHAVIOUR_RULES, render_sarif
from tests.support.report_samples import fix_lines, sample_report
from tests.support.synthetic_audits import build, died_audit, flawed_audit


def test_every_verdict_has_a_unique_key_a_fix_and_a_unique_sarif_rule() -> None:
    assert len(VERDICTS_BY_KEY) == len(VERDICTS)
    assert all(kind.fix.strip() and kind.title.strip() for kind in VERDICTS)
    sarif_ids = [kind.sarif_id for kind in VERDICTS if kind.sarif_id is not None]
    assert len(set(sarif_ids)) == len(sarif_ids)
    assert all(kind.summary for kind in BEHAVIOUR_RULES)


def test_every_critical_verdict_has_the_phrase_the_critical_list_needs() -> None:
    assert {
        "crash",
        "crashLoop",
        "timeout",
        "invalidResult",
        "silentlyAccepted",
        "unknownToolAccepted",
        "outputSchemaViolation",
        "emptySuccess",
        "securityCritical",
    } == CRITICAL_KEYS
    assert all(verdict(key).problem for key in CRITICAL_KEYS)


def test_sarif_help_junit_fix_and_markdown_fix_are_the_same_catalogue_text() -> None:
    report = build(flawed_audit())
    rules = {
        rule["id"]: rule["help"]["text"]
        for rule in json.loads(render_sarif(report))["runs"][0]["tool"]["driver"]["rules"]
    }
    silently = verdict("silentlyAccepted")
    # SARIF help: the fix, then the catalogue's advice for a reader who sees only the rule
    assert rules["behavior.silently_accepted"] == f"{silently.fix} {silently.advice}"
    junit = ET.fromstring(render_junit(report))
    texts = [f.text or "" for f in junit.iter("failure") if f.get("type") == silently.sarif_id]
    assert texts and all(f"fix: {silently.fix}" in text for text in texts)
    assert any(silently.fix in line for line in fix_lines(report))


def test_the_markdown_renderer_formats_the_plan_in_the_report_and_decides_nothing() -> None:
    report = build(died_audit())
    assert fix_lines(report) != [CLEAN]
    emptied = report.model_copy(update={"fixes": FixPlanOut()})
    assert fix_lines(emptied) == [CLEAN]
    assert derive_verdicts(emptied) == report  # the core recomputes the same plan


def test_a_valid_call_answered_with_an_internal_error_has_its_own_sarif_rule() -> None:
    log = json.loads(render_sarif(sample_report()))
    ids = {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert {"behavior.internal_error", "behavior.internal_error_valid"} <= ids
    assert verdict("internalErrorValid").fix != verdict("internalError").fix


@dataclass(frozen=True)
class _Call:
    kind: str
    malformed: bool
    outcome: str
    error_code: int | None
    flags: frozenset[str]
    inconclusive: str | None
    environment: str | None


def _named_detection(call: _Call) -> tuple[str, ...]:
    """``call_verdicts`` as it was written before each record held its detector (one ``if`` per
    flag, in code order): the oracle the records must agree with."""
    leak = "leak" in call.flags
    if call.kind == "unknown_tool":
        return _named_probe_detection(call)
    keys: list[str] = []
    if call.outcome == "protocolCrash" and (call.environment is None or call.inconclusive is None):
        keys.append("crash")
    if call.outcome == "timeout":
        keys.append("timeout")
    invalid = call.outcome == "protocolError" and call.error_code is None
    if invalid:
        keys.append("invalidResult")
    for key in ("silentlyAccepted", "outputSchemaViolation", "emptySuccess", "failureAsSuccess"):
        if key in call.flags:
            keys.append(key)
    if call.inconclusive is not None:
        return (*keys, *(["leak"] if leak else []))
    internal = call.outcome == "protocolError" and call.error_code == -32603
    if not call.malformed and call.outcome in ("toolError", "protocolError") and not invalid:
        keys.append("internalErrorValid" if internal else "rejectedValid")
    if "validationBypass" in call.flags:
        keys.append("validationBypass")
    elif call.malformed and internal:
        keys.append("internalError")
    return (*keys, *(["leak"] if leak else []))


def _named_probe_detection(probe: _Call) -> tuple[str, ...]:
    """The old ``_probe_verdicts`` (the unknown-tool probe), the oracle of ``detect_probe``."""
    leak = "leak" in probe.flags
    if probe.inconclusive is not None:
        return ("leak",) if leak else ()
    keys: list[str] = []
    if probe.outcome == "protocolCrash":
        keys.append("crash")
    elif probe.outcome == "protocolError" and probe.error_code is None:
        keys.append("invalidResult")
    elif probe.outcome == "timeout":
        keys.append("timeout")
    elif probe.outcome == "ok":
        keys.append("unknownToolAccepted")
    elif probe.outcome == "protocolError" and probe.error_code == -32603:
        keys.append("internalError")
    return (*keys, *(["leak"] if leak else []))


_LEGACY_FLAGS = (
    "silentlyAccepted",
    "outputSchemaViolation",
    "emptySuccess",
    "failureAsSuccess",
    "validationBypass",
    "leak",
)


def _every_call() -> Iterator[_Call]:
    flag_sets = [
        frozenset(chosen)
        for n in range(len(_LEGACY_FLAGS) + 1)
        for chosen in combinations(_LEGACY_FLAGS, n)
    ]
    for kind, malformed in (("valid", False), ("wrong_type", True), ("unknown_tool", True)):
        for outcome in ("ok", "toolError", "protocolError", "timeout", "protocolCrash", "notRun"):
            for code, flags, inconclusive, environment in product(
                (None, -32603, -32602), flag_sets, (None, "why"), (None, "a network")
            ):
                yield _Call(kind, malformed, outcome, code, flags, inconclusive, environment)


def test_the_records_detectors_find_what_the_named_detection_found_in_the_same_order() -> None:
    for call in _every_call():
        assert call_verdicts(call) == _named_detection(call), call


def test_call_verdicts_lists_keys_in_catalogue_order_and_every_flag_has_a_detector() -> None:
    for call in _every_call():
        found = call_verdicts(call)
        assert list(found) == sorted(found, key=priority)
    assert all(kind.detect is not None for kind in VERDICTS if kind.flag)


def test_a_new_flag_is_detected_from_the_calls_flags_alone() -> None:
    call = _Call("valid", False, "ok", None, frozenset({"someNewFlag"}), None, None)
    assert flagged("someNewFlag")(call) and not flagged("leak")(call)


def test_the_verdict_memo_is_keyed_by_every_field_a_detector_may_read() -> None:
    # A detector is typed to read only ``Classified``; calls alike in all its properties share
    # one answer, so a property left out of the key would hand one call another's verdicts.
    from mcprobe.core.verdicts import SHAPE_FIELDS, Classified

    readable = [name for name, value in vars(Classified).items() if isinstance(value, property)]
    assert list(SHAPE_FIELDS) == readable
