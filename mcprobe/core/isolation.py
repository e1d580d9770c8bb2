"""Isolation of stdio targets (SPEC §5.4): the modes, what a sandbox was made of, and the
bubblewrap command line for it, decided from facts the client gathered (pure: no I/O).

The sandbox is bubblewrap (``bwrap``, Debian package ``bubblewrap``): a well-kept setuid-free
tool (Flatpak's) that builds the namespaces, so mcprobe has no namespace code of its own. The
target sees:

- its own network namespace (only ``lo``): nothing it does reaches beyond loopback;
- the host filesystem read-only (``--ro-bind / /``), a private ``/dev``, ``/proc`` and ``/tmp``
  (a command installed under ``/tmp`` stays reachable: its top directory there is bound back
  read-only);
- every home directory (``/root``, ``/home``) replaced by an empty tmpfs, so ``HOME`` is fresh
  and the secret places in it (``~/.ssh``, ``~/.aws``, ``~/.config/gcloud``, ``~/.gnupg``,
  ``~/.netrc``, ``~/.docker``, ``~/.kube``...) are simply absent; what a server needs to start
  is bound back read-only (``~/.cache`` with the uv cache, ``~/.npm``, ``~/.local``, ``~/.nvm``,
  ``~/.cargo``..., and the top-level home directory of the command, its arguments and its cwd),
  with the secret places and ``.env`` files masked again on top;
- its cwd and every existing path named in its arguments, its env and the user's examples
  (``core/example_paths.py``) as **private writable copies** bound at the same paths (copies,
  not overlays: bubblewrap 0.8 in Debian 12 has no ``--overlay``, and an overlayfs in a user
  namespace needs kernel 5.11+; a copy works everywhere and its cost is bounded by
  ``COPY_LIMIT_BYTES`` / ``COPY_LIMIT_FILES``: a larger path is bound read-only instead, and
  the report says so);
- its own PID namespace (``--unshare-pid --die-with-parent``): when the target or mcprobe goes,
  the kernel kills every process inside, daemons included;
- resource limits (``Limits``: memory as ``RLIMIT_DATA``, processes, file size).

What isolation cannot protect: an HTTP target (mcprobe does not start it), and anything the
target does with ``--sandbox off``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, cast, get_args

from mcprobe.core.errors import UsageError

SandboxMode = Literal["auto", "required", "off"]
SANDBOX_MODES: tuple[str, ...] = get_args(SandboxMode)
DEFAULT_SANDBOX: SandboxMode = "auto"

COPY_LIMIT_BYTES = 64 * 1024 * 1024
COPY_LIMIT_FILES = 5_000

HOME_ROOTS: tuple[str, ...] = ("/root", "/home")
"""Replaced by an empty tmpfs inside the sandbox (every user's home, not only the caller's)."""

SECRET_PLACES: tuple[str, ...] = (
    ".ssh",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".gnupg",
    ".netrc",
    ".git-credentials",
    ".docker",
    ".kube",
    ".npmrc",
    ".pypirc",
    ".password-store",
)
"""Relative to a home directory: never readable inside the sandbox, even when bound back."""

TOOLCHAIN_PLACES: tuple[str, ...] = (
    ".cache",
    ".npm",
    ".local",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    ".cargo",
    ".rustup",
    ".pyenv",
    ".rye",
    ".asdf",
    ".sdkman",
    "go",
)
"""Relative to the home directory: bound back read-only (interpreters, venvs, npm/uv caches)."""

SYSTEM_ROOTS: tuple[str, ...] = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/var/lib",
    "/nix",
    "/snap",
)
"""Paths under these are never copied (named as a binary or a config, they are read-only)."""

ENV_FILE = re.compile(r"^\.env(?:\..*)?$")


def sandbox_mode(value: object) -> SandboxMode:
    """A checked sandbox mode; ``UsageError`` naming the choices otherwise."""
    if isinstance(value, str) and value in SANDBOX_MODES:
        return cast("SandboxMode", value)
    shown = repr(value) if isinstance(value, str) and len(value) <= 40 else "that value"
    raise UsageError(f"sandbox: unknown mode {shown}; expected one of {', '.join(SANDBOX_MODES)}")


@dataclass(frozen=True)
class Limits:
    """Per-process resource limits set on the sandbox (inherited by everything inside)."""

    memory_bytes: int = 2 * 1024 * 1024 * 1024  # RLIMIT_DATA: node and CPython start in 1 GiB
    processes: int = 4096  # RLIMIT_NPROC, per user (the host's root is exempt)
    file_bytes: int = 256 * 1024 * 1024  # RLIMIT_FSIZE: one file may not grow beyond

    def describe(self) -> str:
        return (
            f"memory {self.memory_bytes // (1024 * 1024)} MiB, {self.processes} processes, "
            f"files {self.file_bytes // (1024 * 1024)} MiB"
        )


@dataclass(frozen=True)
class Isolation:
    """How one stdio target ran: isolated (and with what), or not (and why)."""

    mode: SandboxMode
    isolated: bool
    tool: str | None = None  # e.g. "bubblewrap 0.8.0"
    reason: str | None = None  # why not isolated (None when isolated)
    copies: tuple[str, ...] = ()  # paths the target got as private writable copies
    read_only: tuple[str, ...] = ()  # named paths bound read-only (too large to copy, system)
    hidden: tuple[str, ...] = ()  # secret places of the real home that exist and are hidden
    limits: Limits | None = None

    def summary(self) -> str:
        """One line for reports and consoles."""
        if not self.isolated:
            why = f": {self.reason}" if self.reason and self.mode != "off" else ""
            return f"not isolated (sandbox {self.mode}{why})"
        parts = [
            f"isolated with {self.tool or 'a sandbox'}: network loopback only, host filesystem "
            "read-only, private /tmp and HOME, own PID namespace"
        ]
        if self.copies:
            parts.append("private writable copies of " + ", ".join(self.copies))
        if self.read_only:
            parts.append("read-only (not copied): " + ", ".join(self.read_only))
        if self.limits is not None:
            parts.append("limits: " + self.limits.describe())
        return "; ".join(parts)


NOT_STARTED = "an HTTP target is not started by mcprobe, so it cannot be isolated"
FILE_LIMIT_DEATH = "a file grew past the sandbox's file-size limit"
"""How ``stopped_by`` names a death at the sandbox's RLIMIT_FSIZE: the limit's doing, not the
server's (``calls/classify`` makes such a crash inconclusive)."""
MEMORY_LIMIT_DEATH = "an allocation failed at the sandbox's memory limit"
"""How ``stopped_by`` names a death whose stderr says memory ran out, in the sandbox: its
RLIMIT_DATA makes an allocation fail (the server's own handling of that is judged, as a
crash), where the kernel's out-of-memory killer sends SIGKILL with nothing written."""

