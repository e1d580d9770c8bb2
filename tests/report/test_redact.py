"""Redaction as data (``report/redact.py``): the target's strings lose every secret, mcprobe's
vocabulary is never touched, and the renderers' output stays valid whatever the secret."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from mcprobe.core.model import ServerSnapshot
from mcprobe.report.build import derive_verdicts
from mcprobe.report.model import ConformanceReport
from mcprobe.report.pinning import drift_against, lock_of, lock_text, parse_lock
from mcprobe.report.redact import REDACTED, REPORT_RULES, Redactor
from mcprobe.report.render.json_report import render_json
from mcprobe.report.render.junit import render_junit
from mcprobe.report.render.markdown import render_markdown
from mcprobe.report.render.sarif import render_sarif
from tests.support import builders
from tests.support.report_samples import sample_report


def test_every_rule_names_a_field_of_its_model() -> None:
    for model, rules in REPORT_RULES.items():
        missing = set(rules) - set(model.model_fields)
        assert not missing, f"{model.__name__} has no field(s) {sorted(missing)}"


def test_target_text_loses_every_occurrence_and_other_text_is_unchanged() -> None:
    r = Redactor.of(["tok-9f8e7d6c"])
    assert r.data("a tok-9f8e7d6c b tok-9f8e7d6c") == f"a {REDACTED} b {REDACTED}"
    assert r.data("nothing here") == "nothing here"


def test_a_secret_inside_another_goes_with_the_longer_one() -> None:
    r = Redactor.of(["abcd", "xxabcdxx"])
    assert r.data("1 xxabcdxx 2 abcd") == f"1 {REDACTED} 2 {REDACTED}"


def test_scrubbing_twice_changes_nothing_even_for_a_secret_inside_the_mark() -> None:
    r = Redactor.of(["dact"])
    once = r.data("dact and dact")
    assert once == f"{REDACTED} and {REDACTED}"
    assert r.data(once) == once
    assert r.prose(once) == once


def test_a_secret_that_is_not_mcprobe_vocabulary_is_scrubbed_everywhere_in_prose() -> None:
    r = Redactor.of(["hunter2-zz"])
    assert not r.collides("hunter2-zz")
    assert r.prose("tool says hunter2-zz unquoted") == f"tool says {REDACTED} unquoted"


def test_a_colliding_secret_is_scrubbed_only_inside_quoted_target_spans() -> None:
    r = Redactor.of(["error"])
    assert r.collides("error")
    text = "an error: the tool `raise_error` said \"error here\" and 'error' (error)"
    assert r.prose(text) == (
        f"an error: the tool `raise_{REDACTED}` said \"{REDACTED} here\" and '{REDACTED}' (error)"
    )


def test_a_colliding_secret_leaves_mcprobes_own_quoted_codes_alone() -> None:
    r = Redactor.of(["schema"])
    assert r.prose("see `schema.no_required` for `my_schema_tool`") == (
        f"see `schema.no_required` for `my_{REDACTED}_tool`"
    )


def test_target_json_loses_secrets_in_keys_and_values_but_not_numbers() -> None:
    r = Redactor.of(["s3cr3t-v"])
    value = {"s3cr3t-v": ["x s3cr3t-v", 1, True, None], "n": 2}
    assert r.value(value) == {REDACTED: [f"x {REDACTED}", 1, True, None], "n": 2}


def test_a_key_that_is_a_schema_word_stays_when_the_secret_collides_with_it() -> None:
    # A secret "type" must not turn a JSON Schema into {"[redacted]": "object"}.
    schema = {"type": "object", "properties": {"type_of": {"type": "string"}}}
    assert Redactor.of(["type"]).value(schema) == {
        "type": "object",
        "properties": {f"{REDACTED}_of": {"type": "string"}},
    }
    assert Redactor.of(["hunter2-zz"]).value({"hunter2-zz": 1}) == {REDACTED: 1}


def test_a_case_label_keeps_its_kind_and_loses_the_secret_in_its_path() -> None:
    r = Redactor.of(["wrong"])
    assert r.case_ref("wrong_type:wrong_field") == f"wrong_type:{REDACTED}_field"
    assert r.case_ref("wrong_tool wrong_type:a") == f"{REDACTED}_tool wrong_type:a"
    assert r.case_ref("valid") == "valid"


def _report_with(secret: str) -> ConformanceReport:
    """The renderer sample, with ``secret`` planted in the target's strings."""
    report = sample_report()
    server = report.server.model_copy(
        update={"name": f"srv {secret}", "instructions": f"say {secret}"}
    )
    fuzz = [
        r.model_copy(update={"message": f"echo {secret}", "arguments": {f"k_{secret}": secret}})
        for r in report.fuzz
    ]
    notes = [*report.notes, f"No valid arguments could be built for `{secret}_tool`."]
    return report.model_copy(update={"server": server, "fuzz": fuzz, "notes": notes})


