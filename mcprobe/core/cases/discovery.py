"""Values the server names itself, as realistic bases for its valid calls (issue 23 item 8,
shared with the deep fuzzing of issue 25).

A placeholder such as ``"example.txt"`` for a ``repo_path`` is refused by any server that serves
one repository or a few allowed directories, so its valid call proves nothing and every silent
acceptance behind it stays hidden. The server often says which values are real: the repository
root or the allowed directories it was started with (``mcp-server-git --repository /srv/repo``,
``server-filesystem /srv/docs``). ``discover_values`` reads them from the target's own command
line and proposes them, first, for the parameters whose name says they take such a directory.

Pure: the arguments are only read as text (nothing is checked on disk). A value found here is
still mcprobe's choice, so a case built on it keeps the provenance ``synthesized`` (a refusal of
it stays inconclusive); every value is validated against the parameter's schema before use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from mcprobe.core.model import JSON

__all__ = ["DIRECTORY_NAMES", "REPOSITORY_NAMES", "discover_values", "normalised"]

# Parameter names (normalised: lower case, no separators) that take a repository root ...
REPOSITORY_NAMES = frozenset({"repopath", "repository", "repo", "repodir", "repositorypath"})
# ... and those that take a directory the server was given.
DIRECTORY_NAMES = frozenset(
    {
        "path",
        "dir",
        "directory",
        "dirpath",
        "directorypath",
        "folder",
        "root",
        "rootpath",
        "basedir",
        "workdir",
        "cwd",
        "workingdirectory",
    }
)
_REPO_FLAGS = frozenset({"--repository", "--repo", "-r", "--repo-path", "--repository-path"})
_MAX = 5  # values proposed per parameter name


def _absolute(arg: str) -> bool:
    return arg.startswith("/") and "\n" not in arg and len(arg) <= 4096


def _flag_value(args: Sequence[str], index: int) -> tuple[str, str] | None:
    """(flag, value) for ``--flag VALUE`` at ``index`` or ``--flag=VALUE``."""
    arg = args[index]
    if "=" in arg and arg.startswith("-"):
        flag, _, value = arg.partition("=")
        return flag, value
    if arg.startswith("-") and index + 1 < len(args):
        return arg, args[index + 1]
    return None


def normalised(name: str) -> str:
    """A parameter name as the tables above spell it (``repo_path`` -> ``repopath``)."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def discover_values(args: Sequence[str]) -> Mapping[str, tuple[JSON, ...]]:
    """Normalised parameter name -> the values the server's own arguments name for it, in the
    order given: a repository root after ``--repository`` (or ``--repo``), and every absolute
    path among the arguments (a bare one, or a flag's value) as a directory. The program itself
    (``args[0]`` is not included by callers) and paths into package installs are left out."""
    repos: list[str] = []
    dirs: list[str] = []
    for index, arg in enumerate(args):
        pair = _flag_value(args, index)
        if pair is not None and pair[0] in _REPO_FLAGS and _absolute(pair[1]):
            repos.append(pair[1].rstrip("/") or "/")
        if _absolute(arg) and not _installed(arg):
            dirs.append(arg.rstrip("/") or "/")
        elif pair is not None and "=" in arg and _absolute(pair[1]) and not _installed(pair[1]):
            dirs.append(pair[1].rstrip("/") or "/")
    found: dict[str, tuple[JSON, ...]] = {}
    repo_values = tuple(dict.fromkeys(repos))[:_MAX]
    dir_values = tuple(dict.fromkeys(dirs))[:_MAX]
    if repo_values:
        found.update(dict.fromkeys(REPOSITORY_NAMES, repo_values))
    if dir_values:
        found.update(dict.fromkeys(DIRECTORY_NAMES, dir_values))
        for name in REPOSITORY_NAMES:
            found.setdefault(name, dir_values)
    return found


_INSTALLED = re.compile(r"/(?:node_modules|site-packages|dist-packages|\.venv|venv[\w-]*|bin)/")


def _installed(path: str) -> bool:
    """A path into an interpreter's or package manager's install (the server's own code or
    binary), not a directory it serves."""
    return bool(_INSTALLED.search(path)) or path.endswith((".js", ".mjs", ".cjs", ".py"))
