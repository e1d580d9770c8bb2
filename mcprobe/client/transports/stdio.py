"""A thin stdio transport that keeps hold of the target process.

The SDK's ``stdio_client`` hides the process, reads lines without a size bound, and takes about
4 s to close a target that ignores EOF and SIGTERM. mcprobe needs the pid (to watch the process
and kill its whole group), a bounded stderr tail, a bounded line length, garbage lines reported
rather than logged, and a faster close. So this module spawns the target itself with
``subprocess.Popen`` in a new session (its own process group; ``spawn_target``) and bridges its
pipes — non-blocking descriptors awaited with ``anyio.wait_readable`` / ``wait_writable`` — to the
``SessionMessage`` streams the SDK's ``JSONRPCDispatcher`` reads and writes. A plain ``Popen``
can be started before any event loop or heavy import exists: ``mcprobe audit`` starts the target
first and imports the SDK (0.5-2 s) while it boots, then ``open_stdio(started=...)`` adopts it
with every guarantee below (demo target audit, same run: 4.3 s → 2.7 s; floor client 2.2 s).

Close sequence (worst case about 2 s): close stdin, wait ``EOF_GRACE`` (``AFTER_REPORT_GRACE``
once the audit's report is complete); SIGTERM to the group,
wait ``TERM_GRACE``; SIGKILL to the group. Whatever is still in the group after the leader is
gone (grandchildren that stayed in the group) gets SIGKILL too, and so does every descendant
that left the group (``setsid``), recorded while the target ran (``descendants.py``: the target
is a child subreaper and its tree is scanned in ``/proc``). When mcprobe itself is SIGKILLed
and runs none of this, ``lifeline.py`` takes over (PDEATHSIG and a watchdog). Measured (2 vCPU,
loaded): a target that exits on EOF closes in ~0.1 s; an ``MCPServer`` target takes 0.5-1.8 s
to exit on EOF by itself; a target that ignores EOF and SIGTERM, with a child, is gone in
~1.5-2.0 s.

Line size: the SDK's reader re-joins its whole buffer on every 64 KiB chunk, so one 30 MB line
took it 41.6 s and ~220 MB RSS to deliver (measured with ``send_raw_request`` over
``stdio_client``). ``_LineSplitter`` scans only new bytes and stops buffering a line at
``max_message_bytes`` (default 4 MiB): the rest of that line is skipped unread, the waiting call
gets an "oversize" note instead of a result (same 30 MB line: 1.4 s, ~105 MB RSS, mostly the
target writing it), and the session carries on.

Notifications: mcprobe acts on none but progress (its own handlers answer the target's requests
at once), so the reader counts them by method and drops them instead of handing each to the
dispatcher (one ``NotificationsSeen`` event per chunk read, plus one ``ProgressSeen`` with the
``progressToken`` values of the progress notifications, which extend the waiting calls'
timeouts); a line with no ``"id"`` anywhere that names a method is counted from its bytes,
without a full parse. 100,000
log and progress notifications during one call then cost well under a second, instead of 1.5-3 s
of per-message validation that pushed the call past its timeout (measured, loaded 2 vCPU).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import IO, Any

import anyio
import anyio.abc
import anyio.lowlevel
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import RequestId

from mcprobe.client.canary_watch import CanaryWatch
from mcprobe.client.inherited_env import default_environment
from mcprobe.client.transports.descendants import SCAN_INTERVAL, DescendantTracker
from mcprobe.client.transports.lifeline import lifeline
from mcprobe.client.transports.sandbox import isolation_of
from mcprobe.client.transports.sandbox import release as release_sandbox
from mcprobe.client.transports.sandbox import start as start_sandboxed
from mcprobe.client.wire_events import (
    BatchSeen,
    DeepMessage,
    InvalidReply,
    NotificationsSeen,
    OversizeReply,
    ProgressSeen,
    StdoutNoise,
    Unsendable,
)
from mcprobe.core.errors import ConnectFailed
from mcprobe.core.isolation import Isolation, SandboxMode
from mcprobe.core.schema.json_depth import MAX_JSON_DEPTH, format_path, scan_bytes, too_deep
from mcprobe.core.target_spec import CANARY_PREFIX, scrub

__all__ = [
    "AFTER_REPORT_GRACE",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "DEFAULT_STDERR_TAIL_BYTES",
    "StdioProcess",
    "discard_started",
    "open_stdio",
    "read_batch",
    "spawn_target",
]

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
DEFAULT_STDERR_TAIL_BYTES = 8 * 1024

EOF_GRACE = 1.0
"""Time for a target to exit on its own once its stdin is closed (the polite way)."""
AFTER_REPORT_GRACE = 0.1
"""The same, once the audit's report is complete (``StdioProcess.eof_grace`` is lowered to it):
nothing more is wanted from the target, and a server whose timers keep it alive past stdin EOF
would otherwise add the whole ``EOF_GRACE`` to every run before SIGTERM stops it."""
TERM_GRACE = 1.0
"""Time between SIGTERM and SIGKILL to the process group."""
KILL_REAP = 0.5
"""Time for the event loop to observe a SIGKILLed leader."""
EXIT_DRAIN = 0.3
"""After the leader exits, how long stdout may stay open (held by a grandchild) before we stop
reading and report the stream closed."""
_POLL = 0.02
_CHUNK = 64 * 1024
_PREFIX = 4096
_NOTIFICATION_METHOD_RE = re.compile(rb'"method"\s*:\s*"([^"\\]{1,100})"')
_ID_RE = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")')
_PROGRESS_TOKEN_RE = re.compile(rb'"progressToken"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")')
_PROGRESS = "notifications/progress"
_MAX_RECORDS = 4096
"""Progress notifications kept whole per batch (one read chunk holds far fewer)."""
_MAX_TOKENS = 1000
_MESSAGE_KEYS = frozenset({"method", "result", "error"})


class _PipeReceiveStream(anyio.abc.ByteReceiveStream):
    """One of the target's output pipes, read without blocking the event loop.

    The descriptor is switched to non-blocking mode and awaited with ``anyio.wait_readable``, so
    a process started with plain ``subprocess.Popen`` (maybe before the event loop existed) can
    be read like an ``anyio.open_process`` one."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe
        self._fd = pipe.fileno()
        self._closed = False
        os.set_blocking(self._fd, False)

    async def receive(self, max_bytes: int = _CHUNK) -> bytes:
        while True:
            await anyio.lowlevel.checkpoint_if_cancelled()
            if self._closed:
                raise anyio.ClosedResourceError
            try:
                data = os.read(self._fd, max_bytes)
            except BlockingIOError:
                await anyio.wait_readable(self._fd)
                continue
            except OSError:
                raise anyio.BrokenResourceError from None
            if not data:
                raise anyio.EndOfStream
            await anyio.lowlevel.cancel_shielded_checkpoint()
            return data

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            anyio.notify_closing(self._fd)
            self._pipe.close()


