"""Realistic MCP tool input schemas, modelled on public servers (filesystem, git, GitHub, search,
time, fetch, databases, memory, browser, chat), plus the awkward shapes real servers emit
(pydantic ``anyOf`` nullables, draft-07 ``definitions``, 2020-12 ``$defs``/``prefixItems``,
combinators, formats) and a few hostile or broken ones.

Each entry says whether a valid argument object is expected to be constructible.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


@dataclass(frozen=True)
class CorpusTool:
    tool: dict[str, Any]
    valid_expected: bool = True

    @property
    def name(self) -> str:
        return str(self.tool["name"])


def _s(description: str = "", **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description or "a string", **extra}


def _tool(name: str, props: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    schema.update(extra)
    return {"name": name, "description": f"The {name} tool.", "inputSchema": schema}


REPO = {"owner": _s("repository owner"), "repo": _s("repository name")}

CORPUS: tuple[CorpusTool, ...] = (
    # ----------------------------------------------------------------- filesystem
    CorpusTool(_tool("read_file", {"path": _s("file path")}, ["path"])),
    CorpusTool(
        _tool(
            "read_multiple_files",
            {"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
            ["paths"],
        )
    ),
    CorpusTool(_tool("write_file", {"path": _s(), "content": _s()}, ["path", "content"])),
    CorpusTool(
        _tool(
            "edit_file",
            {
                "path": _s(),
                "edits": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"oldText": _s(), "newText": _s()},
                        "required": ["oldText", "newText"],
                        "additionalProperties": False,
                    },
                },
                "dryRun": {"type": "boolean", "default": False},
            },
            ["path", "edits"],
            additionalProperties=False,
        )
    ),
    CorpusTool(_tool("list_directory", {"path": _s()}, ["path"], additionalProperties=False)),
    CorpusTool(
        _tool(
            "search_files",
            {
                "path": _s(),
                "pattern": _s(),
                "excludePatterns": {"type": "array", "items": {"type": "string"}, "default": []},
            },
            ["path", "pattern"],
        )
    ),
    CorpusTool(
        _tool("move_file", {"source": _s(), "destination": _s()}, ["source", "destination"])
    ),
    # ----------------------------------------------------------------- git
    CorpusTool(_tool("git_status", {"repo_path": _s()}, ["repo_path"])),
    CorpusTool(
        _tool(
            "git_log",
            {"repo_path": _s(), "max_count": {"type": "integer", "default": 10, "minimum": 1}},
            ["repo_path"],
        )
    ),
    CorpusTool(
        _tool(
            "git_diff",
            {"repo_path": _s(), "target": _s(), "context_lines": {"type": "integer", "default": 3}},
            ["repo_path", "target"],
        )
    ),
    CorpusTool(
        _tool(
            "git_commit", {"repo_path": _s(), "message": _s(minLength=1)}, ["repo_path", "message"]
        )
    ),
    CorpusTool(
        _tool(
            "git_create_branch",
            {
                "repo_path": _s(),
                "branch_name": _s(pattern=r"^[A-Za-z0-9._/-]+$", maxLength=100),
                "base_branch": {"type": ["string", "null"], "default": None},
            },
            ["repo_path", "branch_name"],
        )
    ),
    # ----------------------------------------------------------------- github
    CorpusTool(
        _tool(
            "create_issue",
            {
                **REPO,
                "title": _s(minLength=1, maxLength=256),
                "body": _s(),
                "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "assignees": {"type": "array", "items": {"type": "string"}},
                "milestone": {"type": "integer", "minimum": 1},
            },
            ["owner", "repo", "title"],
        )
    ),
    CorpusTool(
        _tool(
            "list_issues",
            {
                **REPO,
                "state": {"type": "string", "enum": ["open", "closed", "all"]},
                "sort": {"type": "string", "enum": ["created", "updated", "comments"]},
                "direction": {"type": "string", "enum": ["asc", "desc"], "default": "desc"},
                "since": _s("ISO 8601 timestamp", format="date-time"),
                "page": {"type": "number", "minimum": 1},
                "perPage": {"type": "number", "minimum": 1, "maximum": 100},
            },
            ["owner", "repo"],
            additionalProperties=False,
        )
    ),
    CorpusTool(
        _tool(
            "search_repositories",
            {
                "query": _s(minLength=1),
                "page": {"type": "integer", "minimum": 1, "default": 1},
                "perPage": {"type": "integer", "minimum": 1, "maximum": 100, "default": 30},
            },
            ["query"],
        )
    ),
    CorpusTool(
        _tool(
            "get_file_contents",
            {**REPO, "path": _s(), "branch": _s(pattern=r"^[^\s~^:?*\[\\]+$")},
            ["owner", "repo", "path"],
        )
    ),
    CorpusTool(
        _tool(
            "create_pull_request",
            {
                **REPO,
                "title": _s(),
                "head": _s(),
                "base": _s(),
                "body": _s(),
                "draft": {"type": "boolean"},
                "maintainer_can_modify": {"type": "boolean"},
            },
            ["owner", "repo", "title", "head", "base"],
        )
    ),
    CorpusTool(
        _tool(
            "merge_pull_request",
            {
                **REPO,
                "pull_number": {"type": "integer", "exclusiveMinimum": 0},
                "merge_method": {"type": "string", "enum": ["merge", "squash", "rebase"]},
                "commit_title": _s(maxLength=72),
            },
            ["owner", "repo", "pull_number"],
        )
    ),
    # ----------------------------------------------------------------- search / fetch / time
    CorpusTool(
        _tool(
            "brave_web_search",
            {
                "query": _s(maxLength=400),
                "count": {"type": "number", "minimum": 1, "maximum": 20, "default": 10},
                "offset": {"type": "number", "minimum": 0, "maximum": 9, "default": 0},
            },
            ["query"],
        )
    ),
    CorpusTool(_tool("get_current_time", {"timezone": _s("IANA timezone name")}, ["timezone"])),
    CorpusTool(
        _tool(
            "convert_time",
            {
                "source_timezone": _s(),
                "time": _s("HH:MM 24-hour", pattern=r"^([01]\d|2[0-3]):[0-5]\d$"),
                "target_timezone": _s(),
            },
            ["source_timezone", "time", "target_timezone"],
        )
    ),
    CorpusTool(
        _tool(
            "fetch",
            {
                "url": _s(format="uri", minLength=1),
                "max_length": {
                    "type": "integer",
                    "exclusiveMinimum": 0,
                    "exclusiveMaximum": 1000000,
                    "default": 5000,
                },
                "start_index": {"type": "integer", "minimum": 0, "default": 0},
                "raw": {"type": "boolean", "default": False},
            },
            ["url"],
        )
    ),
    # ----------------------------------------------------------------- databases
    CorpusTool(_tool("read_query", {"query": _s("SELECT statement")}, ["query"])),
    CorpusTool(_tool("query", {"sql": _s()}, ["sql"], additionalProperties=False)),
    CorpusTool(
        _tool(
            "describe_table",
            {"table_name": _s(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", maxLength=63)},
            ["table_name"],
        )
    ),
    CorpusTool(
        _tool(
            "insert_rows",
            {
                "table": _s(),
                "rows": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 500,
                    "items": {"type": "object", "minProperties": 1},
                },
            },
            ["table", "rows"],
        )
    ),
    # ----------------------------------------------------------------- memory / browser / chat
    CorpusTool(
        _tool(
            "create_entities",
            {
                "entities": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": _s(),
                            "entityType": _s(),
                            "observations": {"type": "array", "items": {"type": "string"}},
                        },
                        "required": ["name", "entityType", "observations"],
                    },
                    "minItems": 1,
                }
            },
            ["entities"],
        )
    ),
    CorpusTool(
        _tool(
            "puppeteer_screenshot",
            {
                "name": _s(),
                "selector": _s(),
                "width": {"type": "number", "default": 800, "minimum": 1},
                "height": {"type": "number", "default": 600, "minimum": 1},
            },
            ["name"],
        )
    ),
    CorpusTool(
        _tool(
            "slack_post_message",
            {"channel_id": _s(pattern=r"^[CDG][A-Z0-9]{8,}$"), "text": _s(minLength=1)},
            ["channel_id", "text"],
        )
    ),
    CorpusTool(
        _tool(
            "generate_image",
            {"prompt": _s(), "model": {"type": "string", "enum": ["5", "6", "7"], "default": "5"}},
            ["prompt"],
        )
    ),
    # ----------------------------------------------------------------- shapes
    CorpusTool(_tool("all_optional", {"verbose": {"type": "boolean"}, "limit": {}}, [])),
    CorpusTool({"name": "no_properties", "inputSchema": {"type": "object"}}),
    CorpusTool(
        {
            "name": "closed_no_properties",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        }
    ),
    CorpusTool({"name": "no_input_schema", "description": "Takes nothing."}),
    CorpusTool(
        {
            "name": "draft07_definitions",
            "inputSchema": {
                "$schema": DRAFT_07,
                "type": "object",
                "definitions": {
                    "Filter": {
                        "type": "object",
                        "properties": {
                            "field": {"type": "string"},
                            "op": {"enum": ["eq", "lt", "gt"]},
                            "value": {"type": ["string", "number"]},
                        },
                        "required": ["field", "op", "value"],
                    }
                },
                "properties": {
                    "filter": {"$ref": "#/definitions/Filter"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                },
                "required": ["filter"],
                "additionalProperties": False,
            },
        }
    ),
    CorpusTool(
        {
            "name": "coordinates_2020",
            "inputSchema": {
                "type": "object",
                "$defs": {
                    "LatLon": {
                        "type": "array",
                        "prefixItems": [
                            {"type": "number", "minimum": -90, "maximum": 90},
                            {"type": "number", "minimum": -180, "maximum": 180},
                        ],
                        "minItems": 2,
                        "items": False,
                    }
                },
                "properties": {
                    "point": {"$ref": "#/$defs/LatLon"},
                    "radius_km": {"type": "number"},
                },
                "required": ["point"],
            },
        }
    ),
    CorpusTool(
        {
            "name": "pydantic_style",
            "inputSchema": {
                "type": "object",
                "title": "search_notesArguments",
                "$defs": {
                    "Priority": {"type": "string", "enum": ["low", "normal", "high"]},
                },
                "properties": {
                    "query": {"title": "Query", "type": "string"},
                    "priority": {"$ref": "#/$defs/Priority"},
                    "tag": {
                        "anyOf": [{"type": "string"}, {"type": "null"}],
                        "default": None,
                        "title": "Tag",
                    },
                    "limit": {
                        "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                        "title": "Limit",
                    },
                },
                "required": ["query", "priority", "limit"],
            },
        }
    ),
    CorpusTool(
        _tool(
            "discriminated_action",
            {
                "action": {
                    "oneOf": [
                        {
                            "type": "object",
                            "properties": {"kind": {"const": "move"}, "to": _s()},
                            "required": ["kind", "to"],
                        },
                        {
                            "type": "object",
                            "properties": {"kind": {"const": "delete"}},
                            "required": ["kind"],
                        },
                    ]
                }
            },
            ["action"],
        )
    ),
    CorpusTool(
        {
            "name": "allof_merge",
            "inputSchema": {
                "allOf": [
                    {
                        "type": "object",
                        "properties": {"id": {"type": "string"}},
                        "required": ["id"],
                    },
                    {"properties": {"rev": {"type": "integer", "minimum": 0}}, "required": ["rev"]},
                ],
                "unevaluatedProperties": False,
            },
        }
    ),
    CorpusTool(
        _tool(
            "if_then_else_source",
            {"mode": {"enum": ["file", "url"]}, "path": _s(), "url": _s(format="uri")},
            ["mode"],
            **{
                "if": {"properties": {"mode": {"const": "file"}}},
                "then": {"required": ["path"]},
                "else": {"required": ["url"]},
            },
        )
    ),
    CorpusTool(
        _tool(
            "login",
            {"username": _s(), "password": _s(minLength=8)},
            ["username"],
            dependentRequired={"username": ["password"]},
        )
    ),
    CorpusTool(
        _tool(
            "filter_records",
            {"filters": {"type": "object", "minProperties": 1, "additionalProperties": _s()}},
            ["filters"],
        )
    ),
    CorpusTool(
        _tool(
            "tag_items",
            {
                "tags": {
                    "type": "array",
                    "items": {"enum": ["red", "green", "blue"]},
                    "minItems": 2,
                    "uniqueItems": True,
                }
            },
            ["tags"],
        )
    ),
    CorpusTool(
        _tool(
            "deploy",
            {
                "branches": {
                    "type": "array",
                    "items": {"type": "string"},
                    "contains": {"const": "main"},
                }
            },
            ["branches"],
        )
    ),
    CorpusTool(
        _tool(
            "network_probe",
            {
                "host": _s(format="hostname"),
                "ip4": _s(format="ipv4"),
                "ip6": _s(format="ipv6"),
                "request_id": _s(format="uuid"),
                "notify": _s(format="email"),
                "on": _s(format="date"),
            },
            ["host", "ip4", "ip6", "request_id", "notify", "on"],
        )
    ),
    CorpusTool(
        _tool(
            "openapi_nullable",
            {"note": {"type": "string", "nullable": True}, "count": {"type": "integer"}},
            ["note", "count"],
        )
    ),
    CorpusTool(
        _tool(
            "transfer",
            {
                "amount": {"type": "number", "multipleOf": 0.01, "exclusiveMinimum": 0},
                "currency": _s(pattern="^[A-Z]{3}$", examples=["EUR"]),
                "memo": {"type": ["string", "null"], "maxLength": 140},
            },
            ["amount", "currency"],
        )
    ),
    CorpusTool(
        _tool(
            "id_or_name",
            {"target": {"type": ["integer", "string"], "minimum": 1, "minLength": 1}},
            ["target"],
        )
    ),
    CorpusTool(
        {
            "name": "tree_optional_recursion",
            "inputSchema": {
                "type": "object",
                "$defs": {
                    "Node": {
                        "type": "object",
                        "properties": {
                            "label": _s(),
                            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                        },
                        "required": ["label"],
                    }
                },
                "properties": {"root": {"$ref": "#/$defs/Node"}},
                "required": ["root"],
            },
        }
    ),
    # ----------------------------------------------------------------- not constructible
    CorpusTool(
        _tool(
            "contradictory_bounds", {"n": {"type": "integer", "minimum": 10, "maximum": 5}}, ["n"]
        ),
        valid_expected=False,
    ),
    CorpusTool(
        _tool("huge_min_length", {"blob": _s(minLength=10**9)}, ["blob"]),
        valid_expected=False,
    ),
    CorpusTool(
        {
            "name": "required_cycle",
            "inputSchema": {
                "type": "object",
                "$defs": {
                    "L": {
                        "type": "object",
                        "properties": {"next": {"$ref": "#/$defs/L"}},
                        "required": ["next"],
                    }
                },
                "properties": {"head": {"$ref": "#/$defs/L"}},
                "required": ["head"],
            },
        },
        valid_expected=False,
    ),
    CorpusTool(
        _tool("root_is_string", {}, [], type="string"),
        valid_expected=False,
    ),
    CorpusTool(
        {
            "name": "invalid_schema",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "strin"}}},
        },
        valid_expected=False,
    ),
)
