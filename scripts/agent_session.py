#!/usr/bin/env python3
"""Drive mcprobe's MCP server the way an agent does, and write down exactly what happened.

It starts ``mcprobe`` as a stdio MCP server from the official SDK client (what Claude Desktop,
Cursor or Claude Code do), makes the three calls of the documented flow —
``probe_connect`` → ``probe_report`` (fuzz) → ``probe_disconnect`` — and records each call's
arguments, its progress notifications and its result.

    scripts/agent_session.py agent-usage [--out docs/agent-usage.md]
        audit the demo target and write the agent walkthrough
    scripts/agent_session.py transcript --title TITLE --out FILE [--source TEXT]
                              [--redact PATH[=LABEL]] [--cwd DIR] [--fuzz-destructive]
                              -- COMMAND [ARG ...]
        audit any stdio MCP server through the same path and write its report

Run it with the project's Python (``.venv/bin/python scripts/agent_session.py ...``): mcprobe is
started as ``<that python> -m mcprobe.server.app``. Exit status: 0 written; 1 a call failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parent.parent
CALL_TIMEOUT = 600.0  # a fuzzed report of a large server may take minutes
REQUEST = (
    "I'm writing the MCP server in `demo_target/` (you start it with `python -m demo_target`). "
    "Can you audit it — including actually calling its tools — and tell me what to fix first?"
)


@dataclass
class Call:
    """One tool call as the agent made it and as mcprobe answered it."""

    tool: str
    arguments: dict[str, Any]
    is_error: bool = False
    structured: dict[str, Any] | None = None
    text: str = ""
    progress: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class Session:
    """What the agent saw: mcprobe's handshake, its tool list and the calls."""

    server_name: str
    server_version: str
    instructions: str
    tools: list[dict[str, Any]]
    calls: list[Call]

    @property
    def failed(self) -> bool:
        return any(c.is_error for c in self.calls)


def mcprobe_server() -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "mcprobe.server.app"], cwd=ROOT
    )


async def _call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> Call:
    call = Call(tool, arguments)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        fallback = f"{progress:g}/{total:g}" if total else f"{progress:g}"
        call.progress.append(message or fallback)

    start = time.perf_counter()
    result = await session.call_tool(
        tool, arguments, read_timeout_seconds=CALL_TIMEOUT, progress_callback=on_progress
    )
    call.seconds = time.perf_counter() - start
    call.is_error = bool(result.is_error)
    call.structured = result.structured_content
    call.text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    return call


async def audit_through_mcp(
    connect: dict[str, Any], *, fuzz_destructive: bool = False, detail: str | None = None
) -> Session:
    """Spawn mcprobe, connect it to the target described by ``connect``, report (``detail``:
    none sends the server's default, the summary), disconnect."""
    async with (
        stdio_client(mcprobe_server(), errlog=sys.stderr) as (read, write),
        ClientSession(
            read,
            write,
            read_timeout_seconds=CALL_TIMEOUT,
            client_info=types.Implementation(name="agent-session", version="1.0"),
        ) as session,
    ):
        init = await session.initialize()
        listed = await session.list_tools()
        calls = [await _call(session, "probe_connect", connect)]
        if not calls[0].is_error:
            assert calls[0].structured is not None
            cid = calls[0].structured["connectionId"]
            report_args: dict[str, Any] = {"connectionId": cid, "fuzz": True}
            if fuzz_destructive:
                report_args["fuzzDestructive"] = True
            if detail is not None:
                report_args["detail"] = detail
            calls.append(await _call(session, "probe_report", report_args))
            calls.append(await _call(session, "probe_disconnect", {"connectionId": cid}))
    return Session(
        server_name=init.server_info.name,
        server_version=init.server_info.version or "",
        instructions=init.instructions or "",
        tools=[t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools],
        calls=calls,
    )


# --------------------------------------------------------------------------- rendering


def _json_block(value: Any) -> str:
    return "```json\n" + json.dumps(value, indent=2, ensure_ascii=False) + "\n```\n"


