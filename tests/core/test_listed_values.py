"""Values the server lists in its own words (core/cases/listed_values.py): enum-like prose in a
description and the list in a refusal, as candidates for the valid call, always validated."""

from __future__ import annotations

from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.listed_values import listed_values, retry_arguments
from mcprobe.core.model import CaseSource


def test_enum_like_prose_is_read_in_order() -> None:
    assert listed_values("Table name, one of: users, orders, items.") == (
        "users",
        "orders",
        "items",
    )
    assert listed_values('Sort order. Allowed values: "asc", "desc".') == ("asc", "desc")
    assert listed_values("valid ids are 7, 9 and 12") == ("7", "9", "12")
    assert listed_values("Must be one of asc or desc") == ("asc", "desc")


def test_prose_that_lists_nothing_gives_nothing() -> None:
    for text in (
        "A path relative to one of the allowed directories.",
        "The expected output",
        "Name of the branch",
        "Returns one of many results",
    ):
        assert listed_values(text) == (), text


def test_a_refusal_lists_with_a_plural_noun_and_a_colon_a_description_does_not() -> None:
    refusal = "unknown table 'example'; tables: users, orders"
    assert listed_values(refusal, refusal=True) == ("users", "orders")
    assert listed_values("Columns: id, name") == ()
    assert listed_values("Error: file not found: /tmp/x", refusal=True) == ()


def _tool(**props: object) -> dict[str, object]:
    return {
        "name": "t",
        "inputSchema": {"type": "object", "properties": props, "required": list(props)},
    }


def test_the_refusal_names_the_argument_and_the_retry_keeps_the_call_valid() -> None:
    tool = _tool(table={"type": "string", "pattern": "^o"}, note={"type": "string"})
    refusal = "unknown table 'example'; tables: users, orders"
    assert retry_arguments(tool, {"table": "example", "note": "hi"}, refusal) == (
        {"table": "orders", "note": "hi"},
        "table",
        "orders",
    )
    assert retry_arguments(tool, {"table": "x", "note": "y"}, "tables: users, orders") is None
    assert retry_arguments(tool, {"table": "example", "note": "hi"}, "unknown table") is None


def test_a_description_s_listed_value_is_the_valid_base_and_stays_synthesized() -> None:
    tool = _tool(fmt={"type": "string", "description": "Report format. One of: summary, full."})
    valid = next(c for c in generate_cases(tool).cases if not c.malformed)
    assert valid.arguments == {"fmt": "summary"}
    assert valid.source is CaseSource.SYNTHESIZED
    ids = _tool(id={"type": "integer", "description": "valid ids are 7, 9"})
    assert next(c for c in generate_cases(ids).cases if not c.malformed).arguments == {"id": 7}