@pytest.mark.parametrize("secret", ["error", "true", "name", "info", "warning", "tok-77aa99"])
def test_a_scrubbed_report_keeps_its_vocabulary_and_every_format_stays_valid(
    secret: str,
) -> None:
    raw = _report_with(secret)
    report = Redactor.of([secret]).report(raw)
    assert [f.severity for f in report.findings] == [f.severity for f in raw.findings]
    assert [f.code for f in report.findings] == [f.code for f in raw.findings]
    assert [r.outcome for r in report.fuzz] == [r.outcome for r in raw.fuzz]
    assert [d.key for d in report.dimensions] == [d.key for d in raw.dimensions]
    assert report.grade == raw.grade and report.schema_version == raw.schema_version
    assert report.server.name == f"srv {REDACTED}"
    assert all(r.message == f"echo {REDACTED}" for r in report.fuzz)
    assert all(r.arguments == {f"k_{REDACTED}": REDACTED} for r in report.fuzz)
    assert f"`{REDACTED}_tool`" in report.notes[-1]
    # Every format parses, and the planted strings are gone from it.
    assert ConformanceReport.model_validate_json(render_json(report)) is not None
    json.loads(render_sarif(report))
    ET.fromstring(render_junit(report))
    for text in (render_json(report), render_markdown(report)):
        assert f"srv {secret}" not in text and f"echo {secret}" not in text
        assert f"`{secret}_tool`" not in text


def test_the_critical_lines_quote_the_scrubbed_tool_name() -> None:
    raw = derive_verdicts(sample_report())
    tool = next(p.tool for p in raw.critical_problems if p.tool)
    assert tool is not None
    report = Redactor.of([tool]).report(raw)
    assert not any(line.startswith(f"`{tool}`:") for line in report.critical)
    assert any(line.startswith(f"`{REDACTED}`:") for line in report.critical)


def test_no_secret_changes_nothing() -> None:
    report = sample_report()
    assert Redactor.of([]).report(report) is report


def _snapshot(secret: str) -> ServerSnapshot:
    tool = builders.tool(
        f"get_{secret}",
        description=f"Uses {secret} to sign in.",
        inputSchema={"type": "object", "properties": {f"p_{secret}": {"type": "string"}}},
    )
    return builders.snapshot([tool], name=f"srv-{secret}")


@pytest.mark.parametrize("secret", ["name", "sha256", "hunter2-zz"])
def test_a_lock_holds_no_secret_and_keeps_its_own_keys_and_hashes(secret: str) -> None:
    redactor = Redactor.of([secret])
    text = lock_text(_snapshot(secret), redactor)
    lock = parse_lock(text)  # still a valid lock: its keys are mcprobe's
    assert lock.tools[0].name == f"get_{REDACTED}"
    assert lock.server.name == f"srv-{REDACTED}"
    assert lock.tools[0].sha256.startswith("sha256:")
    data = json.loads(text)
    assert f"get_{secret}" not in text and f"Uses {secret}" not in text
    assert f"p_{REDACTED}" in data["tools"][0]["definition"]["inputSchema"]["properties"]


def test_pin_and_audit_with_the_same_secrets_see_no_drift() -> None:
    redactor = Redactor.of(["hunter2-zz"])
    lock = parse_lock(lock_text(_snapshot("hunter2-zz"), redactor))
    assert not drift_against(lock, _snapshot("hunter2-zz"), redactor).drifted
    # The hash is of the scrubbed definition: a changed secret is not a changed definition.
    assert not drift_against(lock, _snapshot("other-s3cret"), Redactor.of(["other-s3cret"])).drifted
    assert drift_against(lock, _snapshot("other-s3cret")).drifted  # unscrubbed: it differs


def test_a_lock_without_secrets_is_the_unscrubbed_lock() -> None:
    snapshot = _snapshot("plain")
    assert lock_of(snapshot, Redactor.of([])) == lock_of(snapshot)


def test_a_progress_message_keeps_its_count_and_case_kind() -> None:
    r = Redactor.of(["valid"])
    assert r.progress("3/9 valid_tool valid") == f"3/9 {REDACTED}_tool valid"
    assert r.progress("3/9 t wrong_type:valid") == f"3/9 t wrong_type:{REDACTED}"


def test_a_check_request_keeps_the_protocol_keys_and_loses_the_targets_values() -> None:
    r = Redactor.of(["name"])
    text = 'prompts/get {"arguments": {}, "name": "name_prompt"}'
    assert r.request(text) == f'prompts/get {{"arguments": {{}}, "name": "{REDACTED}_prompt"}}'
    assert r.request("prompts/get not-json name") == "prompts/get not-json name"