_OUT_OF_MEMORY = re.compile(
    r"\bMemoryError\b|JavaScript heap out of memory|Cannot allocate memory|std::bad_alloc"
    r"|\bout of memory\b|memory allocation of \d+ bytes failed",
    re.IGNORECASE,
)


def out_of_memory(stderr_tail: str) -> bool:
    """Whether a dead target's last stderr says an allocation failed (CPython's MemoryError,
    Node's heap limit, ENOMEM, C++'s bad_alloc, Go's and Rust's out-of-memory aborts)."""
    return _OUT_OF_MEMORY.search(stderr_tail) is not None


@dataclass(frozen=True)
class PathFacts:
    """What the client found about one path named by the target's command line, cwd or env."""

    path: str  # absolute, normalised
    is_dir: bool
    size_bytes: int  # total, for a directory its files'
    files: int


@dataclass(frozen=True)
class SandboxFacts:
    """Everything ``plan_sandbox`` needs, gathered by the client."""

    home: str
    cwd: str
    named: tuple[PathFacts, ...]  # cwd, args, env values that exist (cwd first)
    commands: tuple[str, ...]  # the resolved executable and its script's interpreter
    toolchain: tuple[str, ...]  # existing TOOLCHAIN_PLACES of HOME and of the user's real home
    secrets: tuple[str, ...]  # existing SECRET_PLACES of HOME and of the user's real home
    env_files: tuple[str, ...] = ()  # .env files in the directories bound back read-only
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True)
class SandboxPlan:
    """The bubblewrap arguments (before ``--`` and the target's argv) and the copies to make
    (source → index into the plan's copy directory)."""

    bwrap_args: tuple[str, ...]
    copies: tuple[str, ...]  # sources, copied to <copy dir>/<index>
    read_only: tuple[str, ...]
    hidden: tuple[str, ...]


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _home_root(path: str) -> str | None:
    return next((root for root in HOME_ROOTS if _under(path, root)), None)


