"""Values the server names itself (core/cases/discovery.py), as bases of its valid calls."""

from __future__ import annotations

from mcprobe.core.cases.discovery import discover_values, for_tool, start_env_paths
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


def test_a_file_inside_a_given_directory_is_offered_to_file_parameters_and_to_path() -> None:
    files = {"/srv/docs": ("/srv/docs/a.md",), "/srv/shop.db": None}
    found = discover_values(["/srv/docs", "/srv/shop.db"], (), files)
    assert found["directory"] == ("/srv/docs",)  # a file is no directory
    assert found["filepath"] == ("/srv/shop.db", "/srv/docs/a.md")
    assert found["path"] == ("/srv/docs", "/srv/shop.db", "/srv/docs/a.md")
    assert found["dbpath"] == ("/srv/shop.db",)
    assert for_tool(found, "read_file")["path"][0] == "/srv/shop.db"
    assert for_tool(found, "readTextFile")["path"][0] == "/srv/shop.db"
    assert for_tool(found, "list_directory")["path"][0] == "/srv/docs"
    assert for_tool(found, "search_files")["path"][0] == "/srv/docs"


def test_the_start_environment_names_places_but_never_secrets_or_system_paths() -> None:
    env = {
        "NOTES_DIR": "/srv/notes",
        "GIT_REPO_PATH": "/srv/repo",
        "PATH": "/usr/bin:/bin",
        "HOME": "/root",
        "SSL_CERT_FILE": "/etc/ssl/cert.pem",
        "SERVICE_KEY_PATH": "/srv/key.json",
        "DATA_DIR": "/srv/hidden",
        "LOG_DIR": "/var/log/x",
        "MODE": "fast",
    }
    pairs = start_env_paths(env, secrets=("/srv/hidden",))
    assert pairs == [("NOTES_DIR", "/srv/notes"), ("GIT_REPO_PATH", "/srv/repo")]
    found = discover_values([], pairs)
    assert found["repopath"] == ("/srv/repo",)
    assert found["path"] == ("/srv/notes", "/srv/repo")
