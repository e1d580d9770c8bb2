"""The client capabilities mcprobe declares: the default, --client-capabilities, what reaches the
target's initialize, and what the report says."""

from __future__ import annotations

import io
import json
import sys

import pytest

from mcprobe.cli.commands import run
from mcprobe.core.client_capabilities import (
    answer_for,
    parse_client_capabilities,
    wire_capabilities,
)
from tests.support.paths import TARGETS

SERVER = TARGETS / "surface_server.py"


def test_a_comma_list_or_none_is_parsed_and_anything_else_is_refused() -> None:
    assert parse_client_capabilities("sampling,roots") == ("roots", "sampling")
    assert parse_client_capabilities("none") == ()
    with pytest.raises(ValueError, match="unknown client capability"):
        parse_client_capabilities("roots,telepathy")
    with pytest.raises(ValueError):
        parse_client_capabilities("")


def test_roots_is_an_empty_list_and_elicitation_is_declined() -> None:
    assert answer_for("roots/list") == {"roots": []}
    assert answer_for("elicitation/create") == {"action": "decline"}
    assert answer_for("sampling/createMessage") is None  # answered with an error
    assert set(wire_capabilities(["roots", "sampling"])) == {"roots", "sampling"}


def _audit(*options: str) -> tuple[int, dict[str, object], str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(
        ["audit", "--json", *options, "--", sys.executable, str(SERVER), "echo_caps"], out, err
    )
    return code, json.loads(out.getvalue()), err.getvalue()


def test_by_default_all_three_reach_initialize_and_the_report_names_them() -> None:
    code, report, _ = _audit()
    assert code == 0
    server = report["server"]
    assert isinstance(server, dict)
    assert json.loads(server["instructions"]) == {
        "elicitation": {"form": {}},
        "roots": {"listChanged": False},
        "sampling": {},
    }
    target = report["target"]
    assert isinstance(target, dict)
    assert [c.split()[0] for c in target["clientCapabilities"]] == [
        "roots",
        "elicitation",
        "sampling",
    ]
    assert "- mcprobe declared client capabilities: roots (answers roots/list" in str(
        report["markdown"]
    )


def test_none_declares_nothing_and_the_report_says_so() -> None:
    code, report, _ = _audit("--client-capabilities", "none")
    assert code == 0
    server = report["server"]
    assert isinstance(server, dict)
    assert json.loads(server["instructions"]) == {}
    assert "- mcprobe declared client capabilities: none" in str(report["markdown"])


def test_an_unknown_capability_is_a_one_line_usage_error() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", "--client-capabilities", "telepathy", "--", "true"], out, err)
    assert code == 1
    assert err.getvalue().count("\n") == 1
    assert "unknown client capability" in err.getvalue()
