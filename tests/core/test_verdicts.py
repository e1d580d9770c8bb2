"""The verdict catalogue is the one source of every verdict's words, for every renderer."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from mcprobe.core.verdicts import CRITICAL_KEYS, VERDICTS, VERDICTS_BY_KEY, verdict
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
