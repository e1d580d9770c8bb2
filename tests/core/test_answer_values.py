"""Values another tool's answer names (core/cases/answer_values.py): every shape a listing is
answered in, the kind it is keyed by, the caps, schema-valid values only, junk ignored."""

from __future__ import annotations

from typing import Any

import pytest

from mcprobe.core.cases.answer_values import (
    MAX_ITEMS,
    MAX_PER_KIND,
    MAX_SCAN,
    AnswerValue,
    answer_retry_arguments,
    answer_values,
    empty_answer,
    field_kinds,
    listed_kind,
    pool_values,
)


def _tool(tool_name: str, description: str = "", **props: Any) -> dict[str, Any]:
    return {
        "name": tool_name,
        "description": description,
        "inputSchema": {"type": "object", "properties": props, "required": list(props)},
    }


def _answer(text: str | None = None, structured: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [] if text is None else [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def _found(tool: dict[str, Any], result: dict[str, Any], arguments: Any = None) -> list[Any]:
    return [(v.kind, v.value) for v in answer_values(tool, arguments or {}, result)]


USERS_ORDERS = [("table", "users"), ("table", "orders")]


@pytest.mark.parametrize(
    "result",
    [
        _answer('["users", "orders"]'),
        _answer('[{"name": "users", "rows": 3}, {"name": "orders", "rows": 9}]'),
        _answer("[{'name': 'users'}, {'name': 'orders'}]"),  # a Python repr (mcp-server-sqlite)
        _answer("Tables: users, orders"),
        _answer("Found 2 tables:\n- users\n- orders"),
        _answer("users\norders"),
        _answer('{"tables": ["users", "orders"]}'),
        _answer(None, {"result": ["users", "orders"]}),
        _answer("", {"tables": [{"name": "users"}, {"name": "orders"}]}),
    ],
)
def test_every_shape_of_a_table_listing_gives_its_tables(result: dict[str, Any]) -> None:
    assert _found(_tool("list_tables"), result) == USERS_ORDERS


def test_what_a_tool_lists_is_read_from_its_name_or_its_description() -> None:
    assert listed_kind(_tool("list_tables")) == "table"
    assert listed_kind(_tool("getAllUsers")) == "user"
    assert listed_kind(_tool("list_allowed_directories")) == "directory"
    assert listed_kind(_tool("list_directory")) == "file"  # the entries of one directory
    assert listed_kind(_tool("list_sheets")) == "sheet"
    assert listed_kind(_tool("list_workbooks")) == "file"
    assert listed_kind(_tool("tables", "Lists all tables of the database.")) == "table"
    assert listed_kind(_tool("get_weather", "Returns the weather.")) is None
    assert listed_kind(_tool("list")) is None


def test_a_labelled_list_counts_in_any_answer_a_bare_one_only_in_a_listing_tool_s() -> None:
    describe = _tool("describe_database")
    assert _found(describe, _answer("Tables: users, orders\nsize: 3 MB")) == USERS_ORDERS
    assert _found(describe, _answer('{"sheets": ["Q1", "Q2"]}')) == [
        ("sheet", "Q1"),
        ("sheet", "Q2"),
    ]
    assert _found(describe, _answer("users\norders")) == []
    assert _found(_tool("get_weather"), _answer('["sunny", "warm"]')) == []
    assert _found(describe, _answer("Error: something failed")) == []


def test_directory_entries_are_joined_to_the_listed_directory_first() -> None:
    found = _found(
        _tool("list_directory", path={"type": "string"}),
        _answer("[FILE] notes.txt\n[DIR] archive"),
        {"path": "/srv/docs/"},
    )
    assert found == [
        ("file", "/srv/docs/notes.txt"),
        ("file", "notes.txt"),
        ("directory", "/srv/docs/archive"),
        ("directory", "archive"),
    ]
    allowed = _found(_tool("list_allowed_directories"), _answer("Allowed directories:\n/srv/a"))
    assert allowed == [("directory", "/srv/a")]
    typed = _answer('[{"name": "a.txt", "type": "file"}, {"name": "sub", "type": "directory"}]')
    assert _found(_tool("list_files"), typed) == [("file", "a.txt"), ("directory", "sub")]


def test_objects_give_the_key_their_kind_wants() -> None:
    users = _answer('[{"id": 7, "name": "Ada"}, {"id": "u-9", "name": "Bob"}]')
    assert _found(_tool("list_users"), users) == [("user", "7"), ("user", "u-9")]
    files = _answer('[{"name": "a.txt", "path": "/srv/a.txt"}]')
    assert _found(_tool("list_files"), files) == [("file", "/srv/a.txt")]


def test_values_are_capped_per_kind_and_lists_are_read_only_so_far() -> None:
    many = _answer("\n".join(f"table{i}" for i in range(500)))
    found = _found(_tool("list_tables"), many)
    assert found == [("table", f"table{i}") for i in range(MAX_PER_KIND)]
    late = [{"junk": i} for i in range(MAX_ITEMS)] + [{"name": "users"}]
    assert _found(_tool("list_tables"), _answer(None, {"tables": late})) == []


def test_an_answer_is_read_only_up_to_the_scan_cap() -> None:
    padded = _answer(" " * MAX_SCAN + "Tables: users, orders")
    assert _found(_tool("describe_database"), padded) == []
    assert _found(_tool("describe_database"), _answer("Tables: users, orders" + " " * MAX_SCAN))


def test_untrusted_junk_is_never_a_value() -> None:
    junk = [
        "",
        "   ",
        "..",
        "null",
        "bell\x07here",
        "x" * 300,
        True,
        None,
        ["nested"],
        {"no": "name"},
        3.5,
        "line\nbreak",
    ]
    assert _found(_tool("list_tables"), _answer(None, junk)) == []
    prose = _answer("Here are the tables that exist in this database right now.\nDone.")
    assert _found(_tool("list_tables"), prose) == []
    for text in ("[" * 3000, "{" * 5000 + "}" * 5000, "[1e999999, 'a'", "not json ]"):
        answer_values(_tool("list_tables"), {}, _answer(text))  # no exception, bounded
    assert answer_values(_tool("list_tables"), {}, "not a result") == []


def test_a_field_s_name_says_which_kind_it_takes() -> None:
    assert field_kinds("table") == ("table",)
    assert field_kinds("tableName") == ("table",)
    assert field_kinds("sheet_name") == ("sheet",)
    assert field_kinds("repo_path") == ("repository",)
    assert field_kinds("db_path") == ("database",)
    assert field_kinds("file_path") == ("file",)
    assert field_kinds("path", "read_file") == ("file", "directory")
    assert field_kinds("path", "list_directory") == ("directory", "file")
    assert field_kinds("user_id") == ("user",)
    assert field_kinds("name") == ()


def _pool(*found: tuple[str, str, str]) -> dict[str, tuple[AnswerValue, ...]]:
    return pool_values([[AnswerValue(kind, value, lister) for kind, value, lister in found]])


def test_the_same_kind_field_is_set_first_with_the_first_value_that_fits_the_schema() -> None:
    tool = _tool(
        "query",
        note={"type": "string"},
        table={"type": "string", "pattern": "^[a-z]+$"},
    )
    pool = _pool(("table", "Bad Name", "list_tables"), ("table", "orders", "list_tables"))
    found = answer_retry_arguments(tool, {"note": "example", "table": "example"}, pool)
    assert found is not None
    arguments, field, value = found
    assert (arguments, field) == ({"note": "example", "table": "orders"}, "table")
    assert value == AnswerValue("table", "orders", "list_tables")


def test_a_generic_field_takes_the_kind_of_the_tool_s_own_noun() -> None:
    tool = _tool("describe_table", name={"type": "string"})
    found = answer_retry_arguments(tool, {"name": "example"}, _pool(("table", "users", "lt")))
    assert found is not None and found[0] == {"name": "users"}
    other = _tool("get_weather", name={"type": "string"}, unit={"type": "string"})
    pool = _pool(("table", "users", "lt"))
    assert answer_retry_arguments(other, {"name": "x", "unit": "c"}, pool) is None


def test_no_value_that_fits_no_retry() -> None:
    tool = _tool("describe_table", table={"type": "string", "maxLength": 4})
    pool = _pool(("table", "customers", "list_tables"), ("table", "example", "list_tables"))
    assert answer_retry_arguments(tool, {"table": "example"}, pool) is None  # too long / same
    assert answer_retry_arguments(tool, {"table": "example"}, {}) is None
    own = _tool("list_tables", table={"type": "string"})
    assert answer_retry_arguments(own, {"table": "x"}, _pool(("table", "a", "list_tables"))) is None
    numeric = _tool("get_user", user_id={"type": "integer"})
    assert answer_retry_arguments(numeric, {"user_id": 1}, _pool(("user", "7", "lu"))) is None


def test_several_answers_merge_first_answer_first_once_each() -> None:
    first = [AnswerValue("table", "users", "a"), AnswerValue("table", "orders", "a")]
    second = [AnswerValue("table", "users", "b"), AnswerValue("file", "x.txt", "b")]
    pool = pool_values([first, second])
    assert [v.value for v in pool["table"]] == ["users", "orders"]
    assert pool["table"][0].lister == "a" and pool["file"][0].lister == "b"


def test_a_field_named_for_a_thing_of_its_own_is_not_generic() -> None:
    """mcp-server-sqlite's ``create_table(query)``: its only string field is a query, not a
    table name, whatever the tool's name speaks of."""
    tool = _tool("create_table", query={"type": "string"})
    pool = _pool(("table", "users", "list_tables"))
    assert answer_retry_arguments(tool, {"query": "test"}, pool) is None


def test_only_a_same_kind_field_is_set_when_asked() -> None:
    pool = _pool(("table", "users", "list_tables"))
    generic = _tool("describe_table", name={"type": "string"})
    assert answer_retry_arguments(generic, {"name": "x"}, pool, same_kind_only=True) is None
    named = _tool("describe_table", table_name={"type": "string"})
    found = answer_retry_arguments(named, {"table_name": "x"}, pool, same_kind_only=True)
    assert found is not None and found[0] == {"table_name": "users"}


def test_an_empty_listing_is_an_empty_answer_and_nothing_else_is() -> None:
    for text in ("[]", " [ ] ", "{}", "null"):
        assert empty_answer(_answer(text)), text
    assert empty_answer(_answer("[]", []))
    for result in (_answer("[1]"), _answer("no rows"), _answer(""), _answer("[]", {"a": 1})):
        assert not empty_answer(result)
