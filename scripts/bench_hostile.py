"""Peak memory and wall time of ``mcprobe audit`` against the largest hostile replies.

Each case runs a real ``mcprobe audit --fuzz`` in a child process (``python -m mcprobe.cli``,
one tool, ``--concurrency 1``) against one of the hostile test targets, twice: once with the
hostile reply and once with a plain reply *of the same tool*, in the same run. Peak RSS comes
from ``wait4`` (``ru_maxrss`` of that child alone), wall time from the parent's clock. The
ratios hostile/plain are the numbers that matter (the machine is shared and noisy).

- ``bomb``: HTTP (uvicorn on 127.0.0.1), a gzip reply that inflates to 1 GiB (~1 MB sent) vs
  one that inflates to 1 KiB (``tests/targets/hostile_http.bomb_server``);
- ``line``: stdio, one 1 GiB JSON line (``rawserver.py tools=huge huge_mb=1024``) vs an empty
  text (``huge_mb=0``);
- ``nesting``: stdio, structuredContent nested 5,000 levels (``deep_result depth=5000``) vs 1;
- ``deep_page``, ``surrogates``, ``setsid``, ``shape``, ``version``: the other hostile
  behaviours of the catalogue (tests/client/test_hostile_targets.py), each against the same target
  without the behaviour (``shape`` against the well-formed ``fail`` tool).

Round three (issue 22), one case per class, each against the same target with the behaviour
taken out (a ``python -c`` that patches the target class, or an ASGI wrapper), the note being
a summary of the report (grade, verdicts per tool, the valid case, the protocol findings):

- ``string_ids``, ``float_ids``: every call answered first by a stray reply whose id is the
  request's as a string / with a fractional part (``tests/targets/string_ids.py``,
  ``float_ids.py``) vs the genuine reply alone;
- ``batch_stdio``, ``batch_json``, ``batch_sse``, ``batch_legacy``: 2025-03-26 and every
  message after ``initialize`` a JSON-RPC batch, on stdio (``batch_replies.py``), in a JSON
  body and in an SSE event of a POST answer (``batch_http.py``), on the legacy SSE stream
  (``batch_legacy_sse.py``) vs the same messages one by one;
- ``closed_stdout``: closes its stdout on every first call and stays alive
  (``closes_stdout.py``) vs tools that answer, with the CLI's default sandbox (bubblewrap when
  available); ``closed_stdout_nosandbox`` the same with ``--sandbox off``;
- ``signal``: SIGTERM while ``mcprobe audit`` lints a 5,000-tool listing (``huge_listing.py``)
  vs SIGTERM while it waits for a call that is never answered (``fragile.py slow_silent``),
  both ``--sandbox off`` (the target's pid is read from the host); wall time is SIGTERM to
  exit, the note gives mcprobe's CPU use in the 0.5 s before the signal (busy: the lint) and
  whether the target's process is gone;
- ``echo_surrogates``: a cursor and an enum value with lone surrogates to send back
  (``surrogate_echo.py``) vs the same strings without them;
- ``non_jsonrpc``: HTTP tool calls answered with a text/html 200 page and a 502 proxy page
  (``non_jsonrpc_http.py`` tools ``html``, ``gateway``) vs JSON-RPC results.

    .venv/bin/python scripts/bench_hostile.py [--only bomb,line,nesting]

Each child's address space is capped (``RLIMIT_AS`` 4 GiB) so a regression fails instead of
eating the machine.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.targets import RAWSERVER, TARGETS_DIR  # noqa: E402
from tests.targets.batch_http import BatchServer  # noqa: E402
from tests.targets.batch_legacy_sse import LegacyBatchServer  # noqa: E402
from tests.targets.hostile_http import _respond, bomb_server, serve  # noqa: E402
from tests.targets.non_jsonrpc_http import _body, non_jsonrpc  # noqa: E402
from tests.targets.processes import pid_running  # noqa: E402

PY = sys.executable
GIB = 1 << 30


@dataclass(frozen=True)
class Run:
    status: int
    wall: float
    rss_mb: float
    note: str


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 * GIB, 4 * GIB))


def valid_note(report: dict[str, Any], tool: str) -> str:
    valid = [r for r in report["fuzz"] if r["name"] == tool and r["case"] == "valid"]
    return str(valid[0]["note"] or valid[0]["outcome"]) if valid else "no valid case"


PROTOCOL = ("server.", "security.")  # finding codes about the wire, not the listing's style


def summary(report: dict[str, Any], tools: str) -> str:
    """Grade, verdicts per tool (with the valid case's answer), deaths, protocol findings."""
    parts = [f"grade {report['grade'] or 'none'}"]
    if report["coverage"]:
        parts.append(f"{report['coverage']['totalTools']} tools")
    for tool in tools.split(","):
        results = [r for r in report["fuzz"] if r["name"] == tool]
        verdicts = Counter(r["outcome"] for r in results)
        valid = next((r for r in results if r["case"] == "valid"), None)
        said = "" if valid is None else (valid["note"] or valid["message"] or "")
        code = "" if valid is None or valid["errorCode"] is None else f" {valid['errorCode']}"
        counted = " ".join(f"{k}x{n}" for k, n in sorted(verdicts.items()))
        parts.append(f"{tool}: {counted}; valid{code} {said[:60]!r}")
    if report["deaths"]:
        parts.append(f"deaths {len(report['deaths'])}")
    silent = sum(1 for r in report["fuzz"] if r["silentlyAccepted"])
    handling = [d["score"] for d in report["dimensions"] if d["key"] == "errorHandling"]
    parts.append(f"silently accepted {silent}, errorHandling {handling[0] if handling else '-'}")
    codes = sorted({f["code"] for f in report["findings"] if f["code"].startswith(PROTOCOL)})
    return " | ".join([*parts, ",".join(codes) or "no server.* finding"])


def audit(
    target: list[str],
    tool: str,
    note: Callable[[dict[str, Any], str], str] = valid_note,
    options: tuple[str, ...] = (),
) -> Run:
    argv = [PY, "-m", "mcprobe.cli", "audit", "--fuzz", "--fuzz-destructive", "--json", *options]
    argv += ["--concurrency", "1", "--tools", tool, "--timeout", "30", *target]
    started = time.monotonic()
    child = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT, preexec_fn=_limit
    )
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    said = note(json.loads(out), tool) if out.strip() else ""
    return Run(
        child.returncode, wall, usage.ru_maxrss / 1024, said if note is summary else said[-100:]
    )


