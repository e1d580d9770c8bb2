"""The JSON report and its published JSON Schema.

``render_json`` prints the ``ConformanceReport`` exactly as ``probe_report`` returns it
(camelCase, ``schemaVersion`` and ``mcprobeVersion`` first), two-space indented, keys in the
model's declared order (dicts that came from the target keep the order the target sent), so the
same report always renders to the same bytes. Output is ASCII (non-ASCII as ``\\uXXXX``): any
terminal or file encoding carries it, including lone surrogates a hostile target may send.

``report_schema_text`` is the JSON Schema of that document; ``scripts/gen-schema`` writes it to
``mcprobe/schemas/report.schema.json`` and a test keeps the committed file equal to it.
Pure: no I/O.
"""

from __future__ import annotations

import json
from typing import Any

from mcprobe.report.model import SCHEMA_VERSION, ConformanceReport
from mcprobe.report.render.json_text import dumps_indented

SCHEMA_ID = f"urn:mcprobe:report:{SCHEMA_VERSION}"
SCHEMA_PATH = "mcprobe/schemas/report.schema.json"


def report_to_jsonable(report: ConformanceReport) -> dict[str, Any]:
    """The report as plain JSON values, with the wire (camelCase) names."""
    data: dict[str, Any] = report.model_dump(mode="json", by_alias=True)
    return data


def render_json(report: ConformanceReport) -> str:
    """The report as a JSON document (two-space indent, trailing newline): what
    ``json.dumps(..., indent=2, ensure_ascii=True)`` writes, at C speed (``json_text``;
    ``model_dump(mode="json")`` gives plain JSON data with string keys)."""
    return dumps_indented(report_to_jsonable(report)) + "\n"


def report_json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of what ``render_json`` prints."""
    schema = ConformanceReport.model_json_schema(by_alias=True, mode="serialization")
    _require_every_property(schema)
    for definition in schema.get("$defs", {}).values():
        _require_every_property(definition)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
        "title": "mcprobe ConformanceReport",
        "description": (
            f"The JSON report of one mcprobe audit (schemaVersion {SCHEMA_VERSION}). "
            f"Generated from mcprobe.report.model by scripts/gen-schema; do not edit by hand."
        ),
    }


def _require_every_property(schema: dict[str, Any]) -> None:
    # ``render_json`` never omits a key (nulls are printed), so consumers may rely on every
    # property being present; say so in the schema instead of pydantic's "defaults optional".
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema["required"] = list(properties)


def report_schema_text() -> str:
    """``report_json_schema`` exactly as it is committed (sorted keys, two-space indent)."""
    return json.dumps(report_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
