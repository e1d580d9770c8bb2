"""Secrets out of the six tools' results, field by field (``report/redact.py``).

Each tool's structured result is scrubbed as data: the target's strings (server identity,
capabilities, raw tool/resource/prompt definitions, everything inside the report) lose every
secret, mcprobe's own values (connection ids, Literal fields, the report's vocabulary) are
never touched. The text rendering is built from the scrubbed values and then scrubbed as
prose, so nothing is searched and replaced in serialised JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache

from pydantic import BaseModel

from mcprobe.report.redact import Redactor, Rules, core_vocabulary
from mcprobe.server.models import (
    ConnectOutput,
    DisconnectOutput,
    FuzzOutput,
    LintOutput,
    ListOutput,
)

__all__ = ["SERVER_RULES", "server_redactor"]

SERVER_RULES: Rules = {
    ConnectOutput: {
        "connection_id": "keep",
        "default_connection_id": "keep",
        "name": "data",
        "version": "data",
        "protocol_version": "data",
        "instructions": "data",
        "capabilities": "value",
    },
    LintOutput: {"connection_id": "keep"},
    FuzzOutput: {"connection_id": "keep", "crashed_by": "case"},
    ListOutput: {
        "connection_id": "keep",
        "tools": "value",
        "resources": "value",
        "resource_templates": "value",
        "prompts": "value",
    },
    DisconnectOutput: {"removed": "keep", "remaining": "keep", "default_connection_id": "keep"},
}

_OUTPUTS: tuple[type[BaseModel], ...] = (
    ConnectOutput,
    LintOutput,
    FuzzOutput,
    ListOutput,
    DisconnectOutput,
)


@cache
def _vocabulary() -> str:
    schemas = [json.dumps(model.model_json_schema(by_alias=True)) for model in _OUTPUTS]
    return "\n".join([core_vocabulary(), *schemas])


def server_redactor(secrets: Iterable[str]) -> Redactor:
    """A redactor whose vocabulary also holds the six tools' output schemas."""
    secrets = tuple(secrets)
    return Redactor.of(secrets, _vocabulary() if secrets else "")