def stdio(*words: str) -> list[str]:
    return ["--", PY, str(RAWSERVER), *words]


def target(script: str, *words: str) -> list[str]:
    return ["--", PY, str(TARGETS_DIR / script), *words]


def patched(module: str, cls: str, patch: str, *words: str) -> list[str]:
    """``module``'s target class ``cls`` run with ``patch`` applied first: the same target
    without its behaviour."""
    code = (
        f"import sys\nfrom tests.targets.{module} import {cls} as T\n{patch}\nT(sys.argv[1:]).run()"
    )
    return ["--", PY, "-c", code, *words]


async def http_pair(tool: str) -> tuple[Run, Run]:
    runs = []
    for decoded in (GIB, 1024):
        async with serve(bomb_server(decoded)) as base:
            url = f"{base}/mcp"
            runs.append(await anyio.to_thread.run_sync(audit, [url], tool))
    return runs[0], runs[1]


class OneByOne(BatchServer):
    """``batch_http.BatchServer`` (2025-03-26) answering each request with its response alone."""

    def batch(self, method: object, reply: dict[str, Any]) -> Any:
        return reply


class LegacyOneByOne(LegacyBatchServer):
    def batch(self, method: object, reply: dict[str, Any]) -> Any:
        return reply


async def jsonrpc_calls(scope: Scope, receive: Receive, send: Send) -> None:
    """``non_jsonrpc_http.non_jsonrpc`` with its tool calls answered by a JSON-RPC result."""
    if scope["type"] != "http" or scope["method"] != "POST":
        await non_jsonrpc(scope, receive, send)
        return
    body = await _body(receive)
    message = json.loads(body)
    if message.get("method") == "tools/call" and "id" in message:
        result = {"content": [{"type": "text", "text": "Sign in"}]}
        reply = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
        await _respond(send, 200, reply.encode(), [(b"content-type", b"application/json")])
        return

    async def again() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    await non_jsonrpc(scope, again, send)


async def asgi_pair(
    hostile: Callable[[], ASGIApp], plain: Callable[[], ASGIApp], path: str, tools: str
) -> tuple[Run, Run]:
    runs = []
    for app in (hostile, plain):
        async with serve(app()) as base:
            url = f"{base}{path}"
            runs.append(await anyio.to_thread.run_sync(audit, [url], tools, summary))
    return runs[0], runs[1]


def wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def sigterm(words: list[str], ready: Callable[[Path], bool], *options: str) -> Run:
    """``mcprobe audit [options]`` of the target ``words`` (``{tmp}``: a fresh directory for its
    files), SIGTERM once ``ready(directory)``; wall time is SIGTERM to exit, the note the last
    stderr line and whether the target's process is gone within 20 s."""
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        argv = [PY, "-m", "mcprobe.cli", "audit", *options, "--timeout", "600"]
        argv += ["--sandbox", "off", "--", PY, *(w.format(tmp=tmp) for w in words)]
        with open(where / "stderr", "wb") as err:  # a file: a full pipe would block mcprobe
            child = subprocess.Popen(
                argv,
                stdout=subprocess.DEVNULL,
                stderr=err,
                cwd=ROOT,
                preexec_fn=_limit_default_sigint,
            )
        if not wait_for(lambda: ready(where), 180) or child.poll() is not None:
            child.kill()
            child.wait()
            return Run(-1, 0.0, 0.0, "never reached the phase to signal")
        target_pid = int((where / "pid").read_text())
        before, since = cpu_seconds(child.pid), time.monotonic()
        time.sleep(0.5)
        busy = (cpu_seconds(child.pid) - before) / (time.monotonic() - since)
        signalled = time.monotonic()
        child.send_signal(signal.SIGTERM)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - signalled
        gone = wait_for(lambda: not pid_running(target_pid), 20)
        if not gone:
            os.kill(target_pid, signal.SIGKILL)
        lines = (where / "stderr").read_text(errors="replace").strip().splitlines()
        left = "gone" if gone else "LEFT RUNNING (killed now)"
        note = f"{busy:.0%} CPU before SIGTERM | {(lines or [''])[-1]} | target {left}"
        return Run(os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024, note)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _limit_default_sigint() -> None:
    """The address-space cap, and SIGINT as a terminal leaves it (see tests/front/test_signals)."""
    _limit()
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def linting(where: Path) -> bool:
    """The listing was sent and nothing more for 2 s: mcprobe is computing, not talking."""
    log = where / "log"
    quiet = log.exists() and time.time() - log.stat().st_mtime >= 2.0
    return (where / "listed").exists() and quiet


def mid_call(where: Path) -> bool:
    log = where / "log"
    return log.exists() and any('"call"' in line for line in log.read_text().splitlines())


def signal_pair() -> tuple[Run, Run]:
    listing = str(TARGETS_DIR / "huge_listing.py")
    files = ["log={tmp}/log", "pidfile={tmp}/pid"]
    hostile = sigterm([listing, "count=5000", "listed={tmp}/listed", *files], linting)
    fragile = str(TARGETS_DIR / "fragile.py")
    waiting = [fragile, "tools=slow_silent", "ignore_eof", "work=120", *files]
    plain = sigterm(waiting, mid_call, "--fuzz")
    return hostile, plain