def _trimmed_report(structured: dict[str, Any]) -> dict[str, Any]:
    """The report's structured content with the long lists replaced by their sizes."""
    shown: dict[str, Any] = {}
    for key, value in structured.items():
        if key == "markdown":
            shown[key] = value  # null: the Markdown is the text content, shown below
        elif key in ("findings", "fuzz") and isinstance(value, list):
            shown[key] = f"[{len(value)} entries]"
        elif key == "dimensions" and isinstance(value, list):
            shown[key] = [{k: d.get(k) for k in ("name", "score")} for d in value]
        else:
            shown[key] = value
    return shown


def _fence(text: str) -> str:
    ticks = "`" * max(4, 1 + max((len(r) for r in text.split("\n") if set(r) == {"`"}), default=0))
    return f"{ticks}markdown\n{text.rstrip()}\n{ticks}\n"


def _progress_line(call: Call) -> str:
    if not call.progress:
        return ""
    first = ", ".join(f"`{p}`" for p in call.progress[:3])
    return (
        f"While it ran, mcprobe sent {len(call.progress)} progress notifications "
        f"(one per finished case), starting {first}, ….\n\n"
    )


def _redact(text: str, redact: Sequence[str]) -> str:
    for prefix in redact:
        path, _, label = prefix.partition("=")
        text = text.replace(path, label or "$CACHE")
    return text


def render_agent_usage(session: Session) -> str:
    connect, report, disconnect = session.calls
    assert report.structured is not None
    rep = report.structured
    parts = [
        "# Using mcprobe from an agent\n\n",
        "This page is generated by `scripts/agent_session.py agent-usage`, which starts mcprobe "
        "as a stdio MCP server from the official MCP Python SDK client — exactly what a host "
        "such as Claude Desktop, Cursor or Claude Code does — and makes the calls below. "
        "Everything shown is real output of the current code (timings vary from run to run).\n\n",
        "## The request\n\n",
        f"> {REQUEST}\n\n",
        "## What the agent already knows\n\n",
        f"When the host starts mcprobe (`{session.server_name}` {session.server_version}), the "
        "handshake carries these instructions:\n\n",
        "```text\n" + session.instructions + "\n```\n\n",
        "and `tools/list` offers:\n\n",
        "| tool | annotations |\n|---|---|\n",
    ]
    for tool in session.tools:
        hints = ", ".join(f"{k}: {v}" for k, v in sorted(tool.get("annotations", {}).items()))
        parts.append(f"| `{tool['name']}` | {hints} |\n")
    parts += [
        "\n## Call 1 — connect to the target\n\n",
        "The agent starts the user's server through mcprobe (argv as given, no shell):\n\n",
        _json_block({"name": connect.tool, "arguments": connect.arguments}),
        f"\nResult ({connect.seconds:.1f} s), `structuredContent`:\n\n",
        _json_block(connect.structured),
        "\n## Call 2 — the report, with fuzzing\n\n",
        "Every tool of the demo target that is annotated read-only gets one valid and several "
        "malformed calls; the additive write `set_mode` and the un-annotated `reset_database` "
        "are not called, because nobody consented (`fuzzWrites`, `fuzzDestructive`).\n\n",
        _json_block({"name": report.tool, "arguments": report.arguments}),
        "\n",
        _progress_line(report),
        f"Result ({report.seconds:.1f} s), `structuredContent` (trimmed: the `findings` and "
        "`fuzz` lists are replaced by their sizes):\n\n",
        _json_block(_trimmed_report(rep)),
        "\nThe text content — the summary report the agent reads and summarises (every "
        'finding, call and check: `detail: "full"`) — verbatim:\n\n',
        _fence(report.text),
        "\n## Call 3 — disconnect\n\n",
        _json_block({"name": disconnect.tool, "arguments": disconnect.arguments}),
        "\nResult:\n\n",
        _json_block(disconnect.structured),
        "\n## What the agent answers\n\n",
        "A good answer leads with the score and the critical callout, then walks the "
        '"Recommended fixes" list top to bottom, quoting the tool and the arguments that '
        "reproduce each behavioural problem. For this run:\n\n",
        f"- **{rep.get('overall')}/100, grade {rep.get('grade')}.**\n",
    ]
    parts += [f"- Critical: {line}\n" for line in rep.get("critical", [])]
    parts.append(
        "- Then the fixes, in the report's order (see [checks.md](checks.md) for each code).\n"
    )
    return "".join(parts)