class _PipeSendStream(anyio.abc.ByteSendStream):
    """The target's stdin pipe, written without blocking the event loop."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe
        self._fd = pipe.fileno()
        self._closed = False
        os.set_blocking(self._fd, False)

    async def send(self, item: bytes) -> None:
        view = memoryview(item)
        while view:
            await anyio.lowlevel.checkpoint_if_cancelled()
            if self._closed:
                raise anyio.ClosedResourceError
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                await anyio.wait_writable(self._fd)
                continue
            except OSError:  # EPIPE: the target closed its stdin or exited
                raise anyio.BrokenResourceError from None
            view = view[written:]
        await anyio.lowlevel.cancel_shielded_checkpoint()

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            anyio.notify_closing(self._fd)
            with suppress(OSError):  # closing may flush nothing: the pipe is unbuffered
                self._pipe.close()


class _Process:
    """A ``subprocess.Popen`` with pipes on all three streams, seen through anyio streams."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        if popen.stdin is None or popen.stdout is None or popen.stderr is None:
            raise ValueError("the target process needs pipes on stdin, stdout and stderr")
        self.popen = popen
        self.stdin = _PipeSendStream(popen.stdin)
        self.stdout = _PipeReceiveStream(popen.stdout)
        self.stderr = _PipeReceiveStream(popen.stderr)

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    async def aclose(self) -> None:
        """Close the pipes and reap the process (call it once the process is gone or killed)."""
        await self.stdin.aclose()
        await self.stdout.aclose()
        await self.stderr.aclose()
        while self.popen.poll() is None:  # noqa: ASYNC110 (no exit event to await)
            await anyio.sleep(_POLL)


