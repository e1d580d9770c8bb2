"""The Markdown report: golden files, section order, and hostile target text.

Golden files live in ``tests/golden/<name>.md`` (the rendering) and ``tests/golden/<name>.json``
(the report it was rendered from, latencies normalised). To regenerate them after an intended
change, run::

    MCPROBE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/report/test_render_markdown.py

then review the diff of ``tests/golden/`` before committing. ``normalise_volatile`` zeroes
latencies (the only volatile field); golden tests of real targets should apply it too.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import replace

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from mcprobe.core.model import Outcome
from mcprobe.report.build import derive_verdicts
from mcprobe.report.model import ConformanceReport, FixPlanOut, FuzzResultOut, SkippedToolOut
from mcprobe.report.render.markdown import CLEAN, NO_CRITICAL, render_markdown
from tests.support.fix_plan_reports import (
    EVERYTHING_TOOLS,
    audit,
    everything_report,
    server,
    time_server_report,
)
from tests.support.golden import check_golden
from tests.support.paths import GOLDEN
from tests.support.report_samples import fix_lines
from tests.support.synthetic_audits import (
    HOSTILE_STRINGS,
    Audit,
    benign,
    build,
    clean_audit,
    died_audit,
    flawed_audit,
    hostile_audit,
    result,
)

GOLDEN = GOLDEN
PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")

SECTIONS = [
    "mcprobe conformance report",
    "Summary",
    "Coverage",
    "Critical behavior",
    "Dimensions",
    "Findings",
    "Fuzz results",
    "Protocol probes",
    "Recommended fixes",
]


def normalise_volatile(report: ConformanceReport) -> ConformanceReport:
    """The report with every latency set to 0, so renderings compare across runs."""

    def zero(result: FuzzResultOut) -> FuzzResultOut:
        return result.model_copy(update={"latency_ms": 0.0})

    probe = report.unknown_tool_probe
    return report.model_copy(
        update={
            "fuzz": [zero(r) for r in report.fuzz],
            "unknown_tool_probe": None if probe is None else zero(probe),
        }
    )


def golden_json(report: ConformanceReport) -> str:
    """The report as ASCII JSON, like ``render_json`` prints it. Dumped in pydantic's python
    mode because its json mode cannot serialise a dict key holding a lone surrogate (the hostile
    report's arguments have such keys)."""
    return json.dumps(report.model_dump(by_alias=True), indent=2, ensure_ascii=True) + "\n"


def load_golden_json(name: str) -> ConformanceReport:
    # Python's json accepts lone-surrogate escapes; pydantic's JSON parser rejects them.
    return ConformanceReport.model_validate(json.loads((GOLDEN / f"{name}.json").read_text()))


GOLDEN_AUDITS: dict[str, Callable[[], Audit]] = {
    "clean": clean_audit,
    "flawed": flawed_audit,
    "died": died_audit,
    "hostile": hostile_audit,
}


@pytest.mark.parametrize("name", sorted(GOLDEN_AUDITS))
def test_report_json_matches_golden(name: str) -> None:
    report = normalise_volatile(build(GOLDEN_AUDITS[name]()))
    check_golden(GOLDEN / f"{name}.json", golden_json(report))


@pytest.mark.parametrize("name", sorted(GOLDEN_AUDITS))
def test_markdown_matches_golden(name: str) -> None:
    report = normalise_volatile(build(GOLDEN_AUDITS[name]()))
    check_golden(GOLDEN / f"{name}.md", render_markdown(report))


@pytest.mark.parametrize("name", sorted(GOLDEN_AUDITS))
def test_report_loaded_back_from_json_renders_the_same_markdown(name: str) -> None:
    loaded = load_golden_json(name)
    assert render_markdown(loaded) == (GOLDEN / f"{name}.md").read_text("utf-8")


@pytest.mark.parametrize("name", sorted(GOLDEN_AUDITS))
def test_rendering_twice_gives_identical_bytes(name: str) -> None:
    assert render_markdown(build(GOLDEN_AUDITS[name]())) == render_markdown(
        build(GOLDEN_AUDITS[name]())
    )


# --------------------------------------------------------------------------- structure


def headings(markdown: str) -> list[str]:
    tokens = PARSER.parse(markdown)
    return [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]


def test_sections_come_in_spec_order_with_fuzz() -> None:
    assert headings(render_markdown(build(flawed_audit()))) == SECTIONS


def test_without_fuzz_there_is_no_critical_callout_and_no_fuzz_table() -> None:
    markdown = render_markdown(build(clean_audit()))
    assert headings(markdown) == [
        s for s in SECTIONS if s not in ("Critical behavior", "Fuzz results", "Protocol probes")
    ]
    assert "Fuzz: not run" in markdown
    assert "Critical" not in markdown


def test_header_gives_identity_protocol_score_grade_and_quoted_instructions() -> None:
    lines = render_markdown(build(clean_audit())).splitlines()
    assert "- Server: `tidy-server`, version `2.1.0`" in lines
    assert "- Protocol version: `2025-11-25`" in lines
    assert "- **Overall score: 100/100 · grade A**" in lines
    assert (
        "> Server says (instructions, excerpt): "
        "`Call lookup with a word. It returns its definition.`"
    ) in lines


def test_nothing_measured_reads_not_measured_not_a_number() -> None:
    report = build(clean_audit()).model_copy(update={"overall": None, "grade": "-"})
    assert "- **Overall score: not measured**" in render_markdown(report).splitlines()


def test_clean_server_gets_exactly_nothing_to_fix() -> None:
    markdown = render_markdown(build(clean_audit()))
    assert markdown.endswith("## Recommended fixes\n\n" + CLEAN + "\n")


def test_flawed_server_is_told_what_to_fix_and_not_that_it_is_clean() -> None:
    markdown = render_markdown(build(flawed_audit()))
    assert CLEAN not in markdown
    assert NO_CRITICAL not in markdown


def test_fuzzed_server_without_critical_behaviour_says_so() -> None:
    audit = died_audit()
    assert audit.fuzz is not None
    healthy = [r for r in build(audit).fuzz if r.outcome == "ok"]
    report = derive_verdicts(
        build(audit).model_copy(update={"fuzz": healthy, "crashed_by": None, "critical": []})
    )
    lines = render_markdown(report).splitlines()
    assert NO_CRITICAL in lines
    assert not any(line.startswith("⚠") for line in lines)


def test_coverage_line_counts_tools_and_names_skipped_ones_with_reasons() -> None:
    lines = render_markdown(build(flawed_audit())).splitlines()
    assert "Fuzzed 6 of 7 tools." in lines
    assert "- 1 tool skipped: may be destructive (no readOnlyHint): `delete_all`." in lines


def test_coverage_line_names_the_skipped_tools_of_each_reason_once_grouped() -> None:
    report = build(flawed_audit())
    assert report.coverage is not None
    skipped = [
        SkippedToolOut(tool="w1", reason="needs writes"),
        SkippedToolOut(tool="d1", reason="needs destructive"),
        SkippedToolOut(tool="w2", reason="needs writes"),
    ]
    coverage = report.coverage.model_copy(update={"skipped": skipped})
    lines = render_markdown(report.model_copy(update={"coverage": coverage})).splitlines()
    skips = [line for line in lines if " skipped: " in line]
    assert skips == [
        "- 2 tools skipped: needs writes: `w1`, `w2`.",
        "- 1 tool skipped: needs destructive: `d1`.",
    ]


def test_critical_callout_names_tools_and_the_case_that_killed_the_target() -> None:
    lines = render_markdown(build(died_audit())).splitlines()
    assert "⚠ Critical: `alpha` (details below)" in lines
    assert (
        "- The target died during case `alpha` `wrong_type:q`; 3 remaining cases were not run "
        "(not counted against any tool)."
    ) in lines
    assert not any(line.startswith("- `beta`") for line in lines)


def test_in_flight_victim_of_a_crash_is_marked_not_blamed_in_the_table() -> None:
    rows = [
        r for r in render_markdown(build(died_audit())).splitlines() if r.startswith("| `beta`")
    ]
    assert "not blamed" in rows[0]


def test_dimension_scores_show_one_decimal_at_most_and_their_reasons() -> None:
    lines = render_markdown(build(flawed_audit())).splitlines()
    i = lines.index("- **Liveness & Performance: 3.3/10**")
    assert lines[i + 1] == "  - 1 of 3"
    assert "- **Error Handling: 5/10**" in lines


def test_unmeasured_dimension_reads_not_measured_with_its_reason() -> None:
    lines = render_markdown(build(clean_audit())).splitlines()
    i = lines.index("- **Error Handling: not measured**")
    assert lines[i + 1] == "  - not measured: fuzz was not run"


def test_findings_summary_counts_severities_and_lists_worst_first() -> None:
    lines = render_markdown(build(flawed_audit())).splitlines()
    assert "1 error, 5 warnings, 1 info." in lines
    listed = [line.split()[1] for line in lines if line.startswith("- **") and " at " in line]
    assert listed == ["**error**"] + ["**warning**"] * 5 + ["**info**"]


def test_fuzz_table_shows_outcome_code_flags_latency_and_note() -> None:
    report = build(flawed_audit())
    lines = render_markdown(report).splitlines()
    assert (
        "| `divide` | `missing_required:b` | protocolError (-32603) | leak | 10 ms | "
        '`Traceback (most recent call last): File "/srv/app.py", line 3` |'
    ) in lines
    assert "| `boom` | `valid` | notRun | — | — | target died |" in lines
    assert "| `greet` | `valid` | ok | emptySuccess | 3 ms |  |" in lines


def test_fuzz_rows_of_one_shape_keep_their_own_tool_case_and_latency_and_others_their_cells() -> (
    None
):
    report = build(flawed_audit())
    first = report.fuzz[0]
    same = [
        first.model_copy(update={"name": name, "case": case, "latency_ms": latency})
        for name, case, latency in (("a|b", "wrong_type:x", 7.0), ("c", "missing_required:y", 9.0))
    ]
    other = first.model_copy(
        update={"outcome": "notRun", "message": "gone", "error_code": None, "verdicts": []}
    )
    table = report.model_copy(
        update={"fuzz": [*same, other], "fixes": FixPlanOut(), "critical_problems": []}
    )
    rows = [line for line in render_markdown(table).split("\n") if line.startswith("| `")]
    cells = [row.split(" | ") for row in rows]
    assert [c[0] for c in cells] == ["| `a`\\|`b`", "| `c`", f"| `{first.name}`"]
    assert [c[1] for c in cells] == ["`wrong_type:x`", "`missing_required:y`", f"`{first.case}`"]
    assert [c[4] for c in cells] == ["7 ms", "9 ms", "—"]
    assert cells[0][2:4] == cells[1][2:4] != cells[2][2:4]
    assert rows[0].split(" ms | ", 1)[1] == rows[1].split(" ms | ", 1)[1]
    assert cells[2][2] == "notRun" and rows[2].endswith("| `gone` |")


def test_every_fuzz_result_gets_a_row_and_the_unknown_tool_probe_is_in_the_protocol_part() -> None:
    report = build(flawed_audit())
    markdown = render_markdown(report)
    rows = [line for line in markdown.splitlines() if line.startswith("| `")]
    assert len(rows) == len(report.fuzz)
    assert not any("unknown_tool" in row for row in rows)
    protocol = markdown.split("## Protocol probes", 1)[1].split("\n## ", 1)[0]
    assert (
        "- A call to a tool that does not exist: sent `{}` as the arguments of "
        "`mcprobe_no_such_tool_7f3a`; answered protocolError (-32602) `Unknown tool`: "
        "rejected cleanly." in protocol.splitlines()
    )


def test_lint_fixes_are_grouped_by_code_errors_first_with_exact_places() -> None:
    fixes = fix_lines(build(flawed_audit()))
    assert fixes[:6] == [
        "1. **`tool.missing_description`** (error, 1 place): Describe what the tool does.",
        "   - tool `greet`",
        "2. **`param.untyped`** (warning, 3 places)",
        "   - tool `greet` › param `name`: Give the parameter a type.",
        "   - tool `divide` › param `a`: Give the parameter a type.",
        "   - tool `divide` › param `b`: Give 'b' the type number.",
    ]
    assert [line[:3] for line in fixes if line[0].isdigit()][2:5] == ["3. ", "4. ", "5. "]
    assert [line for line in fixes if line.startswith("5. ")] == [
        "5. **`tool.no_annotations`** (info, 1 place): Declare readOnlyHint/destructiveHint."
    ]


def test_fix_places_nest_under_two_digit_item_numbers() -> None:
    audit = flawed_audit()
    many = tuple(replace(audit.findings[0], code=f"code.{n}", hint="Same hint.") for n in range(10))
    fixes = fix_lines(build(replace(audit, findings=many, fuzz=None)))
    i = fixes.index("10. **`code.9`** (warning, 1 place): Same hint.")
    assert fixes[i + 1] == "    - tool `greet` › param `name`"


def test_behavioural_fixes_follow_lint_fixes_with_reproducing_arguments() -> None:
    fixes = [line for line in fix_lines(build(flawed_audit())) if line[0].isdigit()]
    assert fixes[5].startswith("6. `boom`: Keep the server alive")
    assert fixes[7] == (
        "8. `divide`: Validate arguments against the input schema and reject invalid ones with "
        "isError: true (or JSON-RPC error -32602). Reproduce: `wrong_type:a` with "
        '`{"a": "x", "b": 1}`.'
    )
    assert any("internal error (-32603)" in f and "`missing_required:b`" in f for f in fixes)


def test_backtick_quoted_target_names_in_mcprobe_sentences_render_as_code() -> None:
    lines = render_markdown(build(flawed_audit())).splitlines()
    assert (
        "- Note: Cases not sent (validated against schema): `set_mode` `wrong_type:mode`." in lines
    )


def test_time_server_with_rejected_valid_calls_is_never_told_nothing_to_fix() -> None:
    fixes = fix_lines(time_server_report())
    assert CLEAN not in fixes
    assert fixes[:3] == [
        "1. **Server metadata** (2 changes)",
        "   - Add a human-readable `serverInfo.title` (hosts show it to people; MCP 2025-06-18 "
        "and later).",
        "   - Send `instructions` in the initialize result: a few sentences on what the server is "
        "for and how its tools fit together (at least 40 characters).",
    ]
    assert fixes[3] == (
        "2. **Valid call rejected** (2 tools, 2 distinct answers): Accept the call the schema's "
        "own `default`/`examples` (or the user's example) describe, or correct that example so a "
        "client can build a call that works."
    )
    assert fixes[4] == (
        "   - `get_current_time`: It refuses its own example: the minimal valid call "
        '`{"timezone": "example"}` (the schema\'s or the user\'s example) was rejected (toolError: '
        "`Invalid timezone: 'No time zone found with key example'`)."
    )
    assert fixes[5].startswith("   - `convert_time`: It refuses its own example")


def test_nothing_to_fix_appears_only_when_nothing_was_deducted() -> None:
    clean = fix_lines(audit(server(["a"]), [result("a", "valid", Outcome.OK, {}, message="fine")]))
    assert clean == [CLEAN]
    slow_calls = [
        result(n, "valid", Outcome.OK, {}, message="x", latency_ms=900) for n in "abc"
    ]  # three valid calls: enough to measure liveness
    slow = fix_lines(audit(server(["a", "b", "c"]), slow_calls))
    assert slow == [
        "1. Answer valid calls faster: their p50 latency is 900 ms, over the 200 ms budget "
        "(−0.5 per 100 ms over); move slow work off the call path, or cache it."
    ]


def test_a_deduction_no_fix_explains_is_listed_with_its_reasons() -> None:
    report = build(clean_audit())
    odd = report.dimensions[0].model_copy(update={"score": 9.0, "reasons": ["−1: odd thing"]})
    edited = report.model_copy(update={"dimensions": [odd, *report.dimensions[1:]]})
    fixes = fix_lines(derive_verdicts(edited))
    assert fixes == [
        "1. **Metadata & Documentation** (9/10): remove the deductions listed under Dimensions",
        "   - −1: odd thing",
    ]


def test_identical_internal_errors_across_tools_are_one_protocol_level_fix() -> None:
    items = [line for line in fix_lines(everything_report()) if line[:1].isdigit()]
    assert len(items) == 1
    (item,) = items
    tools = ", ".join(f"`{name}`" for name in EVERYTHING_TOOLS)
    assert item.startswith(f"1. {tools} (13 tools, the same behaviour): Reject malformed input")
    assert "Reproduce: `tool0` `non_object_arguments` with `[]` (the other 12 tools" in item
    assert (
        "Protocol-level: every tool that was sent `non_object_arguments` answered it this way, so "
        "it comes from the server's protocol layer (the `tools/call` dispatch of its SDK or "
        "framework), not from each tool's code: fix it once there."
    ) in item


def test_a_long_tool_list_in_one_fix_is_cut_with_a_count() -> None:
    names = [f"t{n}" for n in range(25)]
    results = [
        result(n, "non_object_arguments", Outcome.PROTOCOL_ERROR, [], error_code=-32603)
        for n in names
    ]
    (item,) = fix_lines(audit(server(names), results))
    assert "`t19` and 5 more (25 tools, the same behaviour)" in item
    assert "`t20`" not in item.split(" (25 tools")[0]


def test_accepted_unknown_tool_call_gets_a_fix() -> None:
    report = build(hostile_audit(benign))
    assert "Reject calls to unknown tools" in render_markdown(report)


# --------------------------------------------------------------------------- hostile text


def hostile_markdown() -> str:
    return render_markdown(build(hostile_audit()))


def gfm_cells(row: str) -> int:
    """Cells in a table row by cmark-gfm's rule: a backslash escapes the next punctuation
    character (so ``\\\\|`` is an escaped backslash then a real pipe)."""
    pipes, i = 0, 0
    while i < len(row):
        if row[i] == "\\" and i + 1 < len(row) and not row[i + 1].isalnum():
            i += 2
            continue
        pipes += row[i] == "|"
        i += 1
    return pipes - 1  # leading and trailing pipes


def markdown_it_cells(row: str) -> int:
    """Cells by markdown-it's rule: a pipe right after a backslash is escaped."""
    return len(re.findall(r"(?<!\\)\|", row)) - 1


def test_hostile_text_keeps_every_table_row_at_six_columns_in_both_gfm_parsers() -> None:
    rows = [line for line in hostile_markdown().splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 2 * len(HOSTILE_STRINGS)  # the unknown-tool probe: Protocol part
    assert {gfm_cells(row) for row in rows} == {6}
    assert {markdown_it_cells(row) for row in rows} == {6}


def test_hostile_text_parses_to_one_table_whose_rows_all_have_six_cells() -> None:
    tokens = PARSER.parse(hostile_markdown())
    assert sum(t.type == "table_open" for t in tokens) == 1
    cells_per_row: list[int] = []
    for t in tokens:
        if t.type == "tr_open":
            cells_per_row.append(0)
        elif t.type in ("td_open", "th_open"):
            cells_per_row[-1] += 1
    assert set(cells_per_row) == {6}


def block_shape(markdown: str) -> list[tuple[str, int]]:
    return [(t.type, t.level) for t in PARSER.parse(markdown) if t.type != "inline"]


def test_hostile_text_leaves_the_block_structure_identical_to_benign_text() -> None:
    benign_markdown = render_markdown(build(hostile_audit(benign)))
    assert block_shape(hostile_markdown()) == block_shape(benign_markdown)
    assert headings(hostile_markdown()) == SECTIONS


def all_inline(markdown: str) -> list[Token]:
    out: list[Token] = []
    for t in PARSER.parse(markdown):
        out.extend(t.children or [])
    return out


def test_hostile_text_injects_no_html_link_image_or_emphasis() -> None:
    hostile_types = [t.type for t in all_inline(hostile_markdown())]
    benign_types = [t.type for t in all_inline(render_markdown(build(hostile_audit(benign))))]
    assert not {"html_inline", "link_open", "image", "s_open"} & set(hostile_types)
    assert not any(t.type == "html_block" for t in PARSER.parse(hostile_markdown()))
    for markup in ("strong_open", "em_open"):
        assert hostile_types.count(markup) == benign_types.count(markup)


MCPROBE_LINE_STARTS = re.compile(
    r"^(# mcprobe conformance report$|## [A-Z]|_mcprobe |- |  - | {3,4}- |\d+\. |\| |"
    r"> Server says |"
    r"⚠ Critical: |Fuzzed \d|Cases: \d|\d+ errors?, |Sent once per server: |_This is the |$)"
)


def test_no_line_starts_with_target_text() -> None:
    for line in hostile_markdown().splitlines():
        assert MCPROBE_LINE_STARTS.match(line), line
        assert not line.lstrip("-#>|*_0123456789. ").startswith("EVIL"), line


def test_hostile_phrases_never_pose_as_mcprobe_lines() -> None:
    lines = hostile_markdown().splitlines()
    assert lines.count("## Recommended fixes") == 1
    assert NO_CRITICAL not in lines and not any(line.startswith("✓") for line in lines)
    assert CLEAN not in lines
    assert all("ignore previous" not in line for line in lines if line.startswith("#"))


def test_instructions_are_quoted_in_one_blockquote_line_as_server_text() -> None:
    quoted = [line for line in hostile_markdown().splitlines() if line.startswith(">")]
    assert len(quoted) == 1
    assert quoted[0].startswith("> Server says (instructions, excerpt): `EVIL104 ")


def test_hostile_output_has_no_control_format_or_surrogate_characters() -> None:
    markdown = hostile_markdown()
    bad = {c for c in markdown if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Cs")}
    assert bad == set()
    markdown.encode("utf-8")


def test_ten_kilobyte_strings_are_truncated_with_an_ellipsis() -> None:
    markdown = hostile_markdown()
    assert "y" * 400 not in markdown
    assert "yyy`…" in markdown
    # about 200 kB of hostile target text goes in; a bounded excerpt of each comes out
    assert len(markdown) < 40_000
