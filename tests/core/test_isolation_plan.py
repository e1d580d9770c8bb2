"""The sandbox plan (``core/isolation.plan_sandbox``): what a target can reach inside."""

from __future__ import annotations

from mcprobe.core.isolation import PathFacts, SandboxFacts, plan_sandbox


def _binds(args: tuple[str, ...], flag: str) -> list[str]:
    return [args[i + 1] for i, arg in enumerate(args) if arg == flag]


def test_a_command_installed_under_tmp_stays_reachable_behind_the_private_tmp() -> None:
    # A checkout (and its venv) under /tmp, as in a CI clone: /tmp is a fresh tmpfs inside the
    # sandbox, so without a bind back the interpreter is gone ("execvp ...: No such file").
    facts = SandboxFacts(
        home="/root",
        cwd="/srv/work",
        named=(PathFacts("/srv/work", True, 10, 1),),
        commands=("/tmp/ci.abcd/p/.venv/bin/python",),
        toolchain=(),
        secrets=(),
    )
    plan = plan_sandbox(facts)
    args = plan.bwrap_args
    assert "/tmp/ci.abcd" in _binds(args, "--ro-bind-try")
    # ... bound after the private /tmp, so it covers it
    assert args.index("/tmp/ci.abcd") > args.index("--tmpfs")
    assert plan.copies == ("/srv/work",)


def test_a_path_named_under_tmp_is_a_private_copy_and_its_neighbours_stay_hidden() -> None:
    facts = SandboxFacts(
        home="/root",
        cwd="/srv/work",
        named=(PathFacts("/srv/work", True, 10, 1), PathFacts("/tmp/fixture/data", True, 10, 1)),
        commands=("/usr/bin/python3",),
        toolchain=(),
        secrets=(),
    )
    plan = plan_sandbox(facts)
    assert "/tmp/fixture/data" in plan.copies
    assert not any(p.startswith("/tmp") for p in _binds(plan.bwrap_args, "--ro-bind-try"))
