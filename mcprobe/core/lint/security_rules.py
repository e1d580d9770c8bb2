"""The ``security.*`` lint codes (SPEC §5.2) as records: metadata and check together.

The checks live in ``security_text`` and ``security_capabilities``; the behavioural proofs
(canary leak, echoed secret, rug pull, changed definitions) are produced elsewhere
(``emitted_by``), but their codes are registered here like every other. They score in the
Security dimension, not in Schema Quality.
"""

from __future__ import annotations

from mcprobe.core.lint.rules import LintRule
from mcprobe.core.lint.security_capabilities import (
    check_environment_exposure,
    check_misleading_annotation,
    check_unannotated_capability,
)
from mcprobe.core.lint.security_text import (
    check_param_contradiction,
    rule_ansi_styling,
    rule_exfiltration,
    rule_hidden_characters,
    rule_homoglyphs,
    rule_model_instructions,
    rule_shadowing,
)
from mcprobe.core.model import Severity

__all__ = ["RULES"]

_C, _E, _W = Severity.CRITICAL, Severity.ERROR, Severity.WARNING
_PROOFS = "the security proofs of the behavioural pass"
_RESULTS = "the result scan of the behavioural pass (core/security/results.py)"
_PROBES = "the attack probes (core/security/probes.py, --fuzz-destructive)"

RULES: tuple[LintRule, ...] = (
    LintRule(
        "security.hidden_characters",
        _C,
        "Hidden characters",
        "zero-width, bidi, tag or other invisible characters, or blank padding hiding text",
        server_check=rule_hidden_characters,
    ),
    LintRule(
        "security.ansi_styling",
        _W,
        "Terminal colour codes",
        "ANSI colour/style codes in a text the model reads (other escapes are hidden characters)",
        server_check=rule_ansi_styling,
    ),
    LintRule(
        "security.homoglyph",
        _E,
        "Look-alike letters",
        "a word mixing Latin letters with look-alikes from another script",
        server_check=rule_homoglyphs,
    ),
    LintRule(
        "security.model_instruction",
        _C,
        "Instructions aimed at the model",
        "<IMPORTANT>-style tags, 'ignore previous instructions', 'do not tell the user', ...",
        server_check=rule_model_instructions,
    ),
    LintRule(
        "security.shadowing",
        _C,
        "Tool shadowing",
        "a description that tells the model how to use another tool (recipients, destinations)",
        server_check=rule_shadowing,
    ),
    LintRule(
        "security.exfiltration",
        _C,
        "Exfiltration cue",
        "asks for the conversation, credentials or secret files, or sends data to an address",
        server_check=rule_exfiltration,
    ),
    LintRule(
        "security.param_contradiction",
        _E,
        "Parameter wording contradicts its schema",
        "an optional parameter whose description insists it is required",
        tool_check=check_param_contradiction,
    ),
    LintRule(
        "security.misleading_annotation",
        _E,
        "Misleading annotations",
        "a dangerous capability annotated read-only, non-destructive or closed-world",
        tool_check=check_misleading_annotation,
    ),
    LintRule(
        "security.unannotated_capability",
        _W,
        "Dangerous capability not annotated",
        "command execution, deletion or URL fetch without the matching hint",
        tool_check=check_unannotated_capability,
    ),
    LintRule(
        "security.environment_exposure",
        _E,
        "Environment exposed",
        "a tool that returns the server's environment variables or whole file system",
        tool_check=check_environment_exposure,
    ),
    LintRule(
        "security.canary_leak",
        _C,
        "Environment leak proven",
        "the canary value planted in the target's environment came back in an answer",
        emitted_by=_PROOFS,
    ),
    LintRule(
        "security.canary_in_logs",
        _W,
        "Environment logged",
        "the canary value planted in the target's environment came back on its stderr or on "
        "stdout lines that are not JSON-RPC",
        emitted_by=_PROOFS,
    ),
    LintRule(
        "security.secret_echo",
        _C,
        "Secret echoed",
        "a credential mcprobe was given (bearer, header, secret env) came back in an answer",
        emitted_by=_PROOFS,
    ),
    LintRule(
        "security.rug_pull",
        _C,
        "Rug pull",
        "a tool definition changed during the session and the change adds security findings",
        emitted_by=_PROOFS,
    ),
    LintRule(
        "security.definition_changed",
        _E,
        "Tool definition changed",
        "a tool was added, removed or redefined during the session",
        emitted_by=_PROOFS,
    ),
    LintRule(
        "security.result_instruction",
        _C,
        "Orders in a tool's answer",
        "a tool result carrying an instruction to the model or text-hiding characters",
        emitted_by=_RESULTS,
    ),
    LintRule(
        "security.credential_exposed",
        _E,
        "Credential handed out",
        "a JWT, bearer token, provider key, private key, URL with a password or password line "
        "in a tool result or a resource/prompt content",
        emitted_by=_RESULTS,
    ),
    LintRule(
        "security.shell_reached",
        _C,
        "Argument reached a shell",
        "a shell's own error text quoting an argument mcprobe sent to a tool that runs no commands",
        emitted_by=_RESULTS,
    ),
    LintRule(
        "security.code_execution",
        _C,
        "Argument evaluated as code",
        "an interpreter error (NameError, an eval frame) proving an argument ran as code",
        emitted_by=_RESULTS,
    ),
    LintRule(
        "security.command_injection",
        _C,
        "Command injection proven",
        "a shell-injection probe made the server's shell compute mcprobe's sum",
        emitted_by=_PROBES,
    ),
    LintRule(
        "security.path_traversal",
        _C,
        "Path traversal proven",
        "a ../ or encoded probe read the file mcprobe planted outside the server's files",
        emitted_by=_PROBES,
    ),
    LintRule(
        "security.any_file_read",
        _E,
        "Any-file read proven",
        "an absolute-path or file:// probe read the file mcprobe planted outside the server's "
        "files",
        emitted_by=_PROBES,
    ),
    LintRule(
        "security.ssrf",
        _E,
        "Loopback fetch proven (SSRF)",
        "a URL probe made the server fetch mcprobe's own 127.0.0.1 listener",
        emitted_by=_PROBES,
    ),
    LintRule(
        "security.undeclared_list_changed",
        _W,
        "Undeclared list_changed",
        "notifications/tools/list_changed sent although the server declared listChanged: false",
        emitted_by=_PROOFS,
    ),
)
