"""Start a stdio target inside bubblewrap (``core/isolation.py`` says what the sandbox is).

This module does the I/O: finds ``bwrap`` and checks once per process that it can build the
namespaces here (a container without user namespaces cannot), gathers the facts about the paths
the target names, makes the private copies in a fresh ``0700`` directory, and removes that
directory when the target is gone (``release``). Standard library only: the CLI starts its
target through it before the heavy imports.

The process mcprobe holds is bubblewrap's outer process (host pid namespace), which stays in
the target's process group: ``stdio.py``'s close sequence (EOF, SIGTERM, SIGKILL to the group),
``descendants.py`` (the host ``/proc`` shows every process of the sandbox with its host pid) and
``lifeline.py`` (PDEATHSIG and the watchdog on the outer process) keep working unchanged, and
``--die-with-parent`` plus the PID namespace add the kernel's guarantee: when bubblewrap's
process goes, everything inside is killed.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcprobe.client.transports.lifeline import SANDBOX_PREFIX, lifeline
from mcprobe.core.errors import UsageError
from mcprobe.core.isolation import (
    COPY_LIMIT_BYTES,
    COPY_LIMIT_FILES,
    ENV_FILE,
    FILE_LIMIT_DEATH,
    HOME_ROOTS,
    MEMORY_LIMIT_DEATH,
    SECRET_PLACES,
    TOOLCHAIN_PLACES,
    Isolation,
    Limits,
    PathFacts,
    SandboxFacts,
    SandboxMode,
    out_of_memory,
    plan_sandbox,
)

__all__ = ["Prepared", "bwrap_problem", "isolation_of", "prepare", "release", "start"]

_PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Prepared:
    """A target's argv and cwd, wrapped in the sandbox or not, and its copy directory."""

    argv: tuple[str, ...]
    cwd: str | None
    isolation: Isolation
    workdir: str | None = None  # the copies (removed by ``release``)


_LOCK = threading.Lock()
_BY_PID: dict[int, Prepared] = {}


@functools.cache
def _bwrap() -> tuple[str | None, str | None]:
    """(path, version) of a usable bwrap, or (None, why not). Probed once per process."""
    path = shutil.which("bwrap")
    if path is None:
        return None, "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
    probe = [path, "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/"]
    probe += ["--proc", "/proc", "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=_PROBE_TIMEOUT, check=False)
        version = subprocess.run(
            [path, "--version"], capture_output=True, timeout=_PROBE_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bubblewrap could not be run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, "bubblewrap cannot create namespaces here" + (f" ({why[-1]})" if why else "")
    return path, version.stdout.decode("utf-8", "replace").strip() or "bubblewrap"


def bwrap_problem() -> str | None:
    """Why no sandbox can be made here, or None when bubblewrap works."""
    if os.name != "posix" or not os.path.exists("/proc/self/ns"):
        return "isolation needs Linux namespaces (bubblewrap); this OS has none"
    try:
        own_proc = int(os.readlink("/proc/self")) == os.getpid()
    except (OSError, ValueError):
        own_proc = False
    if not own_proc:  # bwrap reads /proc/<its pid>/ns: it would open another process's
        return (
            "the /proc mounted here belongs to another PID namespace (e.g. unshare --pid "
            "without --mount-proc), so bubblewrap cannot find its own namespaces"
        )
    path, detail = _bwrap()
    return None if path is not None else detail


def _measure(path: str) -> tuple[int, int]:
    """(bytes, files) under ``path``, stopping once past the copy limits."""
    if not os.path.isdir(path) or os.path.islink(path):
        return os.lstat(path).st_size, 1
    size = files = 0
    for root, _dirs, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(root, name)).st_size
            files += 1
            if size > COPY_LIMIT_BYTES or files > COPY_LIMIT_FILES:
                return size, files
    return size, files


def _named_paths(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: str,
    paths: Sequence[str] = (),
) -> list[str]:
    """The existing paths the target's arguments, env values and ``paths`` (those of the user's
    examples) name (absolute, normalised; relative ones from the target's cwd)."""
    candidates: list[str] = []
    for arg in args:
        candidates.append(arg)
        if arg.startswith("-") and "=" in arg:
            candidates.append(arg.split("=", 1)[1])
    candidates += [*env.values(), *paths]
    found: list[str] = []
    for value in candidates:
        if not value or "\n" in value or len(value) > 4096:
            continue
        if not (value.startswith(("/", "./", "../", "~")) or os.sep in value):
            continue
        path = os.path.normpath(os.path.join(cwd, os.path.expanduser(value)))
        if path != "/" and os.path.lexists(path) and path not in found:
            found.append(path)
    return found


def _facts(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: str,
    home: str,
    paths: Sequence[str] = (),
) -> SandboxFacts:
    named: list[PathFacts] = []
    for path in [cwd, *_named_paths(command, args, env, cwd, paths)]:
        # The home itself is where the fresh HOME goes (HOME=/root is configuration, not data).
        if any(n.path == path for n in named) or path in (home, *HOME_ROOTS):
            continue
        size, files = _measure(path)
        named.append(PathFacts(path, os.path.isdir(path), size, files))
    homes = list(dict.fromkeys([home, _real_home()]))
    toolchain = [os.path.join(h, p) for h in homes for p in TOOLCHAIN_PLACES]
    secrets = [os.path.join(h, p) for h in homes for p in SECRET_PLACES]
    env_files = []
    for item in named:
        if item.is_dir:
            with contextlib.suppress(OSError):
                env_files += [
                    os.path.join(item.path, n) for n in os.listdir(item.path) if ENV_FILE.match(n)
                ]
    return SandboxFacts(
        home=home,
        cwd=cwd,
        named=tuple(named),
        commands=_commands(command),
        toolchain=tuple(p for p in toolchain if os.path.isdir(p)),
        secrets=tuple(p for p in secrets if os.path.lexists(p)),
        env_files=tuple(sorted(env_files)),
        limits=Limits(),
    )


def _real_home() -> str:
    """The user's home by the password database (HOME may point elsewhere)."""
    try:
        import pwd

        return os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):
        return os.path.realpath(os.path.expanduser("~"))


