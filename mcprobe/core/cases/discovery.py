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

The environment the server was started with names such places too (``ALLOWED_DIR=/srv/docs``,
``DB_PATH=/srv/shop.db``, ``REPO_ROOT=/srv/repo``: an absolute path under a name that says so).
And a directory alone is no file: ``read_file(path=/srv/docs)`` is refused for being a
directory. The engine looks at the named paths (``files``: a directory → a few regular files
in it; a file → None), so a file-like parameter gets a file inside the allowed directory, a
database parameter the database file, and ``path`` both, files first for a tool whose name
says it works on one file (``for_tool``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from mcprobe.core.model import JSON

__all__ = [
    "DATABASE_NAMES",
    "DIRECTORY_NAMES",
    "FILE_NAMES",
    "REPOSITORY_NAMES",
    "discover_values",
    "for_tool",
    "normalised",
    "start_env_paths",
]

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
# ... those that take one file ...
FILE_NAMES = frozenset({"file", "filepath", "fullpath", "inputfile", "targetfile", "sourcefile"})
# ... and those that take a database file.
DATABASE_NAMES = frozenset(
    {"db", "dbpath", "dbfile", "database", "databasepath", "databasefile", "sqlitepath"}
)
_DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3", ".duckdb")
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


def discover_values(
    args: Sequence[str],
    env: Sequence[tuple[str, str]] = (),
    files: Mapping[str, tuple[str, ...] | None] | None = None,
) -> Mapping[str, tuple[JSON, ...]]:
    """Normalised parameter name -> the values the server's own arguments name for it, in the
    order given: a repository root after ``--repository`` (or ``--repo``), and every absolute
    path among the arguments (a bare one, or a flag's value) as a directory. The program itself
    (``args[0]`` is not included by callers) and paths into package installs are left out.

    ``env``: (name, value) pairs of the start environment that name a path
    (``start_env_paths``), read like the arguments (a ``REPO`` name is a repository root).
    ``files``: what the engine saw at some of these paths — a directory's first regular files,
    or None for a path that is a file; a path it did not see stays a directory."""
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
    for name, value in env:
        path = value.rstrip("/") or "/"
        dirs.append(path)
        if "REPO" in name.upper():
            repos.append(path)
    seen = files or {}
    plain = [d for d in dict.fromkeys(dirs) if d not in seen or seen[d] is not None]
    inside = [f for d in plain for f in (seen.get(d) or ())]
    single = [d for d in dict.fromkeys(dirs) if d in seen and seen[d] is None]
    file_values = tuple(dict.fromkeys([*single, *inside]))[:_MAX]
    found: dict[str, tuple[JSON, ...]] = {}
    repo_values = tuple(dict.fromkeys(repos))[:_MAX]
    dir_values = tuple(plain)[:_MAX]
    if repo_values:
        found.update(dict.fromkeys(REPOSITORY_NAMES, repo_values))
    if dir_values:
        found.update(dict.fromkeys(DIRECTORY_NAMES, dir_values))
        for name in REPOSITORY_NAMES:
            found.setdefault(name, dir_values)
    if file_values:
        found.update(dict.fromkeys(FILE_NAMES, file_values))
        found["path"] = (*dir_values, *file_values)
        databases = tuple(f for f in file_values if f.lower().endswith(_DATABASE_SUFFIXES))
        if databases:
            found.update(dict.fromkeys(DATABASE_NAMES, databases))
    return found


_ONE_FILE = re.compile(
    r"(^|_)(read|write|edit|append|open|cat|head|tail|file|info|stat|hash|checksum|download|"
    r"upload|delete|remove|rm|copy|move|rename|media|text|content|contents)s?($|_)"
)
_MANY = re.compile(
    r"(^|_)(dir|dirs|directory|directories|folder|folders|tree|list|ls|search|find|glob|grep|"
    r"mkdir|walk|allowed)($|_)"
)


def for_tool(
    discovered: Mapping[str, tuple[JSON, ...]], tool: str
) -> Mapping[str, tuple[JSON, ...]]:
    """``discovered`` for one tool: ``path`` offers its files first when the tool's name says
    it works on one file (``read_file``, ``edit_file``, ``get_file_info``) and no directory
    (``list_directory``, ``search_files``, ``directory_tree``); directories first otherwise."""
    values = discovered.get("path", ())
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", tool).lower().replace("-", "_")
    if not values or _MANY.search(words) or not _ONE_FILE.search(words):
        return discovered
    files = set(discovered.get("file", ()))
    ordered = (*(v for v in values if v in files), *(v for v in values if v not in files))
    return {**discovered, "path": ordered}


# Env names that say they hold a place the server serves (its directory, repository, database),
# and the secret-looking ones that never do (a key file is not a base for calls).
_PLACE_NAME = re.compile(
    r"DIR|ROOT|REPO|PATH|FOLDER|WORKSPACE|PROJECT|DB|DATABASE|SQLITE|VAULT|NOTES|DOCS|DATA",
    re.IGNORECASE,
)
_NOT_A_PLACE = re.compile(
    r"^(PATH|HOME|PWD|OLDPWD|TMPDIR|SHELL|NODE_PATH|PYTHONPATH|LD_LIBRARY_PATH|MANPATH)$|"
    r"KEY|TOKEN|SECRET|PASSW|CRED|CERT|AUTH|CACHE|LOG|CONFIG|BIN",
    re.IGNORECASE,
)


def start_env_paths(env: Mapping[str, str], secrets: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The (name, value) pairs of the start environment that name a place the server serves:
    an absolute path (one, not a ``:``-list) under a name such as ``ALLOWED_DIR``, ``DB_PATH``,
    ``REPO_ROOT``; never a secret's value, a system variable or a key, log or config file."""
    return [
        (name, value)
        for name, value in env.items()
        if _PLACE_NAME.search(name)
        and not _NOT_A_PLACE.search(name)
        and _absolute(value)
        and ":" not in value
        and value not in secrets
        and not _installed(value)
    ]


_INSTALLED = re.compile(r"/(?:node_modules|site-packages|dist-packages|\.venv|venv[\w-]*|bin)/")


def _installed(path: str) -> bool:
    """A path into an interpreter's or package manager's install (the server's own code or
    binary), not a directory it serves."""
    return bool(_INSTALLED.search(path)) or path.endswith((".js", ".mjs", ".cjs", ".py"))