CASES: dict[str, tuple[str, Callable[[], tuple[Run, Run]]]] = {
    "bomb": ("HTTP gzip inflating to 1 GiB", lambda: anyio.run(http_pair, "bomb")),
    "line": (
        "stdio 1 GiB line",
        lambda: (
            audit(stdio("tools=huge", "huge_mb=1024"), "huge"),
            audit(stdio("tools=huge", "huge_mb=0"), "huge"),
        ),
    ),
    "nesting": (
        "stdio 5,000-level nesting",
        lambda: (
            audit(stdio("tools=deep_result", "depth=5000"), "deep_result"),
            audit(stdio("tools=deep_result", "depth=1"), "deep_result"),
        ),
    ),
    # The other hostile behaviours, each against the same target without it.
    "deep_page": (
        "stdio 5,000-deep tools page 2",
        lambda: (
            audit(stdio("deep_page2", "tools=echo"), "echo"),
            audit(stdio("tools=echo"), "echo"),
        ),
    ),
    "surrogates": (
        "stdio lone surrogates",
        lambda: (
            audit(stdio("surrogates", "tools=half_emoji"), "half_emoji"),
            audit(stdio("tools=half_emoji"), "half_emoji"),
        ),
    ),
    "setsid": (
        "stdio setsid + daemon",
        lambda: (
            audit(stdio("escape_setsid", "tools=echo"), "echo"),
            audit(stdio("tools=echo"), "echo"),
        ),
    ),
    "shape": (
        'stdio "isError": "true"',
        lambda: (
            audit(stdio("tools=bad_is_error"), "bad_is_error"),
            audit(stdio("tools=fail"), "fail"),
        ),
    ),
    "version": (
        "stdio protocol 1999-01-01",
        lambda: (
            audit(stdio("protocol=1999-01-01", "tools=echo"), "echo"),
            audit(stdio("tools=echo"), "echo"),
        ),
    ),
    # Round three (issue 22): one case per class, each against its target without the behaviour.
    "string_ids": (
        'stdio stray id "7" for 7',
        lambda: (
            audit(target("string_ids.py"), "strict", summary),
            audit(
                patched("string_ids", "StringIds", "T.on_tools_call = T.genuine"), "strict", summary
            ),
        ),
    ),
    "float_ids": (
        "stdio stray id 7.5 for 7",
        lambda: (
            audit(target("float_ids.py"), "strict", summary),
            audit(
                patched("float_ids", "FloatIds", "T.on_tools_call = T.genuine"), "strict", summary
            ),
        ),
    ),
    "batch_stdio": (
        "stdio 2025-03-26 batches",
        lambda: (
            audit(target("batch_replies.py"), "strict,pongs", summary),
            audit(
                patched(
                    "batch_replies",
                    "BatchReplies",
                    "from tests.targets.rawserver import RawServer\n"
                    "T.on_initialize = RawServer.on_initialize",
                ),
                "strict,pongs",
                summary,
            ),
        ),
    ),
    "batch_json": (
        "HTTP batches, JSON body",
        lambda: anyio.run(
            asgi_pair,
            lambda: BatchServer(sse=False),
            lambda: OneByOne(sse=False),
            "/mcp",
            "strict,pongs",
        ),
    ),
    "batch_sse": (
        "HTTP batches, SSE event",
        lambda: anyio.run(
            asgi_pair,
            lambda: BatchServer(sse=True),
            lambda: OneByOne(sse=True),
            "/mcp",
            "strict,pongs",
        ),
    ),
    "batch_legacy": (
        "legacy SSE batches",
        lambda: anyio.run(asgi_pair, LegacyBatchServer, LegacyOneByOne, "/sse", "strict,pongs"),
    ),
    "closed_stdout": (
        "stdio stdout closed, alive",
        lambda: (
            audit(target("closes_stdout.py"), "strict_a,strict_b,strict_c", summary),
            audit(
                patched(
                    "closes_stdout",
                    "ClosesStdout",
                    "from tests.targets.string_ids import StringIds\n"
                    "T.on_tools_call = StringIds.genuine",
                ),
                "strict_a,strict_b,strict_c",
                summary,
            ),
        ),
    ),
    "closed_stdout_nosandbox": (
        "stdout closed, --sandbox off",
        lambda: (
            audit(
                target("closes_stdout.py"),
                "strict_a,strict_b,strict_c",
                summary,
                ("--sandbox", "off"),
            ),
            audit(
                patched(
                    "closes_stdout",
                    "ClosesStdout",
                    "from tests.targets.string_ids import StringIds\n"
                    "T.on_tools_call = StringIds.genuine",
                ),
                "strict_a,strict_b,strict_c",
                summary,
                ("--sandbox", "off"),
            ),
        ),
    ),
    "signal": ("SIGTERM: lint vs mid-call", signal_pair),
    "echo_surrogates": (
        "stdio surrogates to echo",
        lambda: (
            audit(target("surrogate_echo.py"), "strict,pick", summary),
            audit(
                patched(
                    "surrogate_echo",
                    "SurrogateEcho",
                    "import tests.targets.surrogate_echo as m\n"
                    "m.CURSOR, m.VALUE = 'page-2', 'half'",
                ),
                "strict,pick",
                summary,
            ),
        ),
    ),
    "non_jsonrpc": (
        "HTTP text/html 200, 502",
        lambda: anyio.run(
            asgi_pair, lambda: non_jsonrpc, lambda: jsonrpc_calls, "/mcp", "html,gateway"
        ),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", default="bomb,line,nesting", help=f"comma-separated, from {','.join(CASES)}"
    )
    args = parser.parse_args()
    # uvicorn's sockets complain once per chunk after mcprobe hangs up on the bomb: expected.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    print(f"{'case':28} {'kind':7} {'exit':>4} {'wall s':>7} {'peak MB':>8}  valid case")
    for name in args.only.split(","):
        title, run = CASES[name]
        hostile, plain = run()
        for kind, result in (("hostile", hostile), ("plain", plain)):
            print(
                f"{title:28} {kind:7} {result.status:>4} {result.wall:>7.2f} "
                f"{result.rss_mb:>8.1f}  {result.note}"
            )
        print(
            f"{'':28} {'ratio':7} {'':>4} {hostile.wall / plain.wall:>7.2f} "
            f"{hostile.rss_mb / plain.rss_mb:>8.2f}"
        )


if __name__ == "__main__":
    main()