def _commands(command: str) -> tuple[str, ...]:
    """The executable (resolved on PATH, symlinks followed) and, for a script, the interpreter
    of its ``#!`` line (a venv's ``python`` is a symlink into e.g. ``~/.pyenv``)."""
    found = shutil.which(command) if os.sep not in command else command
    if not found:
        return ()
    paths = [os.path.abspath(found), os.path.realpath(found)]
    with contextlib.suppress(OSError):
        with open(found, "rb") as script:
            first = script.readline(512)
        if first.startswith(b"#!"):
            words = first[2:].decode("utf-8", "replace").split()
            if words:
                paths += [os.path.abspath(words[0]), os.path.realpath(words[0])]
    return tuple(dict.fromkeys(paths))


def _ignore(_root: str, names: list[str]) -> set[str]:
    return {n for n in names if ENV_FILE.match(n) or n in (".ssh", ".aws", ".gnupg", ".netrc")}


def _copy(source: str, dest: str) -> None:
    if os.path.isdir(source) and not os.path.islink(source):
        shutil.copytree(source, dest, symlinks=True, ignore=_ignore)
    else:
        shutil.copy2(source, dest, follow_symlinks=False)


def prepare(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str | None,
    mode: SandboxMode,
    named_env: Mapping[str, str] | None = None,
    paths: Sequence[str] = (),
) -> Prepared:
    """The argv to start (bwrap + the target's, or the target's alone), with the copies made.
    ``env`` is the target's whole environment, ``named_env`` the part the user gave (its path
    values get copies; default: all of ``env``); ``paths``: more path-shaped strings the target
    will be handed (the user's examples), copied like the arguments' paths when they exist.
    ``UsageError`` when ``mode`` is ``required`` and no sandbox can be made here."""
    if mode == "off":
        return Prepared(tuple(argv), cwd, Isolation("off", False))
    problem = bwrap_problem()
    if problem is not None:
        if mode == "required":
            raise UsageError(f"sandbox required, but no isolation is possible here: {problem}")
        return Prepared(tuple(argv), cwd, Isolation(mode, False, reason=problem))
    bwrap, version = _bwrap()
    assert bwrap is not None
    real_cwd = os.path.realpath(cwd or os.getcwd())
    home = os.path.realpath(env.get("HOME") or os.path.expanduser("~"))
    named = env if named_env is None else named_env
    facts = _facts(argv[0], argv[1:], named, real_cwd, home, paths)
    plan = plan_sandbox(facts)
    workdir = tempfile.mkdtemp(prefix=SANDBOX_PREFIX)
    try:
        sources = {}
        for index, source in enumerate(plan.copies):
            dest = os.path.join(workdir, str(index))
            _copy(source, dest)
            sources[f"{{copy{index}}}"] = dest
        wrapped = [sources.get(a, a) for a in plan.bwrap_args]
    except OSError as exc:
        shutil.rmtree(workdir, ignore_errors=True)
        if mode == "required":
            raise UsageError(f"sandbox required, but a private copy failed: {exc}") from None
        return Prepared(tuple(argv), cwd, Isolation(mode, False, reason=f"copy failed: {exc}"))
    isolation = Isolation(
        mode,
        True,
        tool=version,
        copies=plan.copies,
        read_only=plan.read_only,
        hidden=plan.hidden,
        limits=facts.limits,
    )
    return Prepared(_own_stdout(bwrap, wrapped, argv), real_cwd, isolation, workdir)


_SH = "/bin/sh"
_OUTSIDE = 'exec 3>&1 1>/dev/null; exec "$@"'
_INSIDE = 'exec 1>&3 3>&-; exec "$@"'


