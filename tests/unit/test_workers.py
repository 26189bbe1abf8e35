"""The worker pool: the asyncio hand-off, one bound for both ways in, and a clean interpreter.

A tracer or profiler installed after a sync handler ran on a worker thread must
work: withdrawing an interruption (``PyThreadState_SetAsyncExc(id, NULL)``) left
CPython 3.11's "async exception pending" flag set for the whole interpreter, and
the next Python call under ``sys.settrace``/``sys.setprofile`` looped forever.
Those checks run in a subprocess with a timeout, since the failure is a hang.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from tooldeck import ToolRegistry
from tooldeck._calling.workers import HandlerTimedOut, PoolSaturated, WorkerPool

HANG = 30.0
"""Seconds a subprocess gets; the bug made it spin until killed."""


def run_python(source: str) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(source)],
            capture_output=True,
            text=True,
            timeout=HANG,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the process hung (a tracer after a worker-thread task)")
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_a_tracer_works_after_a_task_ran_on_a_worker_thread():
    done = run_python(
        """
        import sys
        from tooldeck._calling.workers import WorkerPool

        def traced():
            return sum(i for i in range(10))

        pool = WorkerPool()
        assert pool.submit(lambda: 42).result(timeout=5) == 42
        sys.settrace(lambda *args: None)
        assert traced() == 45
        sys.settrace(None)
        print("traced")
        """
    )
    assert done.stdout.strip() == "traced"


def test_a_profiler_works_after_acall_ran_sync_handlers():
    done = run_python(
        """
        import asyncio, cProfile
        from tooldeck import ToolRegistry

        def add(a: int, b: int) -> dict:
            return {"sum": a + b}

        registry = ToolRegistry()
        registry.add_tool("add", "Add.", add)
        registry.add_tool("slow_add", "Add.", add, timeout=5)

        async def calls():
            for name in ("add", "slow_add") * 20:
                assert (await registry.acall(name, {"a": 2, "b": 3})).ok
            assert registry.call("slow_add", {"a": 2, "b": 3}).ok

        asyncio.run(calls())
        profiler = cProfile.Profile()
        profiler.enable()
        asyncio.run(calls())
        profiler.disable()
        print("profiled")
        """
    )
    assert done.stdout.strip() == "profiled"


def test_a_tracer_works_after_an_interrupted_handler():
    done = run_python(
        """
        import sys, threading, time
        from tooldeck._calling.workers import HandlerTimedOut, WorkerPool

        ended = threading.Event()

        def spin():
            try:
                while True:
                    pass
            finally:
                ended.set()

        pool = WorkerPool(1)
        future = pool.submit(spin)
        time.sleep(0.05)
        assert pool.interrupt(future)
        assert ended.wait(5)
        try:
            future.result(timeout=5)
        except HandlerTimedOut:
            pass
        assert pool.submit(lambda: 7).result(timeout=5) == 7
        sys.settrace(lambda *args: None)
        assert sum(i for i in range(10)) == 45
        sys.settrace(None)
        print("traced")
        """
    )
    assert done.stdout.strip() == "traced"


def test_an_interruption_that_never_landed_in_the_handler_lands_in_the_worker():
    """Marked as interrupted but ended before the exception arrived: the next task is clean."""
    pool = WorkerPool(1)
    started = threading.Event()
    release = threading.Event()

    def handler() -> str:
        started.set()
        release.wait(5)
        return "done"

    future = pool.submit(handler)
    assert started.wait(5)
    with pool._lock:  # what interrupt() records, without an exception on its way
        (worker,) = pool._workers
        worker.interrupted = True
    release.set()
    assert future.result(timeout=5) == "done"
    for _ in range(50):
        assert pool.submit(lambda: sum(range(100))).result(timeout=5) == 4950


async def test_submit_async_completes_a_future_of_the_loop():
    pool = WorkerPool(2)
    loop = asyncio.get_running_loop()
    caller = threading.get_ident()
    assert await pool.submit_async(lambda: threading.get_ident() != caller, loop) is True

    def boom() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        await pool.submit_async(boom, loop)

    def stop() -> None:
        raise StopIteration

    with pytest.raises(RuntimeError, match="StopIteration"):
        await pool.submit_async(stop, loop)


async def test_submit_async_and_submit_share_one_bound():
    pool = WorkerPool(2)
    loop = asyncio.get_running_loop()
    gate = threading.Event()
    first = pool.submit(gate.wait)
    second = pool.submit_async(gate.wait, loop)
    with pytest.raises(PoolSaturated, match="all 2 tool worker threads are busy"):
        pool.submit_async(lambda: None, loop)
    with pytest.raises(PoolSaturated):
        pool.submit(lambda: None)
    gate.set()
    assert first.result(timeout=5) is True
    assert await second is True
    assert await pool.submit_async(lambda: 1, loop) == 1  # the slots came back
    assert await pool.submit_async(lambda: 2, loop) == 2


async def submit_when_free(pool: WorkerPool, fn: Callable[[], Any]) -> asyncio.Future[Any]:
    """``submit_async``, retried while the pool's one worker finishes its task."""
    deadline = time.monotonic() + 5
    while True:
        try:
            return pool.submit_async(fn, asyncio.get_running_loop())
        except PoolSaturated:
            assert time.monotonic() < deadline, "the slot never came back"
            await asyncio.sleep(0.01)


async def test_a_cancelled_async_task_is_skipped_or_its_outcome_dropped():
    pool = WorkerPool(1)
    loop = asyncio.get_running_loop()
    ran: list[str] = []
    assert await pool.submit_async(lambda: "warm", loop) == "warm"  # an idle worker waits
    interval = sys.getswitchinterval()
    sys.setswitchinterval(5.0)  # the worker cannot take the GIL before cancel() below
    try:
        queued = pool.submit_async(lambda: ran.append("queued"), loop)
        queued.cancel()
    finally:
        sys.setswitchinterval(interval)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(5)
        ran.append("slow")
        return "late"

    running = await submit_when_free(pool, slow)  # the skipped task held its slot a moment
    assert await asyncio.to_thread(started.wait, 5)
    running.cancel()  # the caller gives up while the handler runs: its outcome is dropped
    release.set()
    assert await (await submit_when_free(pool, lambda: "next")) == "next"
    assert ran == ["slow"]
    assert running.cancelled()


async def test_interrupt_stops_a_handler_behind_an_async_future():
    pool = WorkerPool(1)
    loop = asyncio.get_running_loop()
    ended = threading.Event()
    count = [0]

    def spin() -> None:
        try:
            while True:
                count[0] += 1
        finally:
            ended.set()

    future = pool.submit_async(spin, loop)
    await asyncio.sleep(0.05)
    assert pool.interrupt(future)
    assert pool.interrupt(future)  # already sent: not sent twice
    with pytest.raises(HandlerTimedOut):
        await future
    assert ended.is_set()
    assert pool.interrupt(future) is False  # finished: nothing to interrupt
    assert await pool.submit_async(lambda: 42, loop) == 42


async def test_acall_of_a_sync_handler_runs_on_a_worker_thread():
    caller = threading.get_ident()

    def where() -> bool:
        return threading.get_ident() != caller

    registry = ToolRegistry(max_workers=1)
    registry.add_tool("where", "Where.", where)
    results = await asyncio.gather(*(registry.acall("where") for _ in range(3)))
    assert [r.text for r in results].count("true") >= 1
    assert all(r.ok or "busy" in r.text for r in results)
    assert (await registry.acall("where")).text == "true"
