"""The ``security.*`` lint codes (SPEC §5.2) as records: metadata and check together.

The checks live in ``security_text`` and ``security_capabilities``; the behavioural proofs
(canary leak, echoed secret, rug pull, changed definitions) are produced elsewhere
(``emitted_by``), but their codes are registered here like every other. They score in the
Security dimension, not in Schema Quality.
"""

from __future__ import annotations

from mcprobe.core.lint.rules import LintRule
from mcprobe.core.lint.security_capabilities import (
    SECURITY_ENVIRONMENT_EXPOSURE,
    SECURITY_MISLEADING_ANNOTATION,
    SECURITY_UNANNOTATED_CAPABILITY,
)
from mcprobe.core.lint.security_text import (
    SECURITY_ANSI_STYLING,
    SECURITY_EXFILTRATION,
    SECURITY_HIDDEN_CHARACTERS,
    SECURITY_HOMOGLYPH,
    SECURITY_MODEL_INSTRUCTION,
    SECURITY_PARAM_CONTRADICTION,
    SECURITY_SHADOWING,
)
from mcprobe.core.model import Severity

__all__ = ["RULES"]

_C, _E, _W = Severity.CRITICAL, Severity.ERROR, Severity.WARNING
_PROOFS = "the security proofs of the behavioural pass"
_RESULTS = "the result scan of the behavioural pass (core/security/results.py)"
_PROBES = "the attack probes (core/security/probes.py, --fuzz-destructive)"

SECURITY_CANARY_LEAK = LintRule(
    "security.canary_leak",
    _C,
    "Environment leak proven",
    "the canary value planted in the target's environment came back in an answer",
    emitted_by=_PROOFS,
)

SECURITY_CANARY_IN_LOGS = LintRule(
    "security.canary_in_logs",
    _W,
    "Environment logged",
    "the canary value planted in the target's environment came back on its stderr or on "
    "stdout lines that are not JSON-RPC",
    emitted_by=_PROOFS,
)

SECURITY_SECRET_ECHO = LintRule(
    "security.secret_echo",
    _C,
    "Secret echoed",
    "a credential mcprobe was given (bearer, header, secret env) came back in an answer",
    emitted_by=_PROOFS,
)

SECURITY_RUG_PULL = LintRule(
    "security.rug_pull",
    _C,
    "Rug pull",
    "a tool definition changed during the session and the change adds security findings",
    emitted_by=_PROOFS,
)

SECURITY_DEFINITION_CHANGED = LintRule(
    "security.definition_changed",
    _E,
    "Tool definition changed",
    "a tool was added, removed or redefined during the session",
    emitted_by=_PROOFS,
)

SECURITY_RESULT_INSTRUCTION = LintRule(
    "security.result_instruction",
    _C,
    "Orders in a tool's answer",
    "a tool result carrying an instruction to the model or text-hiding characters",
    emitted_by=_RESULTS,
)

SECURITY_CREDENTIAL_EXPOSED = LintRule(
    "security.credential_exposed",
    _E,
    "Credential handed out",
    "a JWT, bearer token, provider key, private key, URL with a password or password line "
    "in a tool result or a resource/prompt content",
    emitted_by=_RESULTS,
)

SECURITY_SHELL_REACHED = LintRule(
    "security.shell_reached",
    _C,
    "Argument reached a shell",
    "a shell's own error text quoting an argument mcprobe sent to a tool that runs no commands",
    emitted_by=_RESULTS,
)

SECURITY_CODE_EXECUTION = LintRule(
    "security.code_execution",
    _C,
    "Argument evaluated as code",
    "an interpreter error (NameError, an eval frame) proving an argument ran as code",
    emitted_by=_RESULTS,
)

SECURITY_COMMAND_INJECTION = LintRule(
    "security.command_injection",
    _C,
    "Command injection proven",
    "a shell-injection probe made the server's shell compute mcprobe's sum",
    emitted_by=_PROBES,
)

SECURITY_PATH_TRAVERSAL = LintRule(
    "security.path_traversal",
    _C,
    "Path traversal proven",
    "a ../ or encoded probe read the file mcprobe planted outside the server's files",
    emitted_by=_PROBES,
)

SECURITY_ANY_FILE_READ = LintRule(
    "security.any_file_read",
    _E,
    "Any-file read proven",
    "an absolute-path or file:// probe read the file mcprobe planted outside the server's files",
    emitted_by=_PROBES,
)

SECURITY_SSRF = LintRule(
    "security.ssrf",
    _E,
    "Loopback fetch proven (SSRF)",
    "a URL probe made the server fetch mcprobe's own 127.0.0.1 listener",
    emitted_by=_PROBES,
)

SECURITY_UNDECLARED_LIST_CHANGED = LintRule(
    "security.undeclared_list_changed",
    _W,
    "Undeclared list_changed",
    "notifications/tools/list_changed sent although the server declared listChanged: false",
    emitted_by=_PROOFS,
)

RULES: tuple[LintRule, ...] = (
    SECURITY_HIDDEN_CHARACTERS,
    SECURITY_ANSI_STYLING,
    SECURITY_HOMOGLYPH,
    SECURITY_MODEL_INSTRUCTION,
    SECURITY_SHADOWING,
    SECURITY_EXFILTRATION,
    SECURITY_PARAM_CONTRADICTION,
    SECURITY_MISLEADING_ANNOTATION,
    SECURITY_UNANNOTATED_CAPABILITY,
    SECURITY_ENVIRONMENT_EXPOSURE,
    SECURITY_CANARY_LEAK,
    SECURITY_CANARY_IN_LOGS,
    SECURITY_SECRET_ECHO,
    SECURITY_RUG_PULL,
    SECURITY_DEFINITION_CHANGED,
    SECURITY_RESULT_INSTRUCTION,
    SECURITY_CREDENTIAL_EXPOSED,
    SECURITY_SHELL_REACHED,
    SECURITY_CODE_EXECUTION,
    SECURITY_COMMAND_INJECTION,
    SECURITY_PATH_TRAVERSAL,
    SECURITY_ANY_FILE_READ,
    SECURITY_SSRF,
    SECURITY_UNDECLARED_LIST_CHANGED,
)
