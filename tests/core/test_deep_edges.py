"""The edge planner of deep fuzzing (``core/deep/edges.py``, issue 25 item 2): one field of a
working base changed at a time to a schema-valid edge value, ordered by yield, capped, seeded."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mcprobe.core.deep import edges as edges_module
from mcprobe.core.deep.edges import EDGE_CLASSES, MAX_COMBINATIONS, SchemaJudge, plan_edges
from mcprobe.core.deep.model import DeepPlan, Edge
from mcprobe.core.model import CaseSource
from mcprobe.core.schema.dialect import is_valid

USER = CaseSource.USER


def _tool(properties: dict[str, Any], **root: Any) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object", "properties": properties, **root}}


def _plan(tool: dict[str, Any], base: Any, **kw: Any) -> DeepPlan:
    kw.setdefault("seed", 0)
    kw.setdefault("per_tool", 10_000)
    return plan_edges(tool, base, USER, **kw)


def _by_field(plan: DeepPlan) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in plan.edges:
        out.setdefault(e.field, []).append(e.edge)
    return out


RICH = _tool(
    {
        "text": {"type": "string"},
        "count": {"type": "number"},
        "ratio": {"type": "number"},
        "n": {"type": "integer"},
        "items": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "obj": {"type": "object"},
        "url": {"type": "string", "format": "uri"},
        "flag": {"type": "boolean"},
        "opt": {"type": "string"},
    },
    required=["text"],
)
RICH_BASE = {
    "text": "hello",
    "count": 3,
    "ratio": 2,
    "n": 4,
    "items": ["a"],
    "obj": {"k": 1},
    "url": "https://example.com/x",
    "flag": True,
}
_STRINGS = {"text", "opt"}
_NUMBERS = {"count", "ratio", "n"}
APPLIES: dict[str, set[str]] = {
    "emptyString": _STRINGS,
    "jsonLooking": _STRINGS,
    "nul": _STRINGS,
    "c0Control": _STRINGS,
    "protoKey": _STRINGS,
    "nonAscii": _STRINGS,
    "whitespace": _STRINGS,
    "fraction": {"count"},
    "zero": _NUMBERS,
    "minusOne": _NUMBERS,
    "int32": _NUMBERS,
    "int53": _NUMBERS,
    "negativeZero": _NUMBERS,
    "emptyArray": {"items"},
    "oneElement": {"items"},
    "maxItems": {"items"},
    "emptyObject": {"obj"},
    "nested": {"obj"},
    "badHostname": {"url"},
    "optionalPresent": {"opt"},
}


def test_the_applicability_table_of_this_test_names_every_edge_class() -> None:
    assert sorted(APPLIES) == sorted(spec.key for spec in EDGE_CLASSES)
    assert len({spec.key for spec in EDGE_CLASSES}) == len(EDGE_CLASSES)


@pytest.mark.parametrize("key", [spec.key for spec in EDGE_CLASSES])
def test_each_edge_class_appears_on_a_field_it_applies_to_and_never_on_one_it_does_not(
    key: str,
) -> None:
    plan = _plan(RICH, RICH_BASE)
    fields = {e.field for e in plan.edges if e.edge == key}
    assert fields, f"{key} on no field"
    assert fields <= APPLIES[key]


def test_the_edge_classes_by_name_on_their_fields() -> None:
    found = _by_field(_plan(RICH, RICH_BASE))
    assert found["text"][:4] == ["emptyString", "jsonLooking", "nul", "c0Control"]
    assert "fraction" in found["count"] and "fraction" not in found["ratio"]
    assert "fraction" not in found["n"]  # an integer field allows no fraction
    assert found["url"] == ["badHostname"]
    assert "flag" not in found  # a present boolean has no edge class
    assert found["opt"][-1] == "optionalPresent"
    assert {"emptyArray", "oneElement", "maxItems"} <= set(found["items"])
    assert {"emptyObject", "nested"} <= set(found["obj"])


def test_edge_values_are_the_documented_ones() -> None:
    plan = _plan(RICH, RICH_BASE)
    value = {(e.field, e.edge): e.value for e in plan.edges}
    assert value["text", "emptyString"] == ""
    assert value["text", "jsonLooking"] in ("[]", "{}", "null")
    assert value["text", "nul"] == "hello\x00"
    assert value["text", "protoKey"] == "__proto__"
    assert value["n", "int32"] == 2**31 and value["n", "int53"] == 2**53 + 1
    assert json.dumps(value["n", "negativeZero"]) == "-0.0"
    assert value["count", "fraction"] in (0.5, 0.25, 0.1)
    assert len(value["items", "maxItems"]) == 3
    assert value["items", "oneElement"] == ["a"]
    assert str(value["url", "badHostname"]).startswith("https://")
    assert str(value["url", "badHostname"]).endswith("/x")


def test_every_edge_is_the_base_with_one_field_changed_and_labelled_by_field_and_edge() -> None:
    plan = _plan(RICH, RICH_BASE)
    singles = [e for e in plan.edges if "+" not in e.field]
    assert singles and len({e.label for e in plan.edges}) == len(plan.edges)
    for e in singles:
        assert e.label == f"deep:{e.field}:{e.edge}" and e.tool == "t"
        assert isinstance(e.arguments, dict)
        assert {k: v for k, v in e.arguments.items() if k != e.field} == {
            k: v for k, v in RICH_BASE.items() if k != e.field
        }
        assert e.arguments[e.field] == e.value


def test_every_edge_validates_against_the_declared_schema() -> None:
    plan = _plan(RICH, RICH_BASE)
    assert all(is_valid(RICH["inputSchema"], e.arguments) for e in plan.edges)


def test_a_uri_field_gets_only_url_shaped_edges_and_a_date_field_none() -> None:
    tool = _tool(
        {"site": {"type": "string", "format": "uri"}, "day": {"type": "string", "format": "date"}}
    )
    plan = _plan(tool, {"site": "https://example.com/", "day": "2024-01-15"})
    assert {e.edge for e in plan.edges if e.field == "site"} == {"badHostname"}
    assert all("://" in str(e.value) for e in plan.edges if e.field == "site")
    assert not [e for e in plan.edges if e.field == "day"]


def test_a_hostname_field_gets_malformed_but_well_typed_hostnames() -> None:
    tool = _tool({"host": {"type": "string"}})
    plan = _plan(tool, {"host": "example.com"})
    values = [e.value for e in plan.edges if e.edge == "badHostname"]
    assert values and values[0] in ("a..b", "a" * 64 + ".example.com", "xn--80ak6aa92e.com")


def test_additional_properties_false_is_respected_and_the_refused_nesting_is_counted() -> None:
    tool = _tool(
        {
            "obj": {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "additionalProperties": False,
            }
        },
        additionalProperties=False,
    )
    plan = _plan(tool, {"obj": {"a": 1}})
    assert "nested" not in {e.edge for e in plan.edges if e.field == "obj"}
    assert plan.dropped >= 1
    for e in plan.edges:
        assert isinstance(e.arguments, dict) and set(e.arguments) <= {"obj"}
        assert set(e.arguments["obj"]) <= {"a"}


def test_nested_object_properties_present_in_the_base_get_dotted_edges() -> None:
    tool = _tool({"opts": {"type": "object", "properties": {"limit": {"type": "integer"}}}})
    plan = _plan(tool, {"opts": {"limit": 5}})
    zero = next(e for e in plan.edges if e.label == "deep:opts.limit:zero")
    assert zero.arguments == {"opts": {"limit": 0}} and zero.value == 0


def test_enum_and_const_fields_get_no_value_outside_them() -> None:
    tool = _tool(
        {
            "mode": {"type": "string", "enum": ["fast", ""]},
            "fixed": {"const": "x"},
            "pick": {"enum": ["a", "b"]},
        }
    )
    plan = _plan(tool, {"mode": "fast", "fixed": "x", "pick": "a"})
    assert [(e.field, e.value) for e in plan.edges if e.field == "mode"] == [("mode", "")]
    assert not [e for e in plan.edges if e.field in ("fixed", "pick")]
    assert plan.dropped == 0  # members only: nothing was proposed for the schema to refuse


def test_an_edge_the_bounds_refuse_is_dropped_and_counted() -> None:
    tool = _tool(
        {
            "name": {"type": "string", "minLength": 1},
            "n": {"type": "integer", "minimum": 1, "maximum": 100},
        }
    )
    plan = _plan(tool, {"name": "ab", "n": 5})
    kinds = {(e.field, e.edge) for e in plan.edges}
    assert ("name", "emptyString") not in kinds and ("name", "nul") in kinds
    assert not [e for e in plan.edges if e.field == "n"]
    # emptyString; zero, minusOne, int32, int53, negativeZero
    assert plan.dropped == 6
    assert all(is_valid(tool["inputSchema"], e.arguments) for e in plan.edges)


def test_path_like_fields_are_skipped_without_path_edges_and_named_in_the_note() -> None:
    tool = _tool(
        {"path": {"type": "string"}, "output_file": {"type": "string"}, "q": {"type": "string"}}
    )
    base = {"path": "a.txt", "output_file": "b.txt", "q": "x"}
    plan = _plan(tool, base, path_edges=False)
    assert {e.field for e in plan.edges} == {"q"}
    assert plan.note is not None and "path, output_file" in plan.note
    with_paths = _plan(tool, base, path_edges=True)
    assert {"path", "output_file", "q"} <= {e.field for e in with_paths.edges}


def test_the_per_tool_cap_keeps_breadth_every_field_its_best_edge_first() -> None:
    tool = _tool({f"s{i}": {"type": "string"} for i in range(5)})
    base = {f"s{i}": "v" for i in range(5)}
    plan = _plan(tool, base, per_tool=12, per_field=3)
    assert len(plan.edges) == 12
    assert [e.label for e in plan.edges[:5]] == [f"deep:s{i}:emptyString" for i in range(5)]
    assert [e.edge for e in plan.edges[5:10]] == ["jsonLooking"] * 5
    counts = _by_field(plan)
    assert all(len(v) <= 3 for v in counts.values())


def test_combinations_of_two_fields_at_their_first_edges_follow_when_the_cap_allows() -> None:
    tool = _tool({"a": {"type": "string"}, "b": {"type": "integer"}})
    plan = _plan(tool, {"a": "x", "b": 2})
    combos = [e for e in plan.edges if "+" in e.field]
    assert [e.label for e in combos] == ["deep:a+b:emptyString+zero"]
    assert combos[0].arguments == {"a": "", "b": 0} and combos[0].value == ["", 0]
    assert len(combos) <= MAX_COMBINATIONS
    singles = len(plan.edges) - 1
    capped = _plan(tool, {"a": "x", "b": 2}, per_tool=singles)
    assert not [e for e in capped.edges if "+" in e.field]


def test_the_same_seed_gives_the_same_plan_byte_for_byte_and_seeds_can_differ() -> None:
    def dump(p: DeepPlan) -> str:
        return json.dumps([[e.label, e.value, e.arguments] for e in p.edges])

    first = _plan(RICH, RICH_BASE, seed=7)
    assert dump(first) == dump(_plan(RICH, RICH_BASE, seed=7)) and first == _plan(
        RICH, RICH_BASE, seed=7
    )
    others = {dump(_plan(RICH, RICH_BASE, seed=s)) for s in range(8)}
    assert len(others) > 1
    c0 = {
        next(e.value for e in _plan(RICH, RICH_BASE, seed=s).edges if e.edge == "c0Control")
        for s in range(8)
    }
    assert len(c0) > 1 and all(str(v).startswith("hello") for v in c0)


def test_planning_never_mutates_the_base_or_the_tool_and_edges_share_no_objects() -> None:
    tool, base = copy.deepcopy(RICH), copy.deepcopy(RICH_BASE)
    plan = _plan(tool, base)
    assert tool == RICH and base == RICH_BASE
    for e in plan.edges:
        assert e.arguments is not base
        if isinstance(e.arguments, dict) and isinstance(base.get("obj"), dict):
            assert e.arguments.get("obj") is not base["obj"]
    edge = next(e for e in plan.edges if e.edge == "oneElement")
    assert isinstance(edge.value, list) and isinstance(edge.arguments, dict)
    edge.value.append("z")
    assert edge.arguments["items"] == ["a"] and base["items"] == ["a"]


def test_a_tool_without_properties_gets_no_edges_and_a_note() -> None:
    plan = plan_edges({"name": "t", "inputSchema": {"type": "object"}}, {}, USER, seed=0)
    assert plan.edges == () and plan.note is not None and "no properties" in plan.note


def test_no_working_base_or_an_invalid_base_gives_no_edges_and_a_note() -> None:
    tool = _tool({"a": {"type": "integer"}})
    for base in (None, {"a": "not a number"}):
        plan = plan_edges(tool, base, USER, seed=0)
        assert plan.edges == () and plan.note and plan.base is base


def test_refs_resolve_as_the_case_generator_does_and_an_unresolved_one_is_skipped() -> None:
    tool = _tool(
        {"n": {"$ref": "#/$defs/count"}, "gone": {"$ref": "#/$defs/missing"}},
        **{"$defs": {"count": {"type": "integer", "minimum": 0}}},
    )
    plan = _plan(tool, {"n": 1})
    edges = {e.edge for e in plan.edges if e.field == "n"}
    assert "zero" in edges and "minusOne" not in edges
    assert not [e for e in plan.edges if e.field == "gone"]
    assert plan.note is not None and "#/$defs/missing" in plan.note


def test_a_hostile_tool_definition_gives_a_note_not_an_exception() -> None:
    for tool in (
        "nope",
        {"name": "t", "inputSchema": []},
        {"name": "t", "inputSchema": {"type": 5}},
    ):
        plan = plan_edges(tool, {}, USER, seed=0)
        assert plan.edges == () and plan.note


def _checks(fields: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    counts = {"accepts": 0, "whole": 0}
    accepts, whole = SchemaJudge.accepts, SchemaJudge.whole

    def counted_accepts(self: SchemaJudge, schema: Any, value: Any) -> bool:
        counts["accepts"] += 1
        return accepts(self, schema, value)

    def counted_whole(self: SchemaJudge, arguments: Any) -> bool:
        counts["whole"] += 1
        return whole(self, arguments)

    monkeypatch.setattr(SchemaJudge, "accepts", counted_accepts)
    monkeypatch.setattr(SchemaJudge, "whole", counted_whole)
    props: dict[str, Any] = {}
    base: dict[str, Any] = {}
    for i in range(fields):
        props[f"s{i}"] = {"type": "string", "minLength": 1}
        props[f"n{i}"] = {"type": "integer", "maximum": 10}
        props[f"o{i}"] = {"type": "array", "items": {"type": "string"}}
        base[f"s{i}"], base[f"n{i}"] = "x", 1
    plan = plan_edges(_tool(props), base, USER, seed=0, per_tool=10_000)
    assert len([e for e in plan.edges if "+" not in e.field]) > fields
    return counts["accepts"], counts["whole"]


def test_validator_work_per_field_stays_constant_whatever_the_number_of_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small_accepts, small_whole = _checks(5, monkeypatch)
    large_accepts, large_whole = _checks(20, monkeypatch)
    # the base once, and each combination, validated whole; every single edge by its field
    assert small_whole == large_whole <= 1 + MAX_COMBINATIONS
    per_small = (small_accepts - small_whole) / 5
    per_large = (large_accepts - large_whole) / 20
    assert per_small == per_large


def test_the_registry_records_are_frozen_and_name_what_they_apply_to() -> None:
    spec = EDGE_CLASSES[0]
    assert spec.key == "emptyString" and spec.applies and spec.values
    with pytest.raises(AttributeError):
        spec.key = "other"  # type: ignore[misc]
    assert isinstance(_plan(RICH, RICH_BASE).edges[0], Edge)
    assert edges_module.is_path_like("repo_path") and not edges_module.is_path_like("query")


def test_a_repo_or_database_name_is_path_like_only_when_its_description_says_so() -> None:
    assert not edges_module.is_path_like("repo", "Repository name, e.g. octocat/hello")
    assert edges_module.is_path_like("repo", "Path to the git repository")
    assert not edges_module.is_path_like("database", "Database to query")
    tool = _tool({"repo": {"type": "string", "description": "the repository name"}})
    plan = _plan(tool, {"repo": "octocat/hello"}, path_edges=False)
    assert "repo" in {e.field for e in plan.edges}


def test_the_example_in_the_docs_is_what_the_default_seed_plans() -> None:
    tool = _tool({"q": {"type": "string"}})
    plan = plan_edges(tool, {"q": "hello"}, USER, seed=0)
    assert [(e.label, e.arguments) for e in plan.edges[:3]] == [
        ("deep:q:emptyString", {"q": ""}),
        ("deep:q:jsonLooking", {"q": "{}"}),
        ("deep:q:nul", {"q": "hello\x00"}),
    ]


def test_a_root_keyword_beside_properties_is_still_applied_to_every_edge() -> None:
    # ``not`` at the root forbids a == "": properties["a"] alone would accept it
    tool = _tool(
        {"a": {"type": "string"}},
        **{"not": {"properties": {"a": {"const": ""}}, "required": ["a"]}},
    )
    plan = _plan(tool, {"a": "x"})
    assert "emptyString" not in {e.edge for e in plan.edges} and plan.dropped >= 1
    assert all(is_valid(tool["inputSchema"], e.arguments) for e in plan.edges)


def test_a_draft_04_schema_is_judged_in_its_own_dialect() -> None:
    tool = _tool(
        {"n": {"type": "integer"}}, **{"$schema": "http://json-schema.org/draft-04/schema#"}
    )
    plan = _plan(tool, {"n": 1})
    edges = {e.edge for e in plan.edges}
    assert {"zero", "int53"} <= edges
    assert "negativeZero" not in edges  # draft-04: -0.0 is a number, not an integer


SEQUENTIAL = _tool(
    {
        "thought": {"type": "string"},
        "thoughtNumber": {"type": "integer", "minimum": 1},
        "isRevision": {"type": "boolean"},
        "branchFromThought": {"type": "integer", "minimum": 1},
        "branchId": {"type": "string"},
    },
    required=["thought", "thoughtNumber"],
)


def test_an_absent_optional_fields_edges_carry_its_companions_named_with_the_same_word() -> None:
    # server-sequential-thinking records a branch only `if (branchFromThought && branchId)`:
    # `branchId: "__proto__"` alone never reaches `this.branches[branchId].push`
    base = {"thought": "a", "thoughtNumber": 1}
    plan = _plan(SEQUENTIAL, base)
    proto = next(e for e in plan.edges if e.label == "deep:branchId:protoKey")
    assert proto.arguments == {**base, "branchFromThought": 1, "branchId": "__proto__"}
    assert all(
        isinstance(e.arguments, dict) and "branchFromThought" in e.arguments
        for e in plan.edges
        if e.field == "branchId"
    )
    zero = [e for e in plan.edges if e.field == "isRevision"]
    assert zero and all(
        isinstance(e.arguments, dict) and set(e.arguments) == {*base, "isRevision"} for e in zero
    )
    assert all(is_valid(SEQUENTIAL["inputSchema"], e.arguments) for e in plan.edges)


def test_a_field_present_in_the_base_or_required_has_no_companions() -> None:
    base = {"thought": "a", "thoughtNumber": 1, "branchFromThought": 2}
    plan = _plan(SEQUENTIAL, base)
    for e in plan.edges:
        if e.field == "branchId":
            assert isinstance(e.arguments, dict) and e.arguments["branchFromThought"] == 2
    tool = _tool(
        {"pageSize": {"type": "integer"}, "pageToken": {"type": "string"}},
        required=["pageSize"],
    )
    plan = _plan(tool, {"pageSize": 5})
    assert all(
        isinstance(e.arguments, dict) and e.arguments.get("pageSize") in (5, e.value)
        for e in plan.edges
        if e.field == "pageToken"
    )
