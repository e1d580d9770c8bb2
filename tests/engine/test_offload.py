"""``engine.offload.computed``: a pure step on a daemon thread, the event loop free meanwhile."""

from __future__ import annotations

import threading

import anyio
import pytest

from mcprobe.engine.offload import computed

pytestmark = pytest.mark.anyio


async def test_the_step_s_result_comes_back_from_its_thread() -> None:
    where: list[str] = []

    def step() -> int:
        where.append(threading.current_thread().name)
        return 42

    assert await computed(step) == 42
    assert where == ["mcprobe-computation"]


async def test_the_step_s_exception_is_raised_in_the_waiting_task() -> None:
    def step() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await computed(step)


async def test_the_loop_keeps_running_while_a_step_computes() -> None:
    release = threading.Event()
    ticks = 0

    def step() -> str:
        return "released" if release.wait(10) else "the loop never ran"

    async def ticker() -> None:
        nonlocal ticks
        while ticks < 5:
            ticks += 1
            await anyio.sleep(0.01)
        release.set()  # the loop ran while the step was blocked: let it finish

    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        assert await computed(step) == "released"
    assert ticks == 5


async def test_a_cancelled_wait_abandons_a_daemon_thread_that_holds_up_nothing() -> None:
    release = threading.Event()
    threads: list[threading.Thread] = []

    def step() -> None:
        threads.append(threading.current_thread())
        release.wait(30)  # a computation that does not end when its waiter goes

    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(computed, step)
            while not threads:  # noqa: ASYNC110 (a thread appends: no event to await)
                await anyio.sleep(0.01)
            scope.cancel()
    assert scope.cancelled_caught
    assert threads[0].is_alive() and threads[0].daemon  # abandoned, and no exit waits for it
    release.set()
    threads[0].join(5)
    assert not threads[0].is_alive()
