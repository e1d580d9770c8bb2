"""Pinning (SPEC §5.2), pure: ``mcprobe pin`` writes a lock of the server's identity and every
tool definition with a content hash; ``audit --lock`` compares a fresh listing with it.

The lock is canonical JSON (sorted keys, tools sorted by name, two-space indent), so the same
server gives the same bytes and a lock diffs well in review. A tool's hash is the sha256 of its
definition (``rug_pull.DEFINITION_FIELDS`` that are present) as compact sorted JSON.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from mcprobe.core.errors import UsageError
from mcprobe.core.lint.security_text import shown
from mcprobe.core.model import ServerSnapshot
from mcprobe.core.security.rug_pull import DEFINITION_FIELDS, field_diff
from mcprobe.report.model import DriftOut, ToolDriftOut
from mcprobe.report.redact import Redactor

__all__ = ["LOCK_VERSION", "Lock", "drift_against", "lock_of", "lock_text", "parse_lock"]

LOCK_VERSION = 1


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _definition(entry: Any) -> dict[str, Any]:
    if not isinstance(entry, dict):
        return {"malformed": entry}
    return {key: entry[key] for key in DEFINITION_FIELDS if key in entry}


def definition_hash(definition: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(_canonical(definition).encode("utf-8", "replace")).hexdigest()


def lock_of(snapshot: ServerSnapshot, redactor: Redactor | None = None) -> dict[str, Any]:
    """The lock of ``snapshot``: identity and every tool definition with its hash.

    ``redactor``: the secrets are scrubbed from the target's strings first, and the hash is of
    the definition as the lock shows it (a hash of the raw text would let anyone holding the
    lock test guesses of a weak secret offline). ``audit --lock`` scrubs the same way, so pin
    and audit agree when given the same secrets."""
    redactor = redactor or Redactor()
    tools = []
    for index, entry in enumerate(snapshot.tools):
        definition = {k: redactor.value(v) for k, v in _definition(entry).items()}
        name = definition.get("name")
        tools.append(
            {
                "name": name if isinstance(name, str) else f"#{index}",
                "sha256": definition_hash(definition),
                "definition": definition,
            }
        )
    tools.sort(key=lambda tool: (tool["name"], tool["sha256"]))
    return {
        "lockVersion": LOCK_VERSION,
        "server": {
            "name": redactor.value(snapshot.name),
            "version": redactor.value(snapshot.version),
            "protocolVersion": redactor.value(snapshot.protocol_version),
        },
        "tools": tools,
    }


def lock_text(snapshot: ServerSnapshot, redactor: Redactor | None = None) -> str:
    lock = lock_of(snapshot, redactor)
    return json.dumps(lock, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


class _LockServer(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    name: str | None = None
    version: str | None = None
    protocolVersion: str | None = None  # the lock's wire name


class _LockTool(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    sha256: str
    definition: dict[str, Any]


class Lock(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lockVersion: int
    server: _LockServer
    tools: list[_LockTool]


def parse_lock(text: str, where: str = "the lock") -> Lock:
    """A lock file's text, checked; ``UsageError`` with one line when it is not a lock."""
    try:
        lock = Lock.model_validate(json.loads(text))
    except (ValueError, ValidationError) as exc:
        first = exc.errors()[0] if isinstance(exc, ValidationError) else None
        why = f"{'/'.join(str(p) for p in first['loc'])}: {first['msg']}" if first else "not JSON"
        message = f"{where} is not an mcprobe lock ({why}); write one with mcprobe pin"
        raise UsageError(message) from None
    if lock.lockVersion != LOCK_VERSION:
        raise UsageError(f"{where} has lockVersion {lock.lockVersion}; expected {LOCK_VERSION}")
    for tool in lock.tools:
        # Drift compares hashes: a definition edited without its hash would read "no drift".
        if definition_hash(tool.definition) != tool.sha256:
            raise UsageError(
                f"{where}: tool {shown(tool.name)!r}: its sha256 does not match its definition "
                "(edited by hand?); write the lock again with mcprobe pin"
            )
    return lock


def drift_against(
    lock: Lock, snapshot: ServerSnapshot, redactor: Redactor | None = None
) -> DriftOut:
    """What changed between ``lock`` and the server as listed now (scrubbed as ``lock_of``
    does). Only tool definitions are drift; a changed server identity (a new version) is shown
    beside it."""
    current_lock = lock_of(snapshot, redactor)
    now = {tool["name"]: tool for tool in current_lock["tools"]}
    pinned = {tool.name: tool for tool in lock.tools}
    changed = []
    for name in sorted(set(pinned) & set(now)):
        before, after = pinned[name], now[name]
        if before.sha256 == after["sha256"]:
            continue
        lines = []
        for key in DEFINITION_FIELDS:
            line = field_diff(before.definition.get(key), after["definition"].get(key))
            if line is not None:
                lines.append(f"{key}: {line}")
        changed.append(ToolDriftOut(tool=name, changes=lines or ["the definition hash differs"]))
    identity = []
    current = current_lock["server"]
    for key in ("name", "version", "protocolVersion"):
        line = field_diff(getattr(lock.server, key), current[key])
        if line is not None:
            identity.append(f"{key}: {line}")
    return DriftOut(
        added=[shown(n) for n in sorted(set(now) - set(pinned))],
        removed=[shown(n) for n in sorted(set(pinned) - set(now))],
        changed=changed,
        server=identity,
    )