@dataclass
class StdioProcess:
    """The live target process as the rest of mcprobe sees it."""

    process: _Process
    command: str
    secrets: tuple[str, ...]
    stderr_limit: int
    _stderr: bytearray = field(default_factory=bytearray)
    stream_closed: bool = False
    eof_grace: float = EOF_GRACE  # how long the close waits for an exit on stdin EOF
    stderr_done: anyio.Event = field(default_factory=anyio.Event)  # stderr read to its end
    canary: CanaryWatch = field(default_factory=lambda: CanaryWatch(None))  # canary_watch.py
    isolation: Isolation | None = None  # the sandbox it runs in (None: started elsewhere)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    @property
    def alive(self) -> bool:
        return self.process.returncode is None and not self.stream_closed

    def stderr_tail(self) -> str:
        text = bytes(self._stderr).decode("utf-8", errors="replace")
        return scrub(text, self.secrets)

    def _append_stderr(self, chunk: bytes) -> None:
        self._stderr += chunk
        excess = len(self._stderr) - self.stderr_limit
        if excess > 0:
            del self._stderr[:excess]

    async def wait_stderr(self, seconds: float) -> None:
        """Wait up to ``seconds`` for stderr to be read to its end (after a death: so its last
        lines, usually the reason, are in ``stderr_tail``)."""
        with anyio.move_on_after(seconds):
            await self.stderr_done.wait()

    async def wait_exit(self, seconds: float) -> bool:
        """Whether the process exited within ``seconds``. Polls: ``wait()`` would also wait for
        pipe EOF, which a grandchild holding the pipe can delay forever."""
        with anyio.move_on_after(seconds):
            while self.process.returncode is None:  # noqa: ASYNC110 (no exit event to await)
                await anyio.sleep(_POLL)
        return self.process.returncode is not None


def discard_started(popen: subprocess.Popen[bytes]) -> None:
    """Make sure a target started by ``spawn_target`` is gone: kill its group and reap it unless
    it was already reaped, close its pipes. Synchronous (no checkpoint), so it also runs while
    being cancelled; a no-op for a process ``open_stdio`` adopted and stopped."""
    if popen.poll() is None:
        _signal_group(popen.pid, signal.SIGKILL)
        popen.kill()
        with suppress(subprocess.TimeoutExpired):
            popen.wait(timeout=KILL_REAP)
    lifeline().release(popen.pid)
    release_sandbox(popen.pid)
    for pipe in (popen.stdin, popen.stdout, popen.stderr):
        if pipe is not None:
            with suppress(OSError):
                pipe.close()


async def _track_descendants(tracker: DescendantTracker) -> None:
    """Record the target's process tree while it runs (descendants.py), until cancelled."""
    while True:
        tracker.scan()
        await anyio.sleep(SCAN_INTERVAL)


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the process group; False when the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


