"""``mcprobe audit --server-json server.json [--entry package:N | remote:N]``: audit exactly what
an author publishes to the MCP registry.

A ``server.json`` (the MCP registry's format, schema 2025-09-29 and later) describes a server by
its ``packages`` (stdio: an npm, PyPI or OCI package with ``runtimeArguments``,
``packageArguments`` and ``environmentVariables``) and its ``remotes`` (a ``streamable-http`` or
``sse`` URL with ``headers``). ``target_argv`` turns one entry into ``mcprobe audit``'s own target
arguments, so everything after it (isolation, fuzzing, the report) is the ordinary audit:

- npm → ``npx --yes [runtime args] IDENTIFIER@VERSION [package args]``; PyPI → ``uvx [runtime
  args] IDENTIFIER==VERSION [package args]``; OCI → ``docker run -i --rm [runtime args] -e NAME…
  IDENTIFIER[:VERSION] [package args]`` (a ``runtimeHint`` names another runner of the same
  kind). The package must already be installed or cached: an audit runs without network beyond
  loopback (the sandbox), so ``npx``/``uvx`` cannot download it then.
- An argument is ``{"type": "positional" | "named", "name", "value" | "default", "isRequired"}``;
  ``{name}`` in a value is filled from its ``variables`` (their ``value`` or ``default``). An
  environment variable or header takes its ``value`` or ``default``; a required one without
  either must come from the command line (``--env NAME=VALUE`` / ``--header 'NAME: VALUE'``),
  which also overrides any value the file gives. Every value from the file is treated as secret
  (scrubbed from reports), as for host configs.

Anything that cannot be run as published is one usage error naming the entry and the field,
never a value. Stdlib only (it runs before the target is started).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcprobe.core.errors import UsageError

__all__ = ["ServerJsonTarget", "expand", "read_server_json", "split", "target_argv"]

_RUNNERS = {"npm": "npx", "pypi": "uvx", "oci": "docker"}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_-]*)\}")
_ENTRY = re.compile(r"^(package|remote):(\d+)$")


@dataclass(frozen=True)
class ServerJsonTarget:
    """One entry of a server.json as ``mcprobe audit`` arguments: ``options`` (``--env``,
    ``--secret-env``, ``--header``) and ``target`` (``URL`` or ``-- COMMAND ARG…``), and which
    entry it was, for messages."""

    entry: str
    options: tuple[str, ...]
    target: tuple[str, ...]


def split(argv: Sequence[str]) -> tuple[list[str], tuple[str, str | None] | None]:
    """``argv`` without ``--server-json FILE`` / ``--entry E``, and (FILE, E) when given."""
    own = list(argv)[: list(argv).index("--")] if "--" in argv else list(argv)
    rest = list(argv)[len(own) :]
    found: dict[str, list[str]] = {"--server-json": [], "--entry": []}
    kept: list[str] = []
    i = 0
    while i < len(own):
        flag, eq, inline = own[i].partition("=")
        if flag in found:
            if eq:
                found[flag].append(inline)
            elif i + 1 < len(own):
                found[flag].append(own[i + 1])
                i += 1
            else:
                raise UsageError(f"{flag} needs a value")
        else:
            kept.append(own[i])
        i += 1
    if not found["--server-json"]:
        if found["--entry"]:
            raise UsageError("--entry needs --server-json FILE")
        return list(argv), None
    if len(found["--server-json"]) > 1 or len(found["--entry"]) > 1:
        raise UsageError("--server-json and --entry are given once")
    return [*kept, *rest], (
        found["--server-json"][0],
        found["--entry"][0] if found["--entry"] else None,
    )


def expand(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--server-json FILE`` (and ``--entry E``) replaced by the target arguments
    of that entry, the file's options first so the command line's own win; unchanged without
    ``--server-json``. (``mcprobe audit`` checks first that no other target was given.)"""
    rest, published = split(argv)
    if published is None:
        return rest
    if "--" in rest:
        raise UsageError("--server-json is the target: give no -- COMMAND beside it")
    target = read_server_json(published[0], published[1], rest)
    return [*target.options, *rest, *target.target]