def _top_in_home(path: str, home: str) -> str | None:
    """The first directory below a home root on ``path`` (``/root/proj`` for
    ``/root/proj/src/x.py``; ``/home/u`` for a path in another user's home), or None."""
    root = _home_root(path)
    if root is None:
        return None
    base = home if _under(path, home) and _home_root(home) == root else root
    rest = path[len(base) :].lstrip("/")
    if not rest:
        return base
    return base.rstrip("/") + "/" + rest.split("/", 1)[0]


PRIVATE_TMP = "/tmp"
"""Replaced by an empty tmpfs inside the sandbox, like the home roots."""


def _top_in_tmp(path: str) -> str | None:
    """The first directory below ``/tmp`` on ``path`` (``/tmp/ci.x`` for
    ``/tmp/ci.x/p/.venv/bin/python``), or None: a command installed there must stay reachable
    once the sandbox's private ``/tmp`` covers the host's."""
    rest = path[len(PRIVATE_TMP) :].lstrip("/") if _under(path, PRIVATE_TMP) else ""
    return f"{PRIVATE_TMP}/{rest.split('/', 1)[0]}" if rest else None


def _secret(path: str, home: str) -> bool:
    for root in (home, *HOME_ROOTS):
        for place in SECRET_PLACES:
            if _under(path, root.rstrip("/") + "/" + place):
                return True
    return False


def copyable(facts: PathFacts) -> bool:
    if any(_under(facts.path, root) for root in SYSTEM_ROOTS) or facts.path == "/":
        return False
    return facts.size_bytes <= COPY_LIMIT_BYTES and facts.files <= COPY_LIMIT_FILES


def plan_sandbox(facts: SandboxFacts) -> SandboxPlan:
    """The bubblewrap command line for one target (order matters: later mounts cover earlier)."""
    args: list[str] = [
        "--die-with-parent",
        "--unshare-all",  # user, ipc, pid, net (only lo), uts, cgroup
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        PRIVATE_TMP,
    ]
    for root in HOME_ROOTS:
        args += ["--tmpfs", root]
    args += ["--dir", facts.home]
    exposed: list[str] = list(facts.toolchain)
    named = [n.path for n in facts.named]
    for path in [*facts.commands, *named]:
        top = _top_in_home(path, facts.home)
        if top is not None and top not in exposed and not _secret(top, facts.home):
            exposed.append(top)
    for path in facts.commands:  # named paths under /tmp get private copies below
        top = _top_in_tmp(path)
        if top is not None and top not in exposed:
            exposed.append(top)
    for path in exposed:
        args += ["--ro-bind-try", path, path]
    copies: list[str] = []
    read_only: list[str] = []
    for item in facts.named:
        if _secret(item.path, facts.home):
            continue
        if item.path in copies or item.path in read_only:
            continue
        if copyable(item):
            args += ["--bind", f"{{copy{len(copies)}}}", item.path]
            copies.append(item.path)
        else:  # bound again: under /tmp or a home root the private mounts would hide it
            args += ["--ro-bind-try", item.path, item.path]
            read_only.append(item.path)
    hidden: list[str] = []
    for path in facts.secrets:
        hidden.append(path)
        if any(_under(path, e) for e in [*exposed, *copies]):
            file = hidden_file(path.rsplit("/", 1)[-1])
            args += ["--ro-bind", "/dev/null", path] if file else ["--tmpfs", path]
    for env_file in facts.env_files:
        args += ["--ro-bind", "/dev/null", env_file]
    args += ["--chdir", facts.cwd, "--setenv", "HOME", facts.home]
    args += ["--setenv", "TMPDIR", "/tmp"]
    return SandboxPlan(tuple(args), tuple(copies), tuple(read_only), tuple(hidden))


def hidden_file(place: str) -> bool:
    """Whether a secret place is a file (masked with /dev/null) rather than a directory."""
    return place in (".netrc", ".git-credentials", ".npmrc", ".pypirc")
