"""The project's mcprobe configuration: ``mcprobe.toml``, or ``[tool.mcprobe]`` in
``pyproject.toml``, found upward from the working directory (the nearest wins);
``--config-file PATH`` names one, ``--no-config`` ignores them.

::

    [audit]                       # defaults for mcprobe audit's options (the command line wins)
    fuzz = true
    timeout = 10                  # also: connect-timeout, overall-timeout, concurrency,
    max-tools = 20                #       tools = ["a", "b"], format = "md", fuzz-writes,
                                  #       fuzz-destructive
    deep = true                   # like --deep (implies fuzz); seed = 7 like --seed (with deep)
    sandbox = "required"          # like --sandbox: auto (default) | required | off
    skip-tools = ["send_email"]   # like --skip-tools: never called, isolated or not
    examples = "examples.json"    # like --examples FILE; relative to this file; used with fuzz
    [gates]
    fail-under = 80
    fail-on-critical = true
    fail-on-regression = true     # takes effect with --baseline
    [rules."param.untyped"]       # a finding code; reason is required
    severity = "info"             # error | warning | info | ignore
    reason = "legacy API, typed in v2"
    tools = ["greet"]             # optional: only these tools

Keys may be written with ``-`` or ``_``. An unknown key, a wrong type or a missing reason is a
usage error naming the key's path (``mcprobe.toml: rules.param.untyped.reason: Field
required``). The file is parsed with ``tomllib`` and checked with pydantic, both imported only
when a config file is actually found.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ProjectConfig",
    "add_arguments",
    "apply_defaults",
    "find_config_file",
    "load",
    "only",
]

FILE_NAME = "mcprobe.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--config-file",
        metavar="PATH",
        help="mcprobe.toml or pyproject.toml to use (default: the nearest one upward)",
    )
    group.add_argument("--no-config", action="store_true", help="ignore any mcprobe.toml")


class ConfigFileError(ValueError):
    """A config file mcprobe cannot use (one line)."""


@dataclass(frozen=True)
class ProjectConfig:
    path: Path
    audit: dict[str, Any]  # argparse dest → value
    overrides: tuple[Any, ...]  # core.suppress.RuleOverride


def _has_tool_table(path: Path) -> bool:
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False  # somebody else's broken pyproject is not our business unless we need it
    tool = data.get("tool")
    return isinstance(tool, dict) and "mcprobe" in tool


def find_config_file(start: Path) -> Path | None:
    """The nearest ``mcprobe.toml`` or ``pyproject.toml`` with ``[tool.mcprobe]`` upward."""
    for folder in (start, *start.parents):
        candidate = folder / FILE_NAME
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if (
            pyproject.is_file()
            and "[tool.mcprobe" in _read(pyproject)
            and _has_tool_table(pyproject)
        ):
            return pyproject
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _models() -> Any:
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, Field, field_validator

    from mcprobe.report.formats import FORMAT_NAMES, expected_names

    def dashed(name: str) -> str:
        return name.replace("_", "-")

    class Strict(BaseModel):
        model_config = ConfigDict(
            extra="forbid", alias_generator=dashed, populate_by_name=True, strict=True
        )

    class Audit(Strict):
        fuzz: bool | None = None
        fuzz_writes: bool | None = None
        fuzz_destructive: bool | None = None
        deep: bool | None = None
        seed: int | None = Field(default=None, ge=0)
        max_tools: int | None = Field(default=None, ge=1)
        tools: list[str] | None = None
        skip_tools: list[str] | None = None
        timeout: float | None = Field(default=None, gt=0)
        connect_timeout: float | None = Field(default=None, gt=0)
        overall_timeout: float | None = Field(default=None, gt=0)
        concurrency: int | None = Field(default=None, ge=1)
        format: str | None = None  # a name of the output-format registry
        examples: str | None = Field(default=None, min_length=1)
        sandbox: Literal["auto", "required", "off"] | None = None

        @field_validator("format")
        @classmethod
        def _registered(cls, value: str | None) -> str | None:
            if value is not None and value not in FORMAT_NAMES:
                raise ValueError(f"unknown report format {value!r}: expected {expected_names()}")
            return value

    class Gates(Strict):
        fail_under: float | None = Field(default=None, ge=0, le=100)
        fail_on_critical: bool | None = None
        fail_on_regression: bool | None = None

    class Rule(Strict):
        severity: Literal["error", "warning", "info", "ignore"]
        reason: str = Field(min_length=1)
        tools: list[str] = Field(default_factory=list)

    class Root(Strict):
        audit: Audit = Field(default_factory=Audit)
        gates: Gates = Field(default_factory=Gates)
        rules: dict[str, Rule] = Field(default_factory=dict)

    return Root


def _normalise(value: Any) -> Any:
    # Accept both spellings of every key (max_tools / max-tools), except rule codes.
    if isinstance(value, dict):
        return {str(k).replace("_", "-"): _normalise(v) for k, v in value.items()}
    return value


def load(path: Path) -> ProjectConfig:
    import tomllib

    from pydantic import ValidationError

    from mcprobe.core.lint.suppress import RuleOverride
    from mcprobe.core.model import Severity

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigFileError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigFileError(f"{path.name}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"{path.name}: not valid TOML: {exc}") from None
    prefix = path.name
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        data = tool.get("mcprobe", {}) if isinstance(tool, dict) else {}
        prefix = "pyproject.toml: tool.mcprobe"
    rules = data.pop("rules", {}) if isinstance(data, dict) else {}
    shaped = _normalise(data)
    if isinstance(rules, dict):
        shaped["rules"] = {code: _normalise(rule) for code, rule in rules.items()}
    else:
        shaped["rules"] = rules
    try:
        root = _models().model_validate(shaped)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        message = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        message = message.removeprefix("Value error, ")
        raise ConfigFileError(f"{prefix}: {where}: {message}") from None
    overrides = []
    for code, rule in root.rules.items():
        if code.startswith("behavior."):
            raise ConfigFileError(
                f"{prefix}: rules.{code}: behavioural verdicts cannot be overridden "
                "(they are measured, not style); only finding codes can"
            )
        _check_code(prefix, code)
        severity = None if rule.severity == "ignore" else Severity(rule.severity)
        overrides.append(RuleOverride(code, severity, rule.reason.strip(), tuple(rule.tools)))
    values = root.audit.model_dump(exclude_none=True) | root.gates.model_dump(exclude_none=True)
    if "examples" in values:  # relative to the config file, read (shape-checked) right here
        from mcprobe.cli.examples_file import read_examples_file

        try:
            values["examples"] = read_examples_file(path.parent / values["examples"])
        except ValueError as exc:
            raise ConfigFileError(f"{prefix}: audit.examples: {exc}") from None
    return ProjectConfig(path, values, tuple(overrides))


def _check_code(prefix: str, code: str) -> None:
    """A rule code mcprobe never emits would silently do nothing: refuse it, as ruff does."""
    import difflib

    from mcprobe.core.checks.catalogue import CHECKS
    from mcprobe.core.lint.registry import FINDING_CODES

    if code in FINDING_CODES:
        return
    if code in CHECKS:
        raise ConfigFileError(
            f"{prefix}: rules.{code}: a protocol check, not a finding code: checks are measured "
            "answers of the server and cannot be overridden"
        )
    close = difflib.get_close_matches(code, sorted(FINDING_CODES), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else " (docs/checks.md lists every code)"
    raise ConfigFileError(f"{prefix}: rules.{code}: unknown finding code{hint}")


def resolve(ns: argparse.Namespace, cwd: Path | None = None) -> ProjectConfig | None:
    """The config this command line asks for (None with --no-config or when none is found)."""
    if getattr(ns, "no_config", False):
        return None
    named = getattr(ns, "config_file", None)
    if named is not None:
        path = Path(named)
        if not path.is_file():
            raise ConfigFileError(f"--config-file: {named!r} is not a file")
    else:
        found = find_config_file((cwd or Path(os.getcwd())).resolve())
        if found is None:
            return None
        path = found
    return load(path)


def only(config: ProjectConfig, keys: Collection[str]) -> ProjectConfig:
    """The config with just these ``[audit]``/``[gates]`` defaults (its rule overrides kept)."""
    audit = {dest: value for dest, value in config.audit.items() if dest in keys}
    return ProjectConfig(config.path, audit, config.overrides)


def apply_defaults(ns: argparse.Namespace, config: ProjectConfig, given: Sequence[str]) -> None:
    """Fill the options the command line did not give from the config (the command line wins)."""
    flags = {arg.split("=", 1)[0] for arg in given if arg.startswith("--")}
    for dest, value in config.audit.items():
        option = "--" + dest.replace("_", "-")
        if option in flags or (dest == "format" and "--json" in flags):
            continue
        if dest == "fail_on_regression" and getattr(ns, "baseline", None) is None:
            continue  # the gate of the file waits for a --baseline; without one it is idle
        if dest in ("tools", "skip_tools"):
            value = list(value)
        setattr(ns, dest, value)
    # The file's examples wait for fuzzing, like its fail-on-regression for a --baseline: a run
    # without fuzz calls no tool, so they are idle there, not a usage error.
    deep = getattr(ns, "deep", False)
    fuzz = ns.fuzz or ns.fuzz_writes or ns.fuzz_destructive or deep
    if "--examples" not in flags and "examples" in config.audit and not fuzz:
        ns.examples = None
    # Likewise the file's seed waits for the deep pass (--seed without --deep is an error).
    if "--seed" not in flags and "seed" in config.audit and not deep:
        ns.seed = None
