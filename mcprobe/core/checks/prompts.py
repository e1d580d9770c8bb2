"""Prompts: lint of ``prompts/list`` and the judges of the ``prompts/get`` checks (pure).

Spec: ``server/prompts`` (2025-11-25). A prompt has a ``name``, optional ``description`` and
``arguments`` (``{name, description?, required?: boolean}``); ``prompts/get`` answers
``{description?, messages: [{role: "user" | "assistant", content: ContentBlock}]}``; a missing
required argument and an unknown prompt name are errors (-32602 per the spec's error table).

Prompt arguments are strings with no schema, so any string honours the contract: a filled-in
value mcprobe made up that the server *refuses* is inconclusive (it may want a real name), but a
timeout, a crash, an internal error or a malformed result on it is the server's fault.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from mcprobe.core.calls.answers import describe, is_failure_of_server
from mcprobe.core.checks.records import SPEC, Area, CheckResult, CheckSpec, Level, Verdict
from mcprobe.core.model import (
    JSON,
    Finding,
    Location,
    RawCall,
    RawKind,
    Severity,
    is_internal_error,
)
from mcprobe.core.quoting import quoted, quoted_list

__all__ = [
    "ARGUMENT_VALUE",
    "PROMPTS_GET",
    "PROMPTS_LIST",
    "PROMPTS_MISSING_ARGUMENT",
    "PROMPTS_UNKNOWN_NAME",
    "SPECS",
    "PromptRef",
    "absent_prompt_name",
    "judge_get",
    "judge_missing_argument",
    "judge_unknown_name",
    "lint_prompts",
    "messages_problems",
    "prompt_refs",
]

PROMPTS_LIST = CheckSpec(
    "prompts.list",
    Area.PROMPTS,
    "prompts/list answers",
    f"{SPEC}/server/prompts#listing-prompts",
    Level.MUST,
    "liveness",
    "answer prompts/list with {prompts: [...]} when the prompts capability is declared",
)


PROMPTS_GET = CheckSpec(
    "prompts.get",
    Area.PROMPTS,
    "A listed prompt can be fetched",
    f"{SPEC}/server/prompts#getting-a-prompt",
    Level.MUST,
    "liveness",
    "answer prompts/get with {messages: [{role: user|assistant, content: {type, ...}}]}",
)


PROMPTS_MISSING_ARGUMENT = CheckSpec(
    "prompts.missing_argument",
    Area.PROMPTS,
    "A missing required prompt argument is rejected",
    f"{SPEC}/server/prompts#error-handling",
    Level.MUST,
    "errorHandling",
    "reject prompts/get without a required argument with JSON-RPC error -32602",
)


PROMPTS_UNKNOWN_NAME = CheckSpec(
    "prompts.unknown_name",
    Area.PROMPTS,
    "An unknown prompt name is rejected",
    f"{SPEC}/server/prompts#error-handling",
    Level.MUST,
    "errorHandling",
    "reject prompts/get of an unknown prompt name with JSON-RPC error -32602",
)


SPECS: tuple[CheckSpec, ...] = (
    PROMPTS_LIST,
    PROMPTS_GET,
    PROMPTS_MISSING_ARGUMENT,
    PROMPTS_UNKNOWN_NAME,
)
"""This module's checks, in report order (``catalogue.CHECKS`` gathers them)."""


ARGUMENT_VALUE = "example"
"""The value mcprobe fills into a required prompt argument when nothing better is known."""

_ROLES = ("user", "assistant")
_CONTENT_FIELDS = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource_link": ("uri", "name"),
    "resource": ("resource",),
}


@dataclass(frozen=True)
class PromptRef:
    """A listed prompt and its argument names (required ones separately)."""

    name: str
    required: tuple[str, ...]
    arguments: tuple[str, ...]


def _finding(
    code: str, severity: Severity, message: str, prompt: str, hint: str, param: str | None = None
) -> Finding:
    return Finding(code, severity, message, Location(prompt=prompt, param=param), hint)


def _text(value: JSON) -> str | None:
    return value if isinstance(value, str) else None


# --------------------------------------------------------------------------- lint


def lint_prompts(prompts: Sequence[JSON]) -> list[Finding]:
    found: list[Finding] = []
    seen: set[str] = set()
    for index, entry in enumerate(prompts):
        found.extend(_lint_prompt(index, entry, seen))
    return found


