"""Fixtures for the real-server audits: each audit gets its own pytest temporary directory."""

from collections.abc import Callable

import pytest

from tests.integration.real_servers import RealAudit, audit_real_server

AuditFn = Callable[..., RealAudit]


@pytest.fixture
def audit_server(tmp_path_factory: pytest.TempPathFactory) -> AuditFn:
    """``audit_server(server_id, *extra_cli_args)``: a fresh fixture and audit on every call."""

    def audit(server_id: str, *extra_cli_args: str) -> RealAudit:
        workdir = tmp_path_factory.mktemp(f"real-{server_id}")
        return audit_real_server(server_id, *extra_cli_args, workdir=workdir)

    return audit


@pytest.fixture(scope="session")
def default_audit(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], RealAudit]:
    """The default ``mcprobe audit --fuzz`` of a server, run once per session and shared."""
    done: dict[str, RealAudit] = {}

    def audit(server_id: str) -> RealAudit:
        if server_id not in done:
            workdir = tmp_path_factory.mktemp(f"real-default-{server_id}")
            done[server_id] = audit_real_server(server_id, workdir=workdir)
        return done[server_id]

    return audit


@pytest.fixture(scope="session")
def deep_audit(tmp_path_factory: pytest.TempPathFactory) -> AuditFn:
    """``deep_audit(server_id, *extra_cli_args)``: ``mcprobe audit --fuzz --deep …`` of a server,
    run once per session and arguments, and shared."""
    done: dict[tuple[str, ...], RealAudit] = {}

    def audit(server_id: str, *extra_cli_args: str) -> RealAudit:
        key = (server_id, *extra_cli_args)
        if key not in done:
            workdir = tmp_path_factory.mktemp(f"real-deep-{server_id}")
            done[key] = audit_real_server(server_id, "--deep", *extra_cli_args, workdir=workdir)
        return done[key]

    return audit
