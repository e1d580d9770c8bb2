#!/usr/bin/env python3
"""Serve one of mcprobe's Streamable HTTP test targets on 127.0.0.1 for scripts/conformance.

    python scripts/conformance_targets.py NAME PORT

prints ``READY http://127.0.0.1:PORT/mcp`` once it listens, then serves until killed. NAME:

- ``sdk``          tests/targets/sdk_server.py: the SDK's high-level ``MCPServer`` (two tools),
                   its default transport security (DNS-rebinding protection for 127.0.0.1).
- ``era-open``     tests/targets/era_server.py: the SDK's low-level ``Server`` (dual era) with
                   DNS-rebinding protection turned off, the defect ``http.origin`` must catch.
- ``session-raw``  tests/targets/session_http.py: a hand-written JSON-only server (no SDK) with
                   sessions; it echoes any offered protocolVersion and has no ``ping``.

(The demo target serves HTTP itself: ``python -m demo_target --http PORT``.)
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import anyio
import uvicorn
from starlette.types import ASGIApp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _app(name: str) -> ASGIApp:
    if name == "sdk":
        from tests.targets.sdk_server import build_server as build_sdk

        return build_sdk().streamable_http_app(host="127.0.0.1")
    if name == "era-open":
        from mcp.server.transport_security import TransportSecuritySettings

        from tests.targets.era_server import build_server as build_era

        open_security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        return build_era().streamable_http_app(transport_security=open_security)
    if name == "session-raw":
        from tests.targets.session_http import SessionServer

        return SessionServer()
    raise SystemExit(f"conformance_targets: unknown target {name!r} (sdk, era-open, session-raw)")


async def _serve(app: ASGIApp, port: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    print(f"READY http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])


def main() -> None:
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        raise SystemExit("usage: conformance_targets.py sdk|era-open|session-raw PORT")
    anyio.run(_serve, _app(sys.argv[1]), int(sys.argv[2]))


if __name__ == "__main__":
    main()