def _lint_prompt(index: int, entry: JSON, seen: set[str]) -> Iterator[Finding]:
    name = _text(entry.get("name")) if isinstance(entry, dict) else None
    if name is None:
        yield _finding(
            "prompt.malformed",
            Severity.ERROR,
            f"prompts/list entry {index} is not an object with a string `name`",
            f"#{index}",
            "list each prompt as {name, description?, arguments?}",
        )
        return
    assert isinstance(entry, dict)
    if name in seen:
        yield _finding(
            "prompt.duplicate_name",
            Severity.ERROR,
            "two listed prompts share this name",
            name,
            "give every prompt a unique name; prompts/get finds a prompt by name",
        )
    seen.add(name)
    description = _text(entry.get("description"))
    if description is None or not description.strip():
        yield _finding(
            "prompt.missing_description",
            Severity.WARNING,
            "the prompt has no `description`: a user picking it cannot tell what it does",
            name,
            "describe what the prompt produces and when to use it",
        )
    arguments = entry.get("arguments")
    if arguments is None:
        return
    if not isinstance(arguments, list):
        yield _finding(
            "prompt.malformed",
            Severity.ERROR,
            "`arguments` is not an array",
            name,
            "declare arguments as [{name, description?, required?}]",
        )
        return
    yield from _lint_arguments(name, arguments)


def _lint_arguments(prompt: str, arguments: list[JSON]) -> Iterator[Finding]:
    names: set[str] = set()
    for index, argument in enumerate(arguments):
        arg_name = _text(argument.get("name")) if isinstance(argument, dict) else None
        if arg_name is None:
            yield _finding(
                "prompt.malformed",
                Severity.ERROR,
                f"argument {index} is not an object with a string `name`",
                prompt,
                "declare each argument as {name, description?, required?}",
            )
            continue
        assert isinstance(argument, dict)
        if arg_name in names:
            yield _finding(
                "prompt.duplicate_argument",
                Severity.ERROR,
                "two arguments share this name",
                prompt,
                "give every argument of a prompt a unique name",
                arg_name,
            )
        names.add(arg_name)
        description = _text(argument.get("description"))
        if description is None or not description.strip():
            yield _finding(
                "prompt.argument_missing_description",
                Severity.WARNING,
                "the argument has no `description`: a user cannot tell what to enter",
                prompt,
                "describe the value the argument expects, with an example",
                arg_name,
            )
        required = argument.get("required")
        if required is not None and not isinstance(required, bool):
            yield _finding(
                "prompt.invalid_required",
                Severity.ERROR,
                f"`required` is {type(required).__name__}, not a boolean",
                prompt,
                "write required: true or required: false (or omit it: false)",
                arg_name,
            )


# --------------------------------------------------------------------------- what to send


def prompt_refs(prompts: Sequence[JSON], limit: int) -> list[PromptRef]:
    """The first ``limit`` well-formed listed prompts, each name once."""
    refs: list[PromptRef] = []
    seen: set[str] = set()
    for entry in prompts:
        if len(refs) >= limit:
            break
        name = _text(entry.get("name")) if isinstance(entry, dict) else None
        if name is None or name in seen:
            continue
        seen.add(name)
        assert isinstance(entry, dict)
        raw_args = entry.get("arguments")
        args = [a for a in raw_args if isinstance(a, dict)] if isinstance(raw_args, list) else []
        arg_names = tuple(a["name"] for a in args if isinstance(a.get("name"), str))
        required = tuple(
            a["name"] for a in args if isinstance(a.get("name"), str) and a.get("required") is True
        )
        refs.append(PromptRef(name, required, arg_names))
    return refs


def absent_prompt_name(listed: Sequence[str]) -> str:
    """A prompt name the server provably does not list."""
    candidate = "mcprobe_nonexistent_prompt"
    index = 0
    while candidate in listed:
        index += 1
        candidate = f"mcprobe_nonexistent_prompt_{index}"
    return candidate


# --------------------------------------------------------------------------- judges


