"""The dialect helper validates schemas and instances in the schema's own dialect."""

from mcprobe.schema_dialect import instance_errors, is_valid, schema_problems


def test_a_valid_2020_12_schema_has_no_problems() -> None:
    assert schema_problems({"type": "object", "properties": {"a": {"type": "string"}}}) == ()


def test_a_misspelled_type_is_a_problem_with_a_pointer() -> None:
    problems = schema_problems({"type": "object", "properties": {"a": {"type": "strin"}}})
    assert [p.pointer for p in problems] == ["/properties/a/type"]


def test_draft_07_schema_is_checked_under_draft_07() -> None:
    # "$defs" is not a keyword in draft-07, but "definitions" is; both are fine as unknown keys.
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "minProperties": "x"}
    assert [p.pointer for p in schema_problems(schema)] == ["/minProperties"]


def test_an_unknown_dialect_is_reported() -> None:
    assert schema_problems({"$schema": "http://example.invalid/s"})[0].pointer == "/$schema"


def test_local_refs_resolve_and_remote_refs_are_never_fetched() -> None:
    local = {"properties": {"a": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "integer"}}}
    assert is_valid(local, {"a": 1})
    assert not is_valid(local, {"a": "x"})
    remote = {"properties": {"a": {"$ref": "http://127.0.0.1:9/x.json"}}}
    assert instance_errors(remote, {"a": 1}) != ()


def test_formats_are_asserted() -> None:
    assert not is_valid({"type": "string", "format": "date"}, "yesterday")
    assert is_valid({"type": "string", "format": "date"}, "2026-11-29")


def test_a_schema_nested_beyond_the_recursion_limit_is_a_problem_not_a_crash() -> None:
    schema: dict[str, object] = {"type": "object"}
    for _ in range(5000):
        schema = {"type": "object", "properties": {"a": schema}}
    problems = schema_problems(schema)
    assert [p.message for p in problems] == ["the schema nests too deeply; it could not be checked"]
