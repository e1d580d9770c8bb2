"""The MCP configs people already have: read them (``mcprobe audit --config FILE``) and find them
(``mcprobe scan``).

Formats read (all JSON; VS Code's JSONC comments and trailing commas are accepted):

- ``mcpServers`` objects — Claude Desktop ``claude_desktop_config.json``, Cursor
  ``.cursor/mcp.json``, Claude Code ``.mcp.json``, Windsurf ``mcp_config.json``, and Claude
  Code's ``~/.claude.json`` (top level and per project under ``projects``);
- ``servers`` objects — VS Code ``.vscode/mcp.json`` (and ``"mcp": {"servers": …}`` in a VS Code
  ``settings.json``).

Each server entry: ``command`` + ``args`` + ``env`` + ``cwd`` (stdio), or ``url`` + ``headers``
(HTTP; ``type`` ``http``/``sse``/``streamable-http``). Other keys (``disabled``, ``alwaysAllow``,
``envFile``…) belong to the host and are ignored. References are resolved from mcprobe's own
environment: ``${env:VAR}`` (VS Code, Cursor), ``${VAR}`` and ``${VAR:-default}`` (Claude Code),
``${userHome}``, ``${workspaceFolder}`` (the folder holding ``.vscode``/``.cursor``, or the
config's folder). A variable that is not set, or ``${input:…}`` (VS Code prompts for it), is a
usage error naming the variable and the server — never its value. Env and header values from a
config are secrets: they reach the target and are scrubbed from every report, log and error.

Stdlib only at import (pydantic checks the entries, imported when a config is read).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ConfigError", "HostServer", "find_configs", "read_config", "server_argv"]


class ConfigError(ValueError):
    """A host config that cannot be used, as one line (no secret values in it)."""


@dataclass(frozen=True)
class HostServer:
    name: str
    source: Path
    transport: str  # "stdio" | "http" | "sse"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    disabled: bool = False

    def describe(self) -> str:
        """For listings: the command or URL, env and header *names* only."""
        if self.transport == "stdio":
            import shlex

            text = shlex.join([self.command or "", *self.args])
            if self.env:
                text += f"  (env: {', '.join(sorted(self.env))})"
        else:
            text = self.url or ""
            if self.headers:
                text += f"  (headers: {', '.join(sorted(self.headers))})"
        return text


# --------------------------------------------------------------------------- JSONC


def strip_jsonc(text: str) -> str:
    """JSON with ``//`` and ``/* */`` comments and trailing commas → JSON (strings untouched)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(char)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


# --------------------------------------------------------------------------- references

_REFERENCE = re.compile(r"\$\{([^}]*)\}")


@dataclass(frozen=True)
class _Context:
    server: str
    environ: Mapping[str, str]
    workspace: Path
    home: str
    resolve: bool = True


def _resolve(text: str, ctx: _Context) -> str:
    if not ctx.resolve:
        return text

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        if inner.startswith("env:"):
            name, default = inner[4:], None
        elif inner == "userHome":
            return ctx.home
        elif inner in ("workspaceFolder", "workspaceRoot"):
            return str(ctx.workspace)
        elif inner.startswith("input:"):
            raise ConfigError(
                f"server {ctx.server!r}: ${{{inner}}} is asked from the user by VS Code; "
                "set the value in the config or pass it with --env/--header"
            )
        else:
            name, _, default = inner.partition(":-")
            if ":-" not in inner:
                default = None
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ConfigError(f"server {ctx.server!r}: cannot resolve ${{{inner}}}")
        value = ctx.environ.get(name)
        if value is None:
            if default is None:
                raise ConfigError(
                    f"server {ctx.server!r} uses ${{{inner}}} but {name} is not set in "
                    "mcprobe's environment"
                )
            return default
        return value

    return _REFERENCE.sub(one, text)


# --------------------------------------------------------------------------- reading


def _entries(data: Any) -> Iterator[tuple[str, Any]]:
    """(name, raw entry) from every shape this module knows."""
    if not isinstance(data, dict):
        return
    blocks = [data.get("mcpServers"), data.get("servers")]
    mcp = data.get("mcp")
    if isinstance(mcp, dict):
        blocks.append(mcp.get("servers"))
    projects = data.get("projects")  # ~/.claude.json: per-project servers
    if isinstance(projects, dict):
        blocks += [p.get("mcpServers") for p in projects.values() if isinstance(p, dict)]
    seen: set[str] = set()
    for block in blocks:
        if isinstance(block, dict):
            for name, entry in block.items():
                if name not in seen:
                    seen.add(name)
                    yield str(name), entry


def _workspace(path: Path) -> Path:
    folder = path.resolve().parent
    return folder.parent if folder.name in (".vscode", ".cursor") else folder


