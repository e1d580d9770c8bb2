"""Which tools may be fuzzed: the safety rule, maxTools, the include filter (SPEC §5)."""

from __future__ import annotations

from typing import Literal

import pytest

from mcprobe.core.cases.selection import (
    CALLED_ISOLATED,
    CALLED_READ_ONLY,
    ConsentLevel,
    Selection,
    beyond_max_tools,
    called_with_consent,
    consent_level,
    needs_destructive,
    needs_writes,
    select_tools,
    skipped_by_user,
    unknown_tool_name,
)
from mcprobe.core.model import JSON, SkipCause
from tests.support import builders

NEEDS_WRITES, NEEDS_DESTRUCTIVE = needs_writes(), needs_destructive()  # CLI words (the default)
SKIPPED_BY_USER = skipped_by_user()
CALLED_WRITES = called_with_consent(ConsentLevel.WRITES)


def tool(name: str, annotations: JSON = None) -> JSON:
    return (
        builders.tool(name) if annotations is None else builders.tool(name, annotations=annotations)
    )


READ_ONLY = {"readOnlyHint": True}
NOT_DESTRUCTIVE = {"destructiveHint": False}


def reasons(selection: Selection) -> dict[str, str]:
    return {s.tool: s.reason for s in selection.skipped}


@pytest.mark.parametrize(
    "annotations",
    [READ_ONLY, {"readOnlyHint": True, "destructiveHint": True}, {"readOnlyHint": True, "x": 1}],
)
def test_tool_annotated_read_only_is_fuzzed_by_default(annotations: JSON) -> None:
    sel = select_tools([tool("a", annotations)])
    assert sel.selected_names == ("a",)
    assert sel.skipped == ()
    assert consent_level(tool("a", annotations)) is ConsentLevel.READ_ONLY


@pytest.mark.parametrize(
    "annotations", [NOT_DESTRUCTIVE, {"readOnlyHint": False, "destructiveHint": False}]
)
def test_additive_write_tool_is_skipped_by_default_and_named_with_how_to_consent(
    annotations: JSON,
) -> None:
    sel = select_tools([tool("a", annotations)])
    assert sel.selected == ()
    assert reasons(sel) == {"a": NEEDS_WRITES}
    assert "--fuzz-writes" in NEEDS_WRITES and "fuzzWrites" not in NEEDS_WRITES
    assert {s.cause for s in sel.skipped} == {SkipCause.NEEDS_WRITES}
    assert consent_level(tool("a", annotations)) is ConsentLevel.WRITES


@pytest.mark.parametrize(
    "annotations", [NOT_DESTRUCTIVE, {"readOnlyHint": False, "destructiveHint": False}]
)
def test_fuzz_writes_is_consent_to_call_additive_write_tools(annotations: JSON) -> None:
    sel = select_tools([tool("a", annotations)], fuzz_writes=True)
    assert sel.selected_names == ("a",)


@pytest.mark.parametrize(
    "annotations",
    [
        None,
        {},
        {"title": "A"},
        {"destructiveHint": True},
        {"readOnlyHint": False},
        {"readOnlyHint": "true"},
        {"destructiveHint": 0},
        "read-only",
    ],
)
def test_tool_that_may_be_destructive_is_skipped_even_with_writes_consent(
    annotations: JSON,
) -> None:
    for writes in (False, True):
        sel = select_tools([tool("a", annotations)], fuzz_writes=writes)
        assert sel.selected == ()
        assert reasons(sel) == {"a": NEEDS_DESTRUCTIVE}
    assert "--fuzz-destructive" in NEEDS_DESTRUCTIVE and "fuzzDestructive" not in NEEDS_DESTRUCTIVE
    assert consent_level(tool("a", annotations)) is ConsentLevel.DESTRUCTIVE


def test_skip_reasons_are_one_sentence_per_level_so_the_report_can_group_them() -> None:
    tools = [tool("w1", NOT_DESTRUCTIVE), tool("d1"), tool("w2", NOT_DESTRUCTIVE), tool("d2", {})]
    assert reasons(select_tools(tools)) == {
        "w1": NEEDS_WRITES,
        "d1": NEEDS_DESTRUCTIVE,
        "w2": NEEDS_WRITES,
        "d2": NEEDS_DESTRUCTIVE,
    }


def test_fuzz_destructive_is_consent_to_fuzz_every_tool_and_implies_writes() -> None:
    tools = [tool("a"), tool("b", {"destructiveHint": True}), tool("c", READ_ONLY)]
    tools.append(tool("d", NOT_DESTRUCTIVE))
    sel = select_tools(tools, fuzz_destructive=True)
    assert sel.selected_names == ("a", "b", "c", "d")
    assert sel.skipped == ()


