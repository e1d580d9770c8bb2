"""The canary: one random variable mcprobe adds to a stdio target's environment
(``MCPROBE_CANARY_<random>=<random>``). It is not a secret and carries nothing real; if its value
ever comes back in an answer, the server provably hands its environment to the model
(``security.canary_leak``, detected by ``core/security/proofs.py``). The randomness lives here,
in the I/O layer, so the pure core stays deterministic."""

from __future__ import annotations

import secrets
from dataclasses import replace

from mcprobe.core.target_spec import (
    CANARY_PREFIX,
    TRANSPORTS_BY_NAME,
    TargetSpec,
    seeded_canary,
)

__all__ = ["with_canary"]


def with_canary(spec: TargetSpec, seed: int | None = None) -> TargetSpec:
    """``spec`` with a fresh canary in its environment (a transport whose target takes an
    ``env``: stdio; a spec that already has one, or has no environment, is returned unchanged).
    ``seed``: an explicit ``--seed``: the canary that seed gives (``seeded_canary``)."""
    if "env" not in TRANSPORTS_BY_NAME[spec.transport].fields or spec.canary() is not None:
        return spec
    if seed is not None:
        name, value = seeded_canary(seed)
        return replace(spec, env={**spec.env, name: value})
    name = CANARY_PREFIX + secrets.token_hex(4).upper()
    value = "mcprobe-canary-" + secrets.token_hex(12)
    return replace(spec, env={**spec.env, name: value})
