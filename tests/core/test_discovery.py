"""Values the server names itself (core/cases/discovery.py), as bases of its valid calls."""

from __future__ import annotations

from mcprobe.core.cases.discovery import discover_values
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.model import CaseSource


def test_a_repository_flag_and_bare_absolute_directories_are_discovered() -> None:
    git = discover_values(["--repository", "/srv/repo"])
    assert git["repopath"] == ("/srv/repo",)
    fs = discover_values(["/root/.cache/npm/node_modules/x/dist/index.js", "/srv/docs", "/srv/b"])
    assert fs["path"] == ("/srv/docs", "/srv/b")  # the server's own code is not a directory
    assert discover_values(["--local-timezone", "UTC"]) == {}
    assert discover_values(["--root=/data"])["root"] == ("/data",)


def test_a_discovered_directory_is_the_valid_base_and_stays_synthesized() -> None:
    tool = {
        "name": "git_status",
        "inputSchema": {
            "type": "object",
            "properties": {"repo_path": {"type": "string"}},
            "required": ["repo_path"],
        },
    }
    found = discover_values(["--repository", "/srv/repo"])
    valid = next(c for c in generate_cases(tool, (), found).cases if not c.malformed)
    assert valid.arguments == {"repo_path": "/srv/repo"}
    assert valid.source is CaseSource.SYNTHESIZED
    plain = next(c for c in generate_cases(tool).cases if not c.malformed)
    assert plain.arguments != {"repo_path": "/srv/repo"}


def test_a_discovered_value_the_schema_refuses_is_not_used() -> None:
    tool = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string", "pattern": "^[a-z]+$"}},
            "required": ["path"],
        },
    }
    valid = next(c for c in generate_cases(tool, (), {"path": ("/srv/x",)}).cases)
    assert valid.arguments != {"path": "/srv/x"}