def _own_stdout(bwrap: str, wrapped: Sequence[str], argv: Sequence[str]) -> tuple[str, ...]:
    """bwrap's argv with the target's stdout pipe held by the target alone (issue 22 item 3).

    Both bubblewrap processes (the outer monitor and the PID namespace's init) keep fds 0-2 and
    close every other fd they inherited (bubblewrap's ``close_extra_fds``). With the pipe on
    their fd 1 they held its write end open, so a target that closed its stdout and stayed alive
    never gave mcprobe end-of-file: every call waited its timeout. So a shell outside moves the
    pipe to fd 3 and gives bwrap ``/dev/null`` as fd 1, then execs bwrap (same pid, same
    process group); a shell inside moves fd 3 back to 1 and execs the target. A closed stdout
    is then end-of-file at once, exactly as without the sandbox."""
    inner = (_SH, "-c", _INSIDE, "sh", *argv)
    return (_SH, "-c", _OUTSIDE, "sh", bwrap, *wrapped, "--", *inner)


def rlimits(prepared: Prepared) -> tuple[tuple[int, int], ...]:
    """The ``(RLIMIT_*, value)`` pairs ``popen_target`` sets for a sandboxed target."""
    limits = prepared.isolation.limits
    if limits is None:
        return ()
    import resource

    return (
        (resource.RLIMIT_DATA, limits.memory_bytes),
        (resource.RLIMIT_NPROC, limits.processes),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
    )


def start(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str | None,
    mode: SandboxMode,
    named_env: Mapping[str, str] | None = None,
    paths: Sequence[str] = (),
) -> subprocess.Popen[bytes]:
    """Start a stdio target (``lifeline.popen_target``), in the sandbox unless ``mode`` is
    ``off`` or (``auto``) none can be made. ``UsageError`` for ``required`` without isolation;
    ``OSError`` when it cannot be started."""
    from mcprobe.client.transports.lifeline import popen_target

    prepared = prepare(argv, env=env, cwd=cwd, mode=mode, named_env=named_env, paths=paths)
    try:
        popen = popen_target(prepared.argv, env=env, cwd=prepared.cwd, limits=rlimits(prepared))
    except OSError:
        if prepared.workdir is not None:
            shutil.rmtree(prepared.workdir, ignore_errors=True)
        raise
    adopt(popen.pid, prepared)
    return popen


def adopt(pid: int, prepared: Prepared) -> None:
    """Remember which sandbox a started process runs in (``isolation_of``, ``release``)."""
    with _LOCK:
        _BY_PID[pid] = prepared
    if prepared.workdir is not None:  # removed by the watchdog if mcprobe is SIGKILLed
        lifeline().remove_on_death(pid, prepared.workdir)


def isolation_of(pid: int) -> Isolation | None:
    with _LOCK:
        prepared = _BY_PID.get(pid)
    return prepared.isolation if prepared is not None else None


def release(pid: int) -> None:
    """The target is gone: remove its private copies (a no-op for an unknown pid)."""
    with _LOCK:
        prepared = _BY_PID.pop(pid, None)
    if prepared is not None and prepared.workdir is not None:
        shutil.rmtree(prepared.workdir, ignore_errors=True)


def stopped_by(code: int, isolation: Isolation | None, stderr_tail: str = "") -> str:
    """What an exit code says beyond itself: the signal that ended the target (a negative code
    from Python, 128 + N from bubblewrap, which relays its child's death that way) and, in the
    sandbox, the limit it hit: SIGXFSZ is the file-size limit; a death whose ``stderr_tail``
    says memory ran out is the memory limit (an allocation failed), told apart from a SIGKILL
    with nothing said (the kernel's out-of-memory killer); "" for an ordinary exit."""
    isolated = isolation is not None and isolation.isolated
    number = -code if code < 0 else code - 128 if isolated and 128 < code < 128 + 65 else None
    limits = isolation.limits if isolation is not None and isolated else None
    memory = ""
    if limits is not None and out_of_memory(stderr_tail):
        memory = f"{MEMORY_LIMIT_DEATH}, {limits.memory_bytes // (1024 * 1024)} MiB"
    if number is None:
        return f" ({memory})" if memory and code != 0 else ""
    try:
        name = signal.Signals(number).name
    except ValueError:
        return ""
    why = f" (killed by {name}"
    if memory and number != signal.SIGKILL:  # Node aborts (SIGABRT/SIGTRAP) on its heap limit
        return f"{why}: {memory})"
    if number == signal.SIGKILL and limits is not None:
        return (
            f"{why}: not the sandbox's memory limit, which fails an allocation instead; the "
            "kernel's out-of-memory killer sends SIGKILL)"
        )
    if number == signal.SIGXFSZ:
        cap = f", {limits.file_bytes // (1024 * 1024)} MiB" if limits is not None else ""
        why += (
            f": {FILE_LIMIT_DEATH}{cap}" if isolated else ": a file grew past the file-size limit"
        )
    return why + ")"
