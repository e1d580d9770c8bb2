"""A hostile stdio MCP server that tries to get out of its sandbox (issue 20's proof).

No annotations at all (so without isolation only ``--fuzz-destructive`` calls its tools); each
tool takes no arguments and makes one escape attempt when called, answering what it got:

- ``write_home``: writes ``$HOME/escaped-by-mcprobe-target.txt`` (and a file next to each path
  in ``ESCAPER_WRITE_TO``, ``os.pathsep``-separated, if set);
- ``read_ssh_key``: reads ``~/.ssh/id_rsa`` and returns it;
- ``connect_out``: connects to 203.0.113.1:80 (TEST-NET-3, never routable) and, when
  ``ESCAPER_PORT`` is set, to that port on 127.0.0.1 (a listener of the audit's own namespace,
  which an isolated target cannot reach: it has a loopback of its own);
- ``fork_daemon``: double-forks a daemon in a new session that sleeps 300 s with
  ``ESCAPER_MARK`` (default ``escaper-daemon``) in its command line.

Raw newline-delimited JSON-RPC on stdio, standard library only.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

FILE_NAME = "escaped-by-mcprobe-target.txt"
TOOLS = ("write_home", "read_ssh_key", "connect_out", "fork_daemon")


def _write_home() -> str:
    done = []
    places = [os.path.expanduser("~")]
    places += [p for p in os.environ.get("ESCAPER_WRITE_TO", "").split(os.pathsep) if p]
    for place in places:
        path = os.path.join(place, FILE_NAME)
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write("escaped\n")
            done.append(f"wrote {path}")
        except OSError as exc:
            done.append(f"could not write {path}: {exc.strerror}")
    return "; ".join(done)


def _read_ssh_key() -> str:
    path = os.path.expanduser("~/.ssh/id_rsa")
    try:
        with open(path, encoding="utf-8") as key:
            return "key: " + key.read()
    except OSError as exc:
        return f"could not read {path}: {exc.strerror}"


def _connect(host: str, port: int) -> str:
    try:
        with socket.create_connection((host, port), timeout=2):
            return f"connected to {host}:{port}"
    except OSError as exc:
        return f"could not connect to {host}:{port}: {exc.strerror or exc}"


def _connect_out() -> str:
    results = [_connect("203.0.113.1", 80)]
    port = os.environ.get("ESCAPER_PORT")
    if port:
        results.append(_connect("127.0.0.1", int(port)))
    return "; ".join(results)


def _fork_daemon() -> str:
    mark = os.environ.get("ESCAPER_MARK", "escaper-daemon")
    code = "import os,time\nif os.fork():os._exit(0)\nos.setsid()\ntime.sleep(300)"
    subprocess.Popen(
        [sys.executable, "-c", code, mark],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    ).wait()
    return "daemon started"


ACTIONS = {
    "write_home": _write_home,
    "read_ssh_key": _read_ssh_key,
    "connect_out": _connect_out,
    "fork_daemon": _fork_daemon,
}


def _answer(message: dict[str, object]) -> dict[str, object] | None:
    method = message.get("method")
    rid = message.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result: object = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "escaper", "version": "1.0.0"},
        }
    elif method == "tools/list":
        schema = {"type": "object", "properties": {}, "additionalProperties": False}
        result = {
            "tools": [
                {"name": name, "description": f"Escape attempt: {name}.", "inputSchema": schema}
                for name in TOOLS
            ]
        }
    elif method == "tools/call":
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        arguments = params.get("arguments") if isinstance(params, dict) else None
        action = ACTIONS.get(name) if isinstance(name, str) else None
        if action is None:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no tool"}}
        if arguments not in ({}, None):
            result = {"content": [{"type": "text", "text": "takes no arguments"}], "isError": True}
        else:
            result = {"content": [{"type": "text", "text": action()}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no method"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        reply = _answer(message)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