def read_server_json(path: str, entry: str | None, given: Sequence[str]) -> ServerJsonTarget:
    """The target of ``entry`` (``package:N`` or ``remote:N``; None: the first package, else the
    first remote) of the server.json at ``path``; ``given`` is the rest of the command line
    (``--env`` / ``--header`` there satisfy and override the file's)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--server-json: cannot read {path!r}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"--server-json: {path!r} is not JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise UsageError(f"--server-json: {path!r} is not a server.json object")
    return target_argv(data, entry, given)


def target_argv(
    data: Mapping[str, Any], entry: str | None, given: Sequence[str]
) -> ServerJsonTarget:
    """``read_server_json`` on parsed data (pure)."""
    packages = _list(data, "packages")
    remotes = _list(data, "remotes")
    kind, index = _pick(entry, packages, remotes)
    name = f"{kind}:{index}"
    item = (packages if kind == "package" else remotes)[index]
    if not isinstance(item, Mapping):
        raise UsageError(f"--server-json: {name} is not an object")
    env_given, headers_given = _given(given)
    if kind == "remote":
        return _remote(item, name, headers_given)
    return _package(item, name, env_given)


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise UsageError(f"--server-json: `{key}` must be a list")
    return value


def _pick(entry: str | None, packages: list[Any], remotes: list[Any]) -> tuple[str, int]:
    if entry is None:
        if packages:
            return "package", 0
        if remotes:
            return "remote", 0
        raise UsageError("--server-json: the file lists no packages and no remotes")
    match = _ENTRY.match(entry)
    if match is None:
        raise UsageError(f"--entry: expected package:N or remote:N, got {entry!r}")
    kind, index = match.group(1), int(match.group(2))
    count = len(packages if kind == "package" else remotes)
    if index >= count:
        raise UsageError(f"--entry {entry}: the file lists {count} {kind}(s), numbered from 0")
    return kind, index


def _given(argv: Sequence[str]) -> tuple[set[str], set[str]]:
    """The env and header names the command line sets itself."""
    env: set[str] = set()
    headers: set[str] = set()
    own = list(argv)[: list(argv).index("--")] if "--" in argv else list(argv)
    for flag, value in itertools.pairwise(own):
        if flag == "--env":
            env.add(value.split("=", 1)[0])
        elif flag == "--header":
            headers.add(value.split(":", 1)[0].strip().lower())
    for arg in own:
        if arg.startswith("--env="):
            env.add(arg[6:].split("=", 1)[0])
        elif arg.startswith("--header="):
            headers.add(arg[9:].split(":", 1)[0].strip().lower())
    return env, headers


def _text(item: Mapping[str, Any], key: str, where: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise UsageError(f"--server-json: {where}: `{key}` must be a string")
    return value


def _filled(item: Mapping[str, Any], where: str) -> str | None:
    """The value of an argument, env variable or header: ``value``, else ``default``, with its
    ``{variables}`` filled; None when it has neither."""
    value = _text(item, "value", where)
    if value is None:
        value = _text(item, "default", where)
    if value is None:
        return None
    variables = item.get("variables", {})
    variables = variables if isinstance(variables, Mapping) else {}

    def fill(match: re.Match[str]) -> str:
        var = variables.get(match.group(1))
        got = (
            _filled(var, f"{where} variable {match.group(1)}") if isinstance(var, Mapping) else None
        )
        if got is None:
            raise UsageError(
                f"--server-json: {where} needs variable {{{match.group(1)}}}, which has no value "
                "or default in the file: pass the target yourself (-- COMMAND …) or give it one"
            )
        return got

    return _PLACEHOLDER.sub(fill, value)


def _arguments(items: Any, where: str) -> list[str]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise UsageError(f"--server-json: {where} must be a list")
    argv: list[str] = []
    for i, arg in enumerate(items):
        at = f"{where}[{i}]"
        if not isinstance(arg, Mapping):
            raise UsageError(f"--server-json: {at} is not an object")
        value = _filled(arg, at)
        kind = arg.get("type", "positional")
        if kind == "named":
            flag = _text(arg, "name", at)
            if not flag:
                raise UsageError(f"--server-json: {at} is a named argument without a `name`")
            if value is not None:
                argv += [flag, value]
            elif arg.get("isRequired"):
                raise _missing(at, flag)
        elif kind == "positional":
            if value is None:
                if arg.get("isRequired"):
                    raise _missing(at, _text(arg, "valueHint", at) or "a positional value")
                continue
            argv.append(value)
        else:
            raise UsageError(f"--server-json: {at}: unknown argument type {kind!r}")
    return argv


def _missing(at: str, what: str) -> UsageError:
    return UsageError(
        f"--server-json: {at} ({what}) is required and has no value or default in the file: "
        "give the value in the file, or pass the whole target yourself (-- COMMAND …)"
    )


def _package(item: Mapping[str, Any], name: str, env_given: set[str]) -> ServerJsonTarget:
    registry = _text(item, "registryType", name) or _text(item, "registry_name", name)
    identifier = _text(item, "identifier", name) or _text(item, "name", name)
    version = _text(item, "version", name)
    if not identifier:
        raise UsageError(f"--server-json: {name} has no `identifier`")
    transport = item.get("transport", {"type": "stdio"})
    kind = transport.get("type") if isinstance(transport, Mapping) else None
    if kind not in (None, "stdio"):
        raise UsageError(
            f"--server-json: {name} runs a {kind} server, not stdio: start it and audit its URL "
            "(mcprobe audit URL), or choose a remote entry (--entry remote:N)"
        )
    if registry not in _RUNNERS:
        raise UsageError(
            f"--server-json: {name}: registryType {registry!r} is not one mcprobe can start "
            f"(npm, pypi, oci); pass the command yourself (-- COMMAND …)"
        )
    runner = _text(item, "runtimeHint", name) or _RUNNERS[registry]
    runtime = _arguments(item.get("runtimeArguments"), f"{name}.runtimeArguments")
    package = _arguments(item.get("packageArguments"), f"{name}.packageArguments")
    options, env_names = _environment(item.get("environmentVariables"), name, env_given)
    if registry == "npm":
        spec = f"{identifier}@{version}" if version else identifier
        yes = [] if {"-y", "--yes"} & set(runtime) else ["--yes"]
        command = [runner, *yes, *runtime, spec, *package]
    elif registry == "pypi":
        spec = f"{identifier}=={version}" if version else identifier
        command = [runner, *runtime, spec, *package]
    else:  # oci: the container sees only the variables named with -e
        base = ["run", "-i", "--rm"] if runner == "docker" else []
        image = f"{identifier}:{version}" if version and ":" not in identifier else identifier
        passed = [a for n in env_names for a in ("-e", n)]
        command = [runner, *base, *runtime, *passed, image, *package]
    return ServerJsonTarget(name, tuple(options), ("--", *command))


def _environment(items: Any, name: str, given: set[str]) -> tuple[list[str], list[str]]:
    """(``--env``/``--secret-env`` options, every variable name the target gets)."""
    where = f"{name}.environmentVariables"
    if items is None:
        return [], sorted(given)
    if not isinstance(items, list):
        raise UsageError(f"--server-json: {where} must be a list")
    options: list[str] = []
    names: list[str] = []
    for i, var in enumerate(items):
        at = f"{where}[{i}]"
        if not isinstance(var, Mapping) or not isinstance(var.get("name"), str):
            raise UsageError(f"--server-json: {at} needs a string `name`")
        env = var["name"]
        names.append(env)
        if env in given:  # the command line's own --env wins; still secret if the file says so
            options += ["--secret-env", env] if var.get("isSecret") else []
            continue
        value = _filled(var, at)
        if value is None:
            if var.get("isRequired"):
                why = _text(var, "description", at)
                said = f" ({why})" if why else ""
                raise UsageError(
                    f"--server-json: {name} needs environment variable {env}{said}: pass "
                    f"--env {env}=VALUE"
                )
            continue
        options += ["--env", f"{env}={value}", "--secret-env", env]
    return options, sorted({*names, *given})


def _remote(item: Mapping[str, Any], name: str, headers_given: set[str]) -> ServerJsonTarget:
    kind = _text(item, "type", name) or _text(item, "transport_type", name)
    if kind not in ("streamable-http", "sse", "http"):
        raise UsageError(
            f"--server-json: {name}: remote type {kind!r} is not streamable-http or sse"
        )
    url = _filled(dict(item, value=item.get("url")), name) if item.get("url") else None
    if not url:
        raise UsageError(f"--server-json: {name} has no `url`")
    options: list[str] = []
    headers = item.get("headers") or []
    if not isinstance(headers, list):
        raise UsageError(f"--server-json: {name}.headers must be a list")
    for i, header in enumerate(headers):
        at = f"{name}.headers[{i}]"
        if not isinstance(header, Mapping) or not isinstance(header.get("name"), str):
            raise UsageError(f"--server-json: {at} needs a string `name`")
        if header["name"].lower() in headers_given:
            continue
        value = _filled(header, at)
        if value is None:
            if header.get("isRequired"):
                raise UsageError(
                    f"--server-json: {name} needs header {header['name']}: pass "
                    f"--header '{header['name']}: VALUE'"
                )
            continue
        options += ["--header", f"{header['name']}: {value}"]
    return ServerJsonTarget(name, tuple(options), (url,))