def render_transcript(session: Session, title: str, source: str, redact: Sequence[str]) -> str:
    connect, report = session.calls[0], session.calls[1]
    assert report.structured is not None
    args = json.dumps({"name": connect.tool, "arguments": connect.arguments}, indent=2)
    parts = [
        f"# Real-world transcript: {title}\n\n",
        f"{source}\n\n",
        "Generated by `scripts/transcripts`: the pinned release that `scripts/real_servers` "
        "installs from its package registry (into `$CACHE`) was audited through mcprobe's MCP "
        "server path (an SDK client spawned `mcprobe`, then `probe_connect` → `probe_report` "
        'with `fuzz: true, detail: "full"` → `probe_disconnect`), all of it inside a '
        "loopback-only network namespace (`unshare -rn`), with a fresh empty directory "
        "(`$FIXTURE`) as the server's working directory and HOME. The report below is the text "
        f"content of `probe_report`, verbatim ({report.seconds:.1f} s"
        + (f", {len(report.progress)} progress notifications" if report.progress else "")
        + ").\n\n",
        "```json\n" + args + "\n```\n\n",
        "---\n\n",
        report.text.rstrip() + "\n",
    ]
    return _redact("".join(parts), redact)


# --------------------------------------------------------------------------- CLI


def _fail(session: Session) -> int:
    for call in session.calls:
        if call.is_error:
            print(f"agent_session: {call.tool} failed: {call.text}", file=sys.stderr)
    return 1


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="mode", required=True)
    usage = sub.add_parser("agent-usage", help="write docs/agent-usage.md")
    usage.add_argument("--out", type=Path, default=ROOT / "docs" / "agent-usage.md")
    tr = sub.add_parser("transcript", help="audit one stdio server and write its report")
    tr.add_argument("--title", required=True)
    tr.add_argument("--out", type=Path, required=True)
    tr.add_argument("--source", default="")
    tr.add_argument(
        "--redact",
        action="append",
        default=[],
        help="PATH[=LABEL]: show PATH as LABEL (default $CACHE)",
    )
    tr.add_argument("--cwd", help="the target's working directory")
    tr.add_argument("--fuzz-destructive", action="store_true")
    tr.add_argument("command", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)

    if ns.mode == "agent-usage":
        # The exact interpreter, not "python": a host's PATH may not have the project's venv.
        connect = {"command": sys.executable, "args": ["-m", "demo_target"], "cwd": str(ROOT)}
        session = anyio.run(audit_through_mcp, connect)
        if session.failed:
            return _fail(session)
        text = render_agent_usage(session).replace(str(ROOT), "/path/to/mcprobe")
        text = text.replace(sys.executable, "/path/to/mcprobe/.venv/bin/python")
    else:
        command = ns.command[1:] if ns.command[:1] == ["--"] else ns.command
        if not command:
            parser.error("transcript needs a COMMAND after --")
        connect: dict[str, Any] = {"command": command[0], "args": command[1:]}
        if ns.cwd:
            connect["cwd"] = ns.cwd
        session = anyio.run(
            lambda: audit_through_mcp(connect, fuzz_destructive=ns.fuzz_destructive, detail="full")
        )
        if session.failed:
            return _fail(session)
        text = render_transcript(session, ns.title, ns.source, ns.redact)
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    ns.out.write_text(text, encoding="utf-8")
    print(f"agent_session: wrote {ns.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