def test_selection_keeps_listing_order_and_raw_definitions() -> None:
    # With writes consent the additive tool joins in listing order; the unannotated one not.
    tools = [tool("z", READ_ONLY), tool("m"), tool("a", NOT_DESTRUCTIVE)]
    sel = select_tools(tools, fuzz_writes=True)
    assert sel.selected == (tools[0], tools[2])
    assert [s.tool for s in sel.skipped] == ["m"]


def test_max_tools_caps_the_selection_and_names_the_rest() -> None:
    tools = [tool(f"t{i}", READ_ONLY) for i in range(5)]
    sel = select_tools(tools, max_tools=2)
    assert sel.selected_names == ("t0", "t1")
    assert reasons(sel) == {f"t{i}": beyond_max_tools(2) for i in (2, 3, 4)}


def test_max_tools_counts_only_tools_that_would_be_fuzzed() -> None:
    tools = [tool("unsafe"), tool("a", READ_ONLY), tool("b", READ_ONLY)]
    sel = select_tools(tools, max_tools=2)
    assert sel.selected_names == ("a", "b")
    assert "beyond" not in reasons(sel)["unsafe"]


def test_max_tools_zero_skips_everything_and_negative_is_refused() -> None:
    sel = select_tools([tool("a", READ_ONLY)], max_tools=0)
    assert sel.selected == () and reasons(sel) == {"a": beyond_max_tools(0)}
    with pytest.raises(ValueError, match="max_tools"):
        select_tools([], max_tools=-1)


def test_default_max_tools_is_fifty() -> None:
    sel = select_tools([tool(f"t{i:02}", READ_ONLY) for i in range(60)])
    assert len(sel.selected) == 50
    assert len(sel.skipped) == 10


def test_include_narrows_the_selection() -> None:
    tools = [tool("a", READ_ONLY), tool("b", READ_ONLY), tool("c", READ_ONLY)]
    sel = select_tools(tools, include=["c", "a"])
    assert sel.selected_names == ("a", "c")
    assert reasons(sel) == {"b": "not in the requested tools"}
    assert sel.unknown_included == ()


def test_include_is_not_consent_to_fuzz_an_unsafe_tool() -> None:
    sel = select_tools([tool("wipe", {"destructiveHint": True})], include=["wipe"])
    assert sel.selected == ()
    assert reasons(sel)["wipe"] == NEEDS_DESTRUCTIVE


def test_included_names_that_do_not_exist_are_reported_once_in_order() -> None:
    sel = select_tools([tool("a", READ_ONLY)], include=["nope", "a", "gone", "nope"])
    assert sel.selected_names == ("a",)
    assert sel.unknown_included == ("nope", "gone")


def test_include_given_as_a_single_string_means_that_one_name() -> None:
    sel = select_tools([tool("ab", READ_ONLY), tool("a", READ_ONLY)], include="ab")
    assert sel.selected_names == ("ab",)


def test_empty_include_selects_nothing() -> None:
    sel = select_tools([tool("a", READ_ONLY)], include=[])
    assert sel.selected == ()
    assert reasons(sel) == {"a": "not in the requested tools"}


def test_malformed_entries_are_skipped_by_position() -> None:
    tools: list[JSON] = [
        "not a tool",
        {"inputSchema": {}},
        {"name": 3},
        {"name": ""},
        tool("ok", READ_ONLY),
    ]
    sel = select_tools(tools)
    assert sel.selected_names == ("ok",)
    found = reasons(sel)
    assert found["tools[0]"] == "malformed tool entry: not an object"
    for key in ("tools[1]", "tools[2]", "tools[3]"):
        assert found[key] == "malformed tool entry: it has no string name"


def test_a_duplicate_name_is_fuzzed_once() -> None:
    sel = select_tools([tool("a", READ_ONLY), tool("a", READ_ONLY)])
    assert sel.selected_names == ("a",)
    assert [s.reason for s in sel.skipped] == [
        "duplicate name: only the first definition is fuzzed"
    ]


def test_selection_is_deterministic() -> None:
    tools = [tool("a"), tool("b", READ_ONLY), "junk", tool("c", NOT_DESTRUCTIVE)]
    assert select_tools(tools, max_tools=1) == select_tools(tools, max_tools=1)


def test_unknown_tool_name_avoids_existing_names() -> None:
    assert unknown_tool_name([]) == "mcprobe_nonexistent_tool"
    assert unknown_tool_name(["divide"]) == "mcprobe_nonexistent_tool"
    taken = ["mcprobe_nonexistent_tool", "mcprobe_nonexistent_tool_2"]
    assert unknown_tool_name(taken) == "mcprobe_nonexistent_tool_3"
    assert unknown_tool_name(iter(taken)) not in taken


