"""The SDK's package ``__init__`` (its whole client and server) is not loaded by an audit of a
stdio target, and loads as before for anybody who asks the ``mcp`` package for a name
(issue 21: start-up is part of every audit's wall time)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.paths import CLI_TARGET, REPO_ROOT

PY = sys.executable

_LOADED = (
    "import json, sys\n"
    "from mcprobe.client.sdk_init import package_init_ran\n"
    "print(json.dumps({'init': package_init_ran(), 'heavy': sorted(m for m in sys.modules"
    " if m in ('mcp.client', 'mcp.server', 'starlette', 'uvicorn', 'httpx2'))}))\n"
)


def _run(code: str) -> dict[str, object]:
    out = subprocess.run(
        [PY, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT, timeout=120
    )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_a_whole_stdio_audit_never_runs_the_sdk_package_init_nor_imports_its_client_or_server() -> (
    None
):
    code = (
        "import mcprobe\n"
        f"r = mcprobe.audit_stdio_sync({PY!r}, [{str(CLI_TARGET)!r}], fuzz=True, tools=['echo'])\n"
        "assert r.fuzz, 'the audit called no tool'\n" + _LOADED
    )
    assert _run(code) == {"init": False, "heavy": []}


def test_the_client_imports_only_the_sdk_pieces_it_uses() -> None:
    code = "import mcprobe.engine.audit, mcprobe.client.connection\n" + _LOADED
    assert _run(code) == {"init": False, "heavy": []}


def test_a_name_of_the_sdk_package_still_loads_the_whole_sdk_on_first_use() -> None:
    code = (
        "import mcprobe.client.connection, mcp\n"
        "from mcp import ClientSession\n"
        "from mcp.client.session import ClientSession as Direct\n"
        "assert ClientSession is Direct and mcp.Client is not None\n"
        "assert 'ClientSession' in mcp.__all__\n"
        "try:\n    mcp.no_such_name\n"
        "except AttributeError as exc:\n    assert 'no_such_name' in str(exc)\n"
        "else:\n    raise SystemExit('no AttributeError')\n" + _LOADED
    )
    result = _run(code)
    assert result["init"] is True
    assert "mcp.client" in result["heavy"] and "mcp.server" in result["heavy"]  # type: ignore[operator]


def test_an_sdk_imported_before_mcprobe_is_left_as_it_is() -> None:
    code = (
        "import mcp\nfrom mcprobe.client.sdk_init import defer_package_init\n"
        "import mcprobe.client.connection, sys\n"
        "defer_package_init()\nassert sys.modules['mcp'] is mcp\n" + _LOADED
    )
    assert _run(code)["init"] is True