def read_config(
    path: Path,
    environ: Mapping[str, str] | None = None,
    *,
    resolve: bool = True,
    only: Collection[str] | None = None,
) -> list[HostServer]:
    """Every server of the host config at ``path``; ``ConfigError`` on a bad file or entry.
    ``resolve=False`` keeps ``${…}`` references as written (``mcprobe scan`` lists, never uses);
    ``only`` resolves just those servers (a variable another server needs may be unset)."""
    from pydantic import BaseModel, ConfigDict, ValidationError

    class Entry(BaseModel):
        model_config = ConfigDict(extra="ignore")
        type: str | None = None
        command: str | None = None
        args: list[str] = []
        env: dict[str, str] = {}
        cwd: str | None = None
        url: str | None = None
        serverUrl: str | None = None  # Windsurf's name for url
        headers: dict[str, str] = {}
        disabled: bool = False

    env = os.environ if environ is None else environ
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{str(path)!r} is not UTF-8 text") from None
    try:
        data = json.loads(strip_jsonc(text))
    except ValueError as exc:
        raise ConfigError(f"{str(path)!r} is not JSON: {exc}") from None
    servers = []
    for name, raw in _entries(data):
        try:
            entry = Entry.model_validate(raw)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise ConfigError(f"{str(path)!r}: server {name!r}: {where}: {error['msg']}") from None
        wanted = resolve and (only is None or name in only)
        ctx = _Context(name, env, _workspace(path), env.get("HOME", str(Path.home())), wanted)
        url = entry.url or entry.serverUrl
        kind = (entry.type or "").lower()
        if entry.command and not url:
            servers.append(
                HostServer(
                    name=name,
                    source=path,
                    transport="stdio",
                    command=_resolve(entry.command, ctx),
                    args=tuple(_resolve(a, ctx) for a in entry.args),
                    env={k: _resolve(v, ctx) for k, v in entry.env.items()},
                    cwd=_resolve(entry.cwd, ctx) if entry.cwd else None,
                    disabled=entry.disabled,
                )
            )
        elif url and not entry.command:
            servers.append(
                HostServer(
                    name=name,
                    source=path,
                    transport="sse" if kind == "sse" else "http",
                    url=_resolve(url, ctx),
                    headers={k: _resolve(v, ctx) for k, v in entry.headers.items()},
                    disabled=entry.disabled,
                )
            )
        else:
            raise ConfigError(
                f"{str(path)!r}: server {name!r} needs either 'command' (stdio) or 'url' (HTTP)"
            )
    return servers


def server_argv(server: HostServer) -> list[str]:
    """The ``mcprobe audit`` target arguments for ``server`` (values stay in-process)."""
    if server.transport == "stdio":
        argv: list[str] = []
        if server.cwd:
            argv += ["--cwd", server.cwd]
        for name, value in server.env.items():
            # Every value is a secret, as the module says (--secret-env), whatever its name:
            # redaction works on the target's strings only, so this corrupts no report.
            argv += ["--env", f"{name}={value}", "--secret-env", name]
        return [*argv, "--", server.command or "", *server.args]
    argv = []
    for name, value in server.headers.items():
        argv += ["--header", f"{name}: {value}"]
    return [*argv, server.url or ""]


# --------------------------------------------------------------------------- scan

# (host, path relative to HOME or to the working directory)
_USER_FILES = (
    ("Claude Desktop", ".config/Claude/claude_desktop_config.json"),
    ("Claude Desktop", "Library/Application Support/Claude/claude_desktop_config.json"),
    ("Cursor", ".cursor/mcp.json"),
    ("VS Code", ".config/Code/User/mcp.json"),
    ("VS Code", "Library/Application Support/Code/User/mcp.json"),
    ("Claude Code", ".claude.json"),
    ("Windsurf", ".codeium/windsurf/mcp_config.json"),
)
_PROJECT_FILES = (
    ("Cursor", ".cursor/mcp.json"),
    ("VS Code", ".vscode/mcp.json"),
    ("Claude Code", ".mcp.json"),
)


def find_configs(home: Path, cwd: Path) -> list[tuple[str, Path]]:
    """The well-known host config files that exist, user files first, each path once."""
    found: list[tuple[str, Path]] = []
    seen: set[Path] = set()
    candidates = [(host, home / rel) for host, rel in _USER_FILES]
    appdata = os.environ.get("APPDATA")
    if sys.platform == "win32" and appdata:
        candidates.append(("Claude Desktop", Path(appdata) / "Claude/claude_desktop_config.json"))
    candidates += [(host, cwd / rel) for host, rel in _PROJECT_FILES]
    for host, path in candidates:
        if path.is_file() and path.resolve() not in seen:
            seen.add(path.resolve())
            found.append((host, path))
    return found