def _content_problem(content: JSON) -> str | None:
    if not isinstance(content, dict):
        return "is not an object"
    kind = content.get("type")
    fields = _CONTENT_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        return f"has an unknown type {str(kind)[:30]!r}"
    missing = [f for f in fields if f not in content]
    if missing:
        return f"({kind}) lacks {', '.join(missing)}"
    if kind == "text" and not isinstance(content["text"], str):
        return "(text) has a text that is not a string"
    return None


def messages_problems(result: JSON) -> list[str]:
    """What is wrong with a ``prompts/get`` result's shape (empty list: nothing)."""
    if not isinstance(result, dict):
        return ["the result is not an object"]
    messages = result.get("messages")
    if not isinstance(messages, list):
        return ["the result has no `messages` array"]
    problems: list[str] = []
    for index, message in enumerate(messages[:50]):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            problems.append(f"{where} is not an object")
            continue
        if message.get("role") not in _ROLES:
            problems.append(
                f"{where}.role is {str(message.get('role'))[:30]!r}, not user/assistant"
            )
        problem = _content_problem(message.get("content"))
        if problem is not None:
            problems.append(f"{where}.content {problem}")
    return problems


def judge_get(ref: PromptRef, raw: RawCall, request: str) -> CheckResult:
    """``prompts.get`` with every required argument filled in."""
    seen = describe(raw)
    common = {"subject": ref.name, "request": request, "observed": seen}
    placeholder_refused = raw.kind is RawKind.JSONRPC_ERROR and bool(ref.required)
    if is_failure_of_server(raw) and not placeholder_refused:
        return PROMPTS_GET.result(
            Verdict.FAIL, f"fetching a listed prompt failed: {seen}", **common
        )
    if raw.kind is RawKind.JSONRPC_ERROR:
        # Even an internal error: argument descriptions may narrow the strings a prompt takes
        # ("Text or Blob"), and mcprobe's placeholder may be outside them.
        why = (
            f"the prompt refused mcprobe's placeholder value {ARGUMENT_VALUE!r} for "
            f"{', '.join(quoted_list(ref.required))}; it may need a real value"
            if ref.required
            else "a prompt that takes no required arguments was refused"
        )
        verdict = Verdict.INCONCLUSIVE if ref.required else Verdict.FAIL
        return PROMPTS_GET.result(verdict, why, **common)
    if raw.kind is not RawKind.RESULT or raw.result is None:
        return PROMPTS_GET.result(Verdict.INCONCLUSIVE, f"nothing to judge: {seen}", **common)
    problems = messages_problems(raw.result)
    if problems:
        return PROMPTS_GET.result(
            Verdict.FAIL,
            "the prompts/get result breaks the MCP schema: " + "; ".join(problems[:3]),
            **common,
        )
    return PROMPTS_GET.result(Verdict.PASS, "well-formed messages", **common)


def _judge_rejection(
    check: CheckSpec, subject: str, raw: RawCall, request: str, what: str
) -> CheckResult:
    seen = describe(raw)
    common = {"subject": subject, "request": request, "observed": seen}
    if raw.kind is RawKind.JSONRPC_ERROR and not is_internal_error(raw.error_code):
        return check.result(Verdict.PASS, f"rejected (code {raw.error_code})", **common)
    if raw.kind is RawKind.RESULT:
        if raw.result is None:
            return check.result(Verdict.INCONCLUSIVE, f"nothing to judge: {seen}", **common)
        return check.result(Verdict.FAIL, f"{what} was answered as a success", **common)
    if raw.kind is RawKind.NOT_RUN:
        return check.result(Verdict.INCONCLUSIVE, seen, **common)
    return check.result(Verdict.FAIL, f"{what} was not rejected cleanly: {seen}", **common)


def judge_missing_argument(ref: PromptRef, missing: str, raw: RawCall, request: str) -> CheckResult:
    """``prompts.missing_argument``: a required argument left out must be an error."""
    return _judge_rejection(
        PROMPTS_MISSING_ARGUMENT,
        ref.name,
        raw,
        request,
        f"a prompts/get without the required argument {quoted(missing)}",
    )


def judge_unknown_name(name: str, raw: RawCall, request: str) -> CheckResult:
    """``prompts.unknown_name``: a name the server does not list must be an error."""
    return _judge_rejection(
        PROMPTS_UNKNOWN_NAME, name, raw, request, "a prompts/get of a prompt that is not listed"
    )
