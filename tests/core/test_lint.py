"""Lint (SPEC §4): every rule fires on a flawed tool, stays silent on a sound one, and the
result is deterministic, precise (JSON pointers) and robust to any shape of raw JSON."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.shared.tool_name_validation import validate_tool_name

from mcprobe.core.lint.engine import EXTRA_CODES, LINT_RULES, lint_server
from mcprobe.core.model import Finding, Location, ServerSnapshot, Severity
from tests.support import builders

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"


def snapshot(
    *tools: Any, capabilities: dict[str, Any] | None = None, listing: tuple[Finding, ...] = ()
) -> ServerSnapshot:
    return builders.snapshot(
        tools,
        name="t",
        version="1",
        capabilities={"tools": {}} if capabilities is None else capabilities,
        listing_findings=listing,
    )


def sound_tool(name: Any = "divide", **overrides: Any) -> dict[str, Any]:
    """A tool that passes every rule; tests override one member to break one rule."""
    tool: dict[str, Any] = {
        "name": name,
        "description": "Divide a by b and return the quotient.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "The dividend."},
                "b": {"type": "number", "description": "The divisor, not zero."},
            },
            "required": ["a", "b"],
        },
        "annotations": {"readOnlyHint": True},
    }
    tool.update(overrides)
    return tool


def with_schema(schema: Any, name: str = "divide") -> dict[str, Any]:
    return sound_tool(name, inputSchema=schema)


def lint(*tools: Any, **kwargs: Any) -> tuple[Finding, ...]:
    """The schema-quality findings (``security.*`` has its own tests: test_security_rules.py)."""
    found = lint_server(snapshot(*tools, **kwargs))
    return tuple(f for f in found if not f.code.startswith("security."))


def of(findings: tuple[Finding, ...], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def codes(findings: tuple[Finding, ...]) -> list[str]:
    return [f.code for f in findings]


# --------------------------------------------------------------------------- the registry

SPEC_SEVERITIES = {
    "tool.missing_description": Severity.ERROR,
    "tool.thin_description": Severity.WARNING,
    "tool.duplicate_name": Severity.ERROR,
    "tool.unusual_name": Severity.WARNING,
    "tool.no_input_schema": Severity.WARNING,
    "tool.no_annotations": Severity.INFO,
    "schema.invalid": Severity.ERROR,
    "schema.root_not_object": Severity.WARNING,
    "schema.no_required": Severity.INFO,
    "param.untyped": Severity.WARNING,
    "param.missing_description": Severity.WARNING,
    "server.no_tools": Severity.WARNING,
}


def test_registry_holds_the_twelve_spec_codes_with_spec_severities_plus_listed_extras() -> None:
    assert "tool.malformed" in EXTRA_CODES
    assert set(LINT_RULES) == set(SPEC_SEVERITIES) | set(EXTRA_CODES)
    assert not set(SPEC_SEVERITIES) & set(EXTRA_CODES)
    for code, severity in SPEC_SEVERITIES.items():
        assert LINT_RULES[code].severity is severity, code
        assert LINT_RULES[code].code == code
        assert LINT_RULES[code].title and LINT_RULES[code].summary
    assert LINT_RULES["tool.malformed"].severity is Severity.ERROR


def test_a_rule_added_to_its_module_tuple_is_registered_with_no_other_list_to_edit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    from mcprobe.core.lint import registry, rules

    extra = rules.LintRule(
        "tool.example_extra", Severity.INFO, "t", "s", tool_check=rules.check_thin_description
    )
    monkeypatch.setattr(rules, "TOOL_ENTRY_RULES", (*rules.TOOL_ENTRY_RULES, extra))
    try:
        fresh = importlib.reload(registry)
        assert "tool.example_extra" in fresh.LINT_RULES
        assert "tool.example_extra" in fresh.EXTRA_CODES
        assert "tool.example_extra" in fresh.FINDING_CODES
    finally:
        monkeypatch.undo()
        importlib.reload(registry)


def test_every_finding_carries_the_severity_of_its_registered_rule() -> None:
    findings = lint({"name": "bad name", "inputSchema": {"properties": {"x": {}}}}, "junk")
    assert findings
    assert all(f.severity is LINT_RULES[f.code].severity for f in findings)


# --------------------------------------------------------------------------- silence


def test_a_sound_tool_produces_no_findings() -> None:
    assert lint(sound_tool(), sound_tool("multiply")) == ()


def test_a_sound_2020_12_schema_with_defs_refs_and_prefix_items_produces_no_findings() -> None:
    schema = {
        "$schema": DRAFT_2020,
        "type": "object",
        "properties": {
            "point": {
                "type": "array",
                "description": "x and y.",
                "prefixItems": [{"type": "number"}, {"type": "number"}],
                "items": False,
            },
            "unit": {"$ref": "#/$defs/unit"},
        },
        "required": ["point"],
        "$defs": {"unit": {"enum": ["m", "km"], "description": "Length unit."}},
    }
    assert lint(with_schema(schema)) == ()


def test_a_draft_07_schema_with_definitions_and_array_items_is_checked_as_draft_07() -> None:
    schema = {
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {
            "pair": {
                "type": "array",
                "description": "Two numbers.",
                "items": [{"type": "number"}, {"type": "number"}],
            },
            "unit": {"$ref": "#/definitions/unit"},
        },
        "required": [],
        "definitions": {"unit": {"type": "string", "description": "Length unit."}},
    }
    assert lint(with_schema(schema)) == ()


def test_a_tool_without_parameters_may_declare_a_bare_object_schema() -> None:
    assert lint(with_schema({"type": "object"})) == ()


# --------------------------------------------------------------------------- tool.* rules


def test_missing_blank_or_non_string_description_is_an_error_at_the_description() -> None:
    tools = [sound_tool("a"), sound_tool("b", description="   "), sound_tool("c", description=7)]
    del tools[0]["description"]
    found = of(lint(*tools), "tool.missing_description")
    assert [(f.location.tool, f.location.pointer) for f in found] == [
        ("a", "/description"),
        ("b", "/description"),
        ("c", "/description"),
    ]
    assert "description" in found[0].hint and "`a`" in found[0].hint


def test_a_description_under_twelve_characters_is_thin_but_twelve_is_enough() -> None:
    found = lint(
        sound_tool("short", description="  Divides a b  "), sound_tool("ok", description="x" * 12)
    )
    assert [(f.code, f.location.tool) for f in found] == [("tool.thin_description", "short")]
    assert found[0].severity is Severity.WARNING


def test_a_blank_description_is_missing_not_thin() -> None:
    assert codes(lint(sound_tool(description=""))) == ["tool.missing_description"]


def test_two_tools_sharing_a_name_give_one_server_wide_error_naming_both_positions() -> None:
    found = lint(sound_tool("x"), sound_tool("y"), sound_tool("x"), sound_tool("x"))
    dupes = of(found, "tool.duplicate_name")
    assert len(dupes) == 1
    assert dupes[0].location == Location(tool="x")
    assert "0, 2 and 3" in dupes[0].message
    assert found[0] == dupes[0]


def test_names_outside_sep_986_are_unusual_and_the_hint_suggests_a_legal_name() -> None:
    found = lint(sound_tool("send email!"), sound_tool(""), sound_tool("n" * 129))
    unusual = of(found, "tool.unusual_name")
    assert [f.location.tool for f in unusual] == ["send email!", "", "n" * 129]
    assert all(f.location.pointer == "/name" for f in unusual)
    assert "`send_email`" in unusual[0].hint
    assert "' '" in unusual[0].message and "'!'" in unusual[0].message
    assert "129 characters" in unusual[2].message


def test_names_within_sep_986_are_not_unusual() -> None:
    assert lint(sound_tool("n" * 128), sound_tool("files.read-v2_X")) == ()


@given(st.text(max_size=140) | st.text(alphabet="ab._- ,/é", max_size=130))
def test_the_tool_name_rule_agrees_with_the_sdk_sep_986_validator(name: str) -> None:
    unusual = of(lint(sound_tool(name)), "tool.unusual_name")
    assert (unusual == []) == validate_tool_name(name).is_valid


def test_mixed_naming_styles_give_one_server_wide_warning_naming_the_odd_ones_out() -> None:
    names = ["get_user", "list_items", "deleteItem", "ping", "fetch-page"]
    found = lint(*(sound_tool(n) for n in names))
    assert codes(found) == ["tool.unusual_name"]
    (mixed,) = found
    assert mixed.location == Location()
    assert "2 snake_case" in mixed.message and "1 camelCase" in mixed.message
    assert "`deleteItem` → `delete_item`" in mixed.hint
    assert "`fetch-page` → `fetch_page`" in mixed.hint


def test_one_naming_style_plus_one_word_names_is_not_mixed() -> None:
    assert lint(sound_tool("getUser"), sound_tool("listItems"), sound_tool("ping")) == ()


def test_a_missing_non_object_or_empty_input_schema_is_no_input_schema_only() -> None:
    missing = sound_tool("missing")
    del missing["inputSchema"]
    tools = [missing, with_schema("x", "text"), with_schema([], "list"), with_schema({}, "empty")]
    found = lint(*tools)
    assert [(f.code, f.location.tool) for f in found] == [
        ("tool.no_input_schema", "missing"),
        ("tool.no_input_schema", "text"),
        ("tool.no_input_schema", "list"),
        ("tool.no_input_schema", "empty"),
    ]
    assert {f.location.pointer for f in found} == {"/inputSchema"}


def test_absent_empty_or_non_object_annotations_are_reported_as_info() -> None:
    absent = sound_tool("absent")
    del absent["annotations"]
    tools = [absent, sound_tool("empty", annotations={}), sound_tool("bad", annotations="ro")]
    found = lint(*tools)
    assert [(f.code, f.location.tool) for f in found] == [
        ("tool.no_annotations", "absent"),
        ("tool.no_annotations", "empty"),
        ("tool.no_annotations", "bad"),
    ]
    assert all(f.severity is Severity.INFO for f in found)


# --------------------------------------------------------------------------- schema.* rules


def test_a_schema_invalid_in_2020_12_is_an_error_pointing_into_the_tool_definition() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "strin", "description": "A."}}}
    found = of(lint(with_schema({**schema, "required": ["a"]})), "schema.invalid")
    assert len(found) == 1
    assert found[0].location == Location("divide", "a", "/inputSchema/properties/a/type")
    assert "2020-12" in found[0].message


def test_draft_07_array_items_are_invalid_when_the_schema_does_not_say_draft_07() -> None:
    pair = {"type": "array", "description": "P.", "items": [{"type": "number"}]}
    schema: dict[str, Any] = {"type": "object", "properties": {"p": pair}, "required": []}
    as_2020 = of(lint(with_schema(schema)), "schema.invalid")
    as_07 = of(lint(with_schema({**schema, "$schema": DRAFT_07})), "schema.invalid")
    assert [f.location.pointer for f in as_2020] == ["/inputSchema/properties/p/items"]
    assert as_07 == []


def test_an_unknown_schema_dialect_is_invalid_at_the_dollar_schema_member() -> None:
    found = of(
        lint(with_schema({"$schema": "http://example.invalid/s", "type": "object"})),
        "schema.invalid",
    )
    assert [f.location.pointer for f in found] == ["/inputSchema/$schema"]


def test_an_invalid_output_schema_is_reported_too() -> None:
    found = of(lint(sound_tool(outputSchema={"type": 3})), "schema.invalid")
    assert [f.location.pointer for f in found] == ["/outputSchema/type"]
    assert of(lint(sound_tool(outputSchema="x")), "schema.invalid")[0].location.pointer == (
        "/outputSchema"
    )


def test_a_non_object_input_schema_is_not_also_reported_as_invalid() -> None:
    assert codes(lint(with_schema("x"))) == ["tool.no_input_schema"]


def test_many_schema_problems_are_capped_with_a_count_of_the_rest() -> None:
    props = {f"p{i:02}": {"type": "nope", "description": "P."} for i in range(13)}
    found = of(
        lint(with_schema({"type": "object", "properties": props, "required": []})), "schema.invalid"
    )
    assert len(found) == 10
    assert "(and 3 more problems in this schema)" in found[-1].message


def test_an_absurdly_deep_schema_is_reported_not_raised() -> None:
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(3000):
        schema = {"type": "object", "properties": {"a": schema}, "required": []}
    found = lint(with_schema(schema))
    where = "nests deeper than 100 levels (at $.properties.a.properties.a"
    assert any(where in f.message for f in of(found, "schema.invalid"))


def test_a_root_type_other_than_object_or_a_missing_root_type_is_reported() -> None:
    props = {"a": {"type": "string", "description": "A."}}
    found = lint(
        with_schema({"type": "array"}, "arr"),
        with_schema({"properties": props, "required": ["a"]}, "untyped_root"),
        with_schema({"type": ["object", "null"]}, "nullable"),
    )
    assert [(f.code, f.location.tool) for f in found] == [
        ("schema.root_not_object", "arr"),
        ("schema.root_not_object", "untyped_root"),
        ("schema.root_not_object", "nullable"),
    ]
    assert found[0].location.pointer == "/inputSchema/type"


def test_properties_without_a_required_array_are_reported_but_an_empty_array_is_explicit() -> None:
    props = {"a": {"type": "string", "description": "A."}}
    found = lint(
        with_schema({"type": "object", "properties": props}, "none"),
        with_schema({"type": "object", "properties": props, "required": []}, "explicit"),
    )
    assert [(f.code, f.location.tool, f.location.pointer) for f in found] == [
        ("schema.no_required", "none", "/inputSchema/required")
    ]


def test_no_required_stays_silent_when_every_property_has_a_default() -> None:
    defaulted = {
        "a": {"type": "string", "description": "A.", "default": "x"},
        "b": {"type": "integer", "description": "B.", "default": 1},
    }
    one_without = {**defaulted, "c": {"type": "string", "description": "C."}}
    found = lint(
        with_schema({"type": "object", "properties": defaulted}, "defaulted"),
        with_schema({"type": "object", "properties": one_without}, "partly"),
    )
    assert [(f.code, f.location.tool) for f in found] == [("schema.no_required", "partly")]


# --------------------------------------------------------------------------- param.* rules


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": []}


def test_a_property_with_no_typing_keyword_is_untyped() -> None:
    found = of(lint(with_schema(obj(a={"description": "A."}))), "param.untyped")
    assert [f.location for f in found] == [Location("divide", "a", "/inputSchema/properties/a")]
    assert "`a`" in found[0].hint and "`divide`" in found[0].hint


def test_type_enum_const_combinators_and_refs_all_count_as_typed() -> None:
    typed: dict[str, dict[str, Any]] = {
        "t": {"type": "string"},
        "e": {"enum": [1, 2]},
        "c": {"const": 3},
        "o": {"oneOf": [{"type": "string"}]},
        "n": {"anyOf": [{"type": "string"}]},
        "l": {"allOf": [{"type": "string"}]},
        "r": {"$ref": "#/$defs/x"},
    }
    schema: dict[str, Any] = obj(**{k: {**v, "description": "D."} for k, v in typed.items()})
    schema["$defs"] = {"x": {"type": "string"}}
    assert lint(with_schema(schema)) == ()


def test_nested_object_and_array_item_properties_are_checked_with_dotted_paths() -> None:
    address = {"type": "object", "description": "Where.", "properties": {"zip": {}}}
    tags = {"type": "array", "description": "Tags.", "items": obj(name={"description": "N."})}
    found = lint(with_schema(obj(address=address, tags=tags)))
    assert [(f.code, f.location.param, f.location.pointer) for f in found] == [
        ("param.untyped", "address.zip", "/inputSchema/properties/address/properties/zip"),
        ("param.untyped", "tags[].name", "/inputSchema/properties/tags/items/properties/name"),
        (
            "param.missing_description",
            "address.zip",
            "/inputSchema/properties/address/properties/zip",
        ),
    ]


def test_a_true_property_schema_is_untyped_and_a_false_one_is_ignored() -> None:
    found = lint(with_schema(obj(anything=True, never=False)))
    assert [(f.code, f.location.param) for f in found] == [
        ("param.untyped", "anything"),
        ("param.missing_description", "anything"),
    ]


def test_a_property_without_description_is_reported_and_a_title_does_not_count() -> None:
    found = lint(
        with_schema(
            obj(a={"type": "number", "title": "A"}, b={"type": "number", "description": " "})
        )
    )
    assert [(f.code, f.location.param) for f in found] == [
        ("param.missing_description", "a"),
        ("param.missing_description", "b"),
    ]
    assert "unit/range" in found[0].hint


def test_a_description_on_the_ref_target_counts_in_defs_and_in_definitions() -> None:
    in_defs = {
        **obj(u={"$ref": "#/$defs/u"}),
        "$defs": {"u": {"type": "string", "description": "U."}},
    }
    in_definitions = {
        **obj(u={"$ref": "#/definitions/u"}),
        "$schema": DRAFT_07,
        "definitions": {"u": {"type": "string", "description": "U."}},
    }
    assert lint(with_schema(in_defs, "a"), with_schema(in_definitions, "b")) == ()


def test_a_ref_to_an_undescribed_or_missing_definition_is_undescribed() -> None:
    schema = {
        **obj(u={"$ref": "#/$defs/u"}, gone={"$ref": "#/$defs/gone"}),
        "$defs": {"u": {"type": "string"}},
    }
    found = of(lint(with_schema(schema)), "param.missing_description")
    assert [f.location.param for f in found] == ["gone", "u"]


def test_property_names_are_escaped_in_pointers() -> None:
    found = of(lint(with_schema(obj(**{"a/b~c": {}}))), "param.untyped")
    assert found[0].location.pointer == "/inputSchema/properties/a~1b~0c"
    assert found[0].location.param == "a/b~c"


# --------------------------------------------------------------------------- server.no_tools


def test_advertising_tools_but_listing_none_is_reported() -> None:
    assert codes(lint()) == ["server.no_tools"]
    assert lint(capabilities={}) == ()
    assert lint(capabilities={"resources": {}}) == ()


# --------------------------------------------------------------------------- malformed entries


def test_malformed_entries_are_linted_not_lost_and_named_by_listing_position() -> None:
    found = lint(
        "junk",
        {"description": "A nameless tool here.", "inputSchema": "x"},
        sound_tool(name=42),
        sound_tool("fine"),
    )
    malformed = of(found, "tool.malformed")
    assert [(f.location.tool, f.location.pointer) for f in malformed] == [
        ("#0", ""),
        ("#1", "/name"),
        ("#2", "/name"),
    ]
    assert ("tool.no_input_schema", "#1") in [(f.code, f.location.tool) for f in found]
    assert [f.location.tool for f in found] == ["#0", "#1", "#1", "#1", "#2"]


def test_a_non_object_entry_gets_only_the_malformed_finding() -> None:
    for entry in (None, 3, [1], "tool"):
        assert codes(lint(entry)) == ["tool.malformed"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["name", "type", "properties", "required", "$ref", "items", "x", "a"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)
tool_like = st.fixed_dictionaries(
    {},
    optional={
        "name": st.text(max_size=5) | json_values,
        "description": json_values,
        "inputSchema": json_values,
        "annotations": json_values,
        "outputSchema": json_values,
    },
)


def test_lint_does_not_raise_on_unhashable_required_entries() -> None:
    # Found by the property test below: `required: [[]]` made the contradiction rule raise.
    tool = {"name": "t", "inputSchema": {"properties": {}, "required": [[]]}}
    assert lint(tool) == lint(tool)


@settings(max_examples=150, deadline=None)
@given(st.lists(tool_like | json_values, max_size=4))
def test_lint_never_raises_and_is_deterministic_for_any_json(tools: list[Any]) -> None:
    first = lint(*tools)
    assert first == lint(*tools)
    assert all(f.code in LINT_RULES for f in first)


# --------------------------------------------------------------------------- order


def test_order_is_server_wide_then_tools_in_listing_order_then_rule_then_pointer() -> None:
    untidy = with_schema({"type": "object", "properties": {"b": {}, "a": {}}}, "z_tool")
    del untidy["annotations"]
    listing = (Finding("listing.loop", Severity.WARNING, "loop", Location(), "fix it"),)
    found = lint(untidy, sound_tool("z_tool"), sound_tool("aTool"), listing=listing)
    assert [(f.code, f.location.tool, f.location.param) for f in found] == [
        ("tool.duplicate_name", "z_tool", None),
        ("tool.unusual_name", None, None),
        ("tool.no_annotations", "z_tool", None),
        ("schema.no_required", "z_tool", None),
        ("param.untyped", "z_tool", "a"),
        ("param.untyped", "z_tool", "b"),
        ("param.missing_description", "z_tool", "a"),
        ("param.missing_description", "z_tool", "b"),
        ("listing.loop", None, None),
    ]


def test_array_indices_in_pointers_sort_numerically() -> None:
    entries = [{"type": "object", "properties": {"v": {}}} for _ in range(11)]
    point = {"type": "array", "description": "P.", "prefixItems": entries}
    found = of(lint(with_schema(obj(point=point))), "param.untyped")
    assert [f.location.param for f in found][:3] == ["point[0].v", "point[1].v", "point[2].v"]
    assert found[-1].location.param == "point[10].v"


def test_shuffling_property_order_does_not_change_the_findings() -> None:
    forward = {"type": "object", "properties": {"a": {}, "b": {"type": "string"}, "c": {}}}
    backward = {"properties": {"c": {}, "b": {"type": "string"}, "a": {}}, "type": "object"}
    assert lint(with_schema(forward)) == lint(with_schema(backward))


def test_listing_findings_are_appended_unchanged_after_the_lint_findings() -> None:
    listing = (
        Finding("listing.repeated_cursor", Severity.ERROR, "m1", Location(), "h1"),
        Finding("listing.garbage", Severity.WARNING, "m2", Location(pointer="/x"), "h2"),
    )
    found = lint(sound_tool(description="short"), listing=listing)
    assert found[-2:] == listing
    assert codes(found) == ["tool.thin_description", "listing.repeated_cursor", "listing.garbage"]


def test_the_lint_mapping_check_accepts_every_mapping_and_nothing_else() -> None:
    from types import MappingProxyType

    from mcprobe.core.lint.rules import MAPPING

    assert isinstance({}, MAPPING) and isinstance(MappingProxyType({"a": 1}), MAPPING)
    others: tuple[object, ...] = ([], "x", 1, None, True, ("a", 1))
    assert not any(isinstance(v, MAPPING) for v in others)
    # A listing of read-only mappings is walked like one of dicts.
    schema = {"type": "object", "properties": {"x": {}}, "required": []}
    proxied = {"type": "object", "properties": MappingProxyType({"x": MappingProxyType({})})}
    as_dicts = lint_server(snapshot(sound_tool(inputSchema=schema)))
    as_proxies = lint_server(
        snapshot(sound_tool(inputSchema=MappingProxyType({**proxied, "required": []})))
    )
    params = [f.code for f in as_dicts if f.code.startswith("param.")]
    assert params == ["param.untyped", "param.missing_description"]
    assert [f.code for f in as_proxies if f.code.startswith("param.")] == params


def test_a_name_listed_twice_counts_once_towards_its_naming_style() -> None:
    names = ["get_user", "get_user", "deleteItem", "fetchPage"]
    (mixed,) = of(lint(*(sound_tool(n) for n in names)), "tool.unusual_name")
    assert "2 camelCase" in mixed.message and "1 snake_case (`get_user`)" in mixed.message