def _parse_line(line: bytes) -> list[SessionMessage | Exception]:
    """One stdout line → what the dispatcher should see (a message, or a wire event followed by a
    placeholder reply that wakes the waiting request).

    Fast path: the SDK's parser (jiter). It refuses two kinds of valid JSON that a hostile or
    sloppy target sends, and both go the slow way through ``json.loads``: lone surrogates
    (``"\\ud83d"``, half an emoji cut by a JavaScript server; kept as they are, the reports show
    them as escapes) and nesting beyond jiter's ~200 levels. Nesting beyond ``MAX_JSON_DEPTH`` is
    dropped with a ``DeepMessage`` naming where the limit was hit, whichever parser saw it."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return _parse_line_slowly(line)
    # Only a line with more openers than the limit can be nested that deep: most skip the walk.
    if line.count(b"{") + line.count(b"[") > MAX_JSON_DEPTH:
        deep = _deep_payload(message)
        if deep is not None:
            return deep
    return [SessionMessage(message)]


def _deep_payload(message: types.JSONRPCMessage) -> list[SessionMessage | Exception] | None:
    """Wire events for a parsed message whose payload is nested beyond the limit, else None."""
    rid: RequestId | None = None
    payload: Any
    if isinstance(message, types.JSONRPCResponse):
        rid, key, payload = message.id, "result", message.result
    elif isinstance(message, types.JSONRPCError):
        rid, key, payload = message.id, "error", message.error.data
    else:
        key, payload = "params", getattr(message, "params", None)
    # The payload sits at level 2 of the message (level 3 for error data: error.data).
    offset = 2 if key == "error" else 1
    path = too_deep(payload, MAX_JSON_DEPTH - offset)
    if path is None:
        return None
    prefix: tuple[str, ...] = ("error", "data") if key == "error" else (key,)
    return _deep_events(rid, (*prefix, *path))


def _parse_line_slowly(line: bytes) -> list[SessionMessage | Exception]:
    try:
        decoded: Any = json.loads(line)
    except RecursionError:  # deeper than the interpreter can follow: read it as bytes
        scan = scan_bytes(line)
        return _deep_events(scan.request_id, scan.path or ())
    except ValueError:
        text = line[:200].decode("utf-8", errors="replace")
        return [StdoutNoise(text)]
    path = too_deep(decoded)
    if path is not None:
        rid = decoded.get("id") if isinstance(decoded, dict) and "method" not in decoded else None
        return _deep_events(rid if isinstance(rid, int | str) else None, path)
    with suppress(ValueError):
        return [
            SessionMessage(types.jsonrpc_message_adapter.validate_python(decoded, by_name=False))
        ]
    if isinstance(decoded, dict) and ("result" in decoded or "error" in decoded):
        rid = decoded.get("id")
        if isinstance(rid, int | str) and not isinstance(rid, bool):
            reason = "reply is not valid JSON-RPC 2.0 (" + _reply_problem(decoded) + ")"
            return [InvalidReply(rid, reason), _placeholder(rid)]
    text = line[:200].decode("utf-8", errors="replace")
    return [StdoutNoise(text)]


def _deep_events(rid: Any, path: tuple[str | int, ...]) -> list[SessionMessage | Exception]:
    if isinstance(rid, bool) or not isinstance(rid, int | str):
        rid = None
    events: list[SessionMessage | Exception] = [DeepMessage(rid, MAX_JSON_DEPTH, format_path(path))]
    if rid is not None:
        events.append(_placeholder(rid))
    return events


def _reply_problem(decoded: dict[str, Any]) -> str:
    if decoded.get("jsonrpc") != "2.0":
        return '"jsonrpc" is not "2.0"'
    if "result" in decoded and "error" in decoded:
        return "both result and error"
    if "result" in decoded and not isinstance(decoded["result"], dict):
        return f"result is a JSON {type(decoded['result']).__name__}, not an object"
    return "malformed error object"


def _placeholder(rid: RequestId) -> SessionMessage:
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=rid, result={}))


def _oversize_events(prefix: bytes, size: int, limit: int) -> list[SessionMessage | Exception]:
    match = _ID_RE.search(prefix)
    rid: RequestId | None = None
    if match is not None:
        with suppress(ValueError):
            value = json.loads(match.group(1))
            if isinstance(value, int | str):
                rid = value
    events: list[SessionMessage | Exception] = [OversizeReply(rid, size, limit)]
    if rid is not None:
        events.append(_placeholder(rid))
    return events


class _LineSplitter:
    """Splits a byte stream into lines without ever holding more than ``limit`` bytes of one."""

    def __init__(self, limit: int, canary: CanaryWatch | None = None) -> None:
        self.limit = limit
        self.canary = canary if canary is not None else CanaryWatch(None)
        self.buf = bytearray()
        self.discarding = False
        self.discard_prefix = b""
        self.discard_size = 0
        self.notifications: dict[str, int] = {}
        self.progress: set[str | int] = set()
        self.records: list[tuple[object, dict[str, Any]]] = []

    def _count(self, method: str) -> None:
        if method in self.notifications or len(self.notifications) < 50:
            self.notifications[method] = self.notifications.get(method, 0) + 1

    def _progress_token(self, token: object) -> None:
        if isinstance(token, bool) or not isinstance(token, str | int):
            return
        if len(self.progress) < _MAX_TOKENS:  # bounded: the target names the tokens
            self.progress.add(token)

    def _record(self, params: object) -> None:
        if isinstance(params, dict) and len(self.records) < _MAX_RECORDS:
            self.records.append((params.get("progressToken"), params))

    def _batch(self, line: bytes, out: list[SessionMessage | Exception]) -> bool:
        """A JSON-RPC batch (an array of messages; MCP 2025-03-26 says clients MUST accept them):
        each element handled as if it had come on a line of its own, in order. False when the
        line is no batch (not JSON, not a non-empty array): the caller reads it as one message."""
        try:
            decoded = json.loads(line)
        except (ValueError, RecursionError):
            return False
        if not isinstance(decoded, list) or not decoded:
            return False
        self.elements(decoded, line[:200], out)
        return True

    def elements(
        self, batch: list[Any], excerpt: bytes, out: list[SessionMessage | Exception]
    ) -> None:
        """The messages of a decoded batch (``excerpt``: its first bytes, shown when an element
        cannot be re-encoded), after a ``BatchSeen``."""
        out.append(BatchSeen(len(batch)))
        for element in batch:
            try:
                text = json.dumps(element, separators=(",", ":")).encode("ascii")
            except (ValueError, RecursionError):
                out.append(StdoutNoise(excerpt.decode("utf-8", errors="replace")))
                continue
            if not isinstance(element, dict) or not _MESSAGE_KEYS & element.keys():
                # A batch in a batch, a bare value, an object with neither method nor result
                # nor error: no message, and no reply either (told apart without a parse).
                out.append(StdoutNoise(text[:200].decode("ascii")))
            else:
                self._line(text, out)

    def _line(self, line: bytes, out: list[SessionMessage | Exception]) -> None:
        if line[:1] == b"[" and self._batch(line, out):
            return
        if b'"id"' not in line and line[:1] == b"{" and line[-1:] == b"}" and b'"jsonrpc"' in line:
            # Shaped like a notification (no id anywhere): counted without a full parse.
            match = _NOTIFICATION_METHOD_RE.search(line)
            if match is not None:
                method = match.group(1).decode("utf-8", errors="replace")
                self.canary.line(line, None, method)
                self._count(method)
                if method == _PROGRESS and (token := _PROGRESS_TOKEN_RE.search(line)):
                    with suppress(ValueError):
                        self._progress_token(json.loads(token.group(1)))
                    with suppress(ValueError, RecursionError):  # a plain parse: no validation
                        message = json.loads(line)
                        self._record(message.get("params") if isinstance(message, dict) else None)
                return
        items = _parse_line(line)
        self.canary.line(line, items)
        for item in items:
            if isinstance(item, SessionMessage) and isinstance(
                item.message, types.JSONRPCNotification
            ):
                self._count(item.message.method[:100])
                params = item.message.params
                if item.message.method == _PROGRESS and isinstance(params, dict):
                    self._progress_token(params.get("progressToken"))
                    self._record(params)
            else:
                self._flush_progress(out)  # the progress written before this reply comes first
                out.append(item)

    def _flush_progress(self, out: list[SessionMessage | Exception]) -> None:
        if self.progress or self.records:
            out.append(ProgressSeen(self.progress, tuple(self.records)))
            self.progress = set()
            self.records = []

    def _flush_notifications(self, out: list[SessionMessage | Exception]) -> None:
        if self.notifications:
            out.append(NotificationsSeen(self.notifications))
            self.notifications = {}
        self._flush_progress(out)

    def feed(self, chunk: bytes) -> list[SessionMessage | Exception]:
        out: list[SessionMessage | Exception] = []
        if self.discarding:
            idx = chunk.find(b"\n")
            if idx < 0:
                self.discard_size += len(chunk)
                return out
            self.discard_size += idx
            self._flush_progress(out)
            out.extend(_oversize_events(self.discard_prefix, self.discard_size, self.limit))
            self.discarding = False
            chunk = chunk[idx + 1 :]
        scan_from = len(self.buf)
        self.buf += chunk
        start = 0  # consumed lines are cut off once per chunk, not once per line (O(n^2))
        while (idx := self.buf.find(b"\n", max(start, scan_from))) >= 0:
            line = bytes(self.buf[start:idx]).strip()
            start = idx + 1
            if len(line) > self.limit:
                self._flush_progress(out)
                out.extend(_oversize_events(line[:_PREFIX], len(line), self.limit))
            elif line:
                self._line(line, out)
        del self.buf[:start]
        self._flush_notifications(out)
        if len(self.buf) > self.limit:
            self.discarding = True
            self.discard_prefix = bytes(self.buf[:_PREFIX])
            self.discard_size = len(self.buf)
            self.buf.clear()
        return out

    def finish(self) -> list[SessionMessage | Exception]:
        """End of stream: a last unterminated line still counts."""
        if self.discarding:
            self.discarding = False
            return _oversize_events(self.discard_prefix, self.discard_size, self.limit)
        line = bytes(self.buf).strip()
        self.buf.clear()
        out: list[SessionMessage | Exception] = []
        if line:
            self._line(line, out)
        self._flush_notifications(out)
        return out


def read_batch(batch: list[Any], excerpt: bytes) -> list[SessionMessage | Exception]:
    """A JSON-RPC batch another transport decoded (HTTP: a body or an SSE event holding an
    array), read exactly as a batch line is read here: a ``BatchSeen``, then each element as if
    it had come alone (replies and requests in order, invalid replies and nesting beyond the
    limit as their wire events, notifications counted in a ``NotificationsSeen`` and progress in
    a ``ProgressSeen`` put before the reply that followed it). An element that is no JSON-RPC
    message comes out as a ``StdoutNoise``; the caller names it for its own transport."""
    splitter = _LineSplitter(DEFAULT_MAX_MESSAGE_BYTES)
    out: list[SessionMessage | Exception] = []
    splitter.elements(batch, excerpt, out)
    splitter._flush_notifications(out)
    return out


def encode_message(message: types.JSONRPCMessage) -> bytes | Unsendable:
    """One outgoing message as a line of JSON. Strings the target sent may hold lone surrogates
    (valid JSON text, but no UTF-8), and mcprobe echoes some back (a cursor, an ``enum`` value):
    pydantic's encoder refuses them, so such a message is written with ``json.dumps``, whose
    ``\\u`` escapes carry them exactly. A request that still cannot be encoded (a NaN from a
    target's schema) is an ``Unsendable`` event for its id: it ends "not run" with the reason,
    and nothing is written, so the target never sees a broken line nor a closed stdin."""
    try:
        return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
    except ValueError:
        pass
    try:
        plain = message.model_dump(by_alias=True, exclude_unset=True)
        text = json.dumps(plain, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    except (ValueError, TypeError) as exc:
        if isinstance(message, types.JSONRPCRequest):
            reason = f"not sent: mcprobe could not encode this request as JSON ({exc})"
            return Unsendable(message.id, reason[:300])
        return b""  # a notification or an answer of ours: dropped, the session goes on
    return text.encode("ascii") + b"\n"


def _start_error(command: str, exc: OSError) -> ConnectFailed:
    reason = exc.strerror or str(exc)
    return ConnectFailed(f"could not start `{command}`: {reason}")


def spawn_target(
    command: str,
    args: tuple[str, ...],
    *,
    env: dict[str, str],
    cwd: str | None,
    sandbox: SandboxMode = "off",
    paths: tuple[str, ...] = (),
) -> subprocess.Popen[bytes]:
    """Start a stdio target the way ``open_stdio`` expects to adopt it: its own session (so its
    own process group), pipes on all three streams, the SDK's minimal environment plus ``env``.

    ``sandbox`` (``core/isolation.py``): in bubblewrap unless ``off`` (``auto``: where it works);
    ``paths`` (the user's examples' paths) get private copies there like the arguments' paths.
    Raises ``ConnectFailed`` when it cannot be started, ``UsageError`` when ``sandbox`` is
    ``required`` and no isolation is possible. ``mcprobe.cli.commands`` starts the target the same
    way before the heavy imports (``cli._prespawn``, through the same ``sandbox.start``)."""
    if cwd is not None and not os.path.isdir(cwd):
        raise ConnectFailed(f"could not start `{command}`: working directory {cwd!r} not found")
    try:
        # lifeline.py: dies with mcprobe (PDEATHSIG, watchdog); descendants.py: orphans stay in
        # the target's tree.
        return start_sandboxed(
            [command, *args],
            env=default_environment() | env,
            cwd=cwd,
            mode=sandbox,
            named_env=env,
            paths=paths,
        )
    except OSError as exc:
        raise _start_error(command, exc) from None


# C901: the pipe tasks below are closures over one process's streams and scopes (complexity 19,
# the cap is 15); split them into a class once the close and descendant work on this function
# (issues 11 and 12) has landed, not under it.
@asynccontextmanager
async def open_stdio(  # noqa: C901
    command: str,
    args: tuple[str, ...],
    *,
    env: dict[str, str],
    cwd: str | None,
    secrets: tuple[str, ...],
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    stderr_tail_bytes: int = DEFAULT_STDERR_TAIL_BYTES,
    started: subprocess.Popen[bytes] | None = None,
    sandbox: SandboxMode = "off",
    paths: tuple[str, ...] = (),
) -> AsyncIterator[
    tuple[
        StdioProcess,
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    """Spawn the target in its own process group and bridge its pipes to message streams.

    ``started`` adopts a target already started by ``spawn_target`` (or an equivalent ``Popen``:
    new session, three pipes) instead of starting one; from then on it is owned here exactly
    like one started here. Raises ``ConnectFailed`` when the process cannot be started. On exit
    the whole process group is stopped (see the module docstring), even when the caller is being
    cancelled.
    """
    if started is None:
        started = spawn_target(command, args, env=env, cwd=cwd, sandbox=sandbox, paths=paths)
    popen = started
    try:
        process = _Process(popen)
    except ValueError:
        discard_started(popen)
        raise
    canary = next((v for k, v in env.items() if k.startswith(CANARY_PREFIX)), None)
    target = StdioProcess(
        process,
        command,
        secrets,
        stderr_tail_bytes,
        canary=CanaryWatch(canary),
        isolation=isolation_of(popen.pid),
    )
    pgid = process.pid  # start_new_session: the leader's pid is the group id
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)
    reader_scope = anyio.CancelScope()
    line = lifeline()
    line.watch(pgid)  # again for a ``started`` Popen made elsewhere: the watchdog keeps one entry
    tracker = DescendantTracker(pgid)

    async def read_stdout() -> None:
        assert process.stdout is not None
        splitter = _LineSplitter(max_message_bytes, target.canary)
        try:
            with reader_scope:
                try:
                    while True:
                        chunk = await process.stdout.receive(_CHUNK)
                        for item in splitter.feed(chunk):
                            await read_send.send(item)
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass
                for item in splitter.finish():
                    await read_send.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            target.stream_closed = True
            read_send.close()

    async def drain_stderr() -> None:
        assert process.stderr is not None
        try:
            with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                while True:
                    chunk = await process.stderr.receive(_CHUNK)
                    target.canary.stderr(chunk)
                    target._append_stderr(chunk)
        finally:
            target.stderr_done.set()

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with write_recv:
                async for message in write_recv:
                    target.canary.sent(message.message)
                    data = encode_message(message.message)
                    if isinstance(data, Unsendable):
                        await read_send.send(data)  # that request ends "not run"; no write
                        await read_send.send(_placeholder(data.request_id))
                    elif data:
                        await process.stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The target stopped reading: make pending requests fail now, not at their timeout.
            reader_scope.cancel()

    async def watch_exit() -> None:
        while process.returncode is None:  # noqa: ASYNC110 (no exit event to await)
            await anyio.sleep(_POLL)
        # A grandchild may hold stdout open after the leader died: give the reader a moment to
        # deliver what the leader wrote, then report the stream closed.
        await anyio.sleep(EXIT_DRAIN)
        reader_scope.cancel()

    async def stop() -> None:
        tracker.scan()  # the newest descendants, while the leader still holds its orphans
        write_send.close()
        if process.stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        if not await target.wait_exit(target.eof_grace):
            _signal_group(pgid, signal.SIGTERM)
            if not await target.wait_exit(TERM_GRACE):
                _signal_group(pgid, signal.SIGKILL)
                await target.wait_exit(KILL_REAP)
        # Members that outlived the leader (or were left by a leader that exited on its own).
        _signal_group(pgid, signal.SIGKILL)
        # Descendants that left the group (setsid): recorded while the target ran.
        tracker.kill_recorded()
        line.release(pgid)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdout)
            tg.start_soon(drain_stderr)
            tg.start_soon(write_stdin)
            tg.start_soon(watch_exit)
            tg.start_soon(_track_descendants, tracker)
            try:
                yield target, read_recv, write_send
            finally:
                with anyio.CancelScope(shield=True):
                    await stop()
                    tg.cancel_scope.cancel()
        with anyio.CancelScope(shield=True), anyio.move_on_after(KILL_REAP):
            await process.aclose()
    finally:
        release_sandbox(pgid)  # the private copies go with the process, however it ended
    read_recv.close()