def test_tool_that_requires_tasks_is_skipped_even_with_consent_and_says_why() -> None:
    needs_task = tool("research", READ_ONLY)
    needs_task["execution"] = {"taskSupport": "required"}
    sel = select_tools([needs_task, tool("b", READ_ONLY)], fuzz_destructive=True)
    assert sel.selected_names == ("b",)
    reason = reasons(sel)["research"]
    assert 'taskSupport: "required"' in reason and "2025-11-25" in reason
    assert "tools/call" in reason


@pytest.mark.parametrize(
    "execution", [{"taskSupport": "optional"}, {"taskSupport": "forbidden"}, {}, "required"]
)
def test_tool_that_merely_allows_tasks_is_fuzzed(execution: JSON) -> None:
    definition = tool("a", READ_ONLY)
    definition["execution"] = execution
    assert select_tools([definition]).selected_names == ("a",)


def test_task_only_tool_does_not_use_up_max_tools() -> None:
    needs_task = tool("research", READ_ONLY)
    needs_task["execution"] = {"taskSupport": "required"}
    sel = select_tools([needs_task, tool("b", READ_ONLY)], max_tools=1)
    assert sel.selected_names == ("b",)
    assert "beyond" not in reasons(sel)["research"]


def test_isolated_every_tool_is_selected_whatever_its_annotations_and_says_why() -> None:
    tools = [
        tool("r", READ_ONLY),
        tool("w", NOT_DESTRUCTIVE),
        tool("d"),
        tool("x", {"destructiveHint": True}),
    ]
    sel = select_tools(tools, isolated=True)
    assert sel.selected_names == ("r", "w", "d", "x")
    assert set(sel.why_called) == {CALLED_ISOLATED}
    assert sel.skipped == ()


def test_without_isolation_the_consent_levels_still_choose_and_each_call_names_its_consent() -> (
    None
):
    tools = [tool("r", READ_ONLY), tool("w", NOT_DESTRUCTIVE), tool("d")]
    sel = select_tools(tools, fuzz_writes=True)
    assert sel.selected_names == ("r", "w")
    assert sel.why_called == (CALLED_READ_ONLY, CALLED_WRITES)
    assert reasons(sel) == {"d": NEEDS_DESTRUCTIVE}


def test_skip_tools_are_never_called_even_isolated_or_read_only() -> None:
    tools = [tool("r", READ_ONLY), tool("d"), tool("e")]
    sel = select_tools(tools, isolated=True, skip=("r", "e"))
    assert sel.selected_names == ("d",)
    assert reasons(sel) == {"r": SKIPPED_BY_USER, "e": SKIPPED_BY_USER}


WORDS_OF = {
    "cli": ("--fuzz-writes", "--fuzz-destructive", "--skip-tools", "--max-tools 1"),
    "tool": ("fuzzWrites: true", "fuzzDestructive: true", "skipTools", "maxTools: 1"),
    "library": ("fuzz_writes=True", "fuzz_destructive=True", "skip_tools", "max_tools=1"),
}


@pytest.mark.parametrize("words", sorted(WORDS_OF))
def test_skip_reasons_name_the_knobs_of_the_front_end_that_asked_and_no_other(
    words: Literal["cli", "tool", "library"],
) -> None:
    """Issue 20 item 4, issue 23 item 5: CLI words on the CLI, tool inputs in the MCP server,
    keywords in the library; never two vocabularies in one sentence."""
    tools = [
        tool("w", NOT_DESTRUCTIVE),
        tool("d"),
        tool("s"),
        tool("r", READ_ONLY),
        tool("x", READ_ONLY),
    ]
    sel = select_tools(tools, skip=("s",), max_tools=1, words=words)
    texts = reasons(sel)
    assert texts == {
        "w": needs_writes(words),
        "d": needs_destructive(words),
        "s": skipped_by_user(words),
        "x": beyond_max_tools(1, words),
    }
    for text, knob in zip(
        (texts["w"], texts["d"], texts["s"], texts["x"]), WORDS_OF[words], strict=True
    ):
        assert knob in text
    others = [k for front, knobs in WORDS_OF.items() if front != words for k in knobs]
    joined = " | ".join(texts.values())
    assert not any(other in joined for other in others if other not in WORDS_OF[words])
    assert "CLI" not in joined and "tool input" not in joined
    assert [s.cause for s in sel.skipped] == [
        SkipCause.NEEDS_WRITES,
        SkipCause.NEEDS_DESTRUCTIVE,
        SkipCause.SKIPPED_BY_USER,
        SkipCause.BEYOND_MAX_TOOLS,
    ]
