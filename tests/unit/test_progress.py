"""Progress and log messages from handlers (``ToolContext``), ``tooldeck.reporting``, and
``acall`` under asyncio cancellation (a coroutine handler, a sync one on a worker thread,
a pending approval)."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from typing import Any

import pytest

from tooldeck import ToolContext, ToolRegistry, reporting
from tooldeck._progress import MESSAGE_LIMIT, current_reporter


class Heard:
    """Both callbacks of ``reporting``, recording what they got and on which thread."""

    def __init__(self) -> None:
        self.progress: list[tuple[float, float | None, str | None]] = []
        self.logs: list[tuple[str, str, str]] = []
        self.threads: set[str] = set()

    def on_progress(self, done: float, total: float | None, message: str | None) -> None:
        self.progress.append((done, total, message))
        self.threads.add(threading.current_thread().name)

    def on_log(self, level: str, message: str, logger: str) -> None:
        self.logs.append((level, message, logger))


def steps(n: int, ctx: ToolContext) -> str:
    """Count to n, reporting each step."""
    for i in range(1, n + 1):
        ctx.report_progress(i, n, f"step {i}")
    ctx.log(f"counted to {n}", "notice")
    return "done"


async def asteps(n: int, ctx: ToolContext) -> str:
    """Count to n from a coroutine."""
    for i in range(1, n + 1):
        ctx.report_progress(i, n)
        await asyncio.sleep(0)
    ctx.log("finished", "debug")
    return "done"


def registry(**options: Any) -> ToolRegistry:
    reg = ToolRegistry(**options)
    reg.add_tool(None, None, steps)
    reg.add_tool("steps_in_thread", "Count on a worker thread.", steps, timeout=30.0)
    reg.add_tool(None, None, asteps)
    return reg


# ------------------------------------------------------------------ the Python API
def test_reporting_hears_a_sync_handler_called_with_call():
    heard = Heard()
    with reporting(on_progress=heard.on_progress, on_log=heard.on_log):
        assert registry().call("steps", {"n": 3}).ok
    assert heard.progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert heard.logs == [("notice", "counted to 3", "steps")]
    assert current_reporter.get() is None  # the block ended: nobody listens any more


def test_a_handler_on_a_worker_thread_reaches_the_listener_of_its_call():
    heard = Heard()
    with reporting(on_progress=heard.on_progress):
        assert registry().call("steps_in_thread", {"n": 2}).ok
    assert [p[0] for p in heard.progress] == [1, 2]
    assert heard.threads == {"tooldeck-tool"}


async def test_acall_reaches_the_listener_from_a_worker_thread_and_a_coroutine():
    reg = registry()
    heard = Heard()
    with reporting(on_progress=heard.on_progress, on_log=heard.on_log):
        assert (await reg.acall("steps", {"n": 2})).ok  # a sync handler: a worker thread
        assert (await reg.acall("asteps", {"n": 2})).ok
    assert heard.progress == [(1, 2, "step 1"), (2, 2, "step 2"), (1, 2, None), (2, 2, None)]
    assert heard.logs == [("notice", "counted to 2", "steps"), ("debug", "finished", "asteps")]


async def test_each_task_hears_only_its_own_calls():
    reg = registry()
    first, second = Heard(), Heard()

    async def listen(heard: Heard, n: int) -> None:
        with reporting(on_progress=heard.on_progress):
            assert (await reg.acall("asteps", {"n": n})).ok

    await asyncio.gather(listen(first, 2), listen(second, 3))
    assert [p[0] for p in first.progress] == [1, 2]
    assert [p[0] for p in second.progress] == [1, 2, 3]


@pytest.mark.parametrize("tool", ["steps", "steps_in_thread", "asteps"])
def test_a_parallel_batch_reports_every_call(tool):
    heard = Heard()
    with reporting(on_progress=heard.on_progress):
        results = registry().call_many([(tool, {"n": 1})] * 3, strategy="parallel")
    assert all(r.ok for r in results)
    assert [p[0] for p in heard.progress] == [1, 1, 1]


def test_nobody_listening_is_fine_and_the_context_holds_no_listener():
    seen: list[ToolContext] = []
    reg = ToolRegistry()

    def quiet(ctx: ToolContext) -> str:
        seen.append(ctx)
        ctx.report_progress(1, 1, "all")
        ctx.log("nobody hears this")
        return "ok"

    reg.add_tool(None, None, quiet)
    assert reg.call("quiet").ok
    assert seen[0]._reporter is None


def test_messages_are_masked_and_cut_before_they_leave(caplog):
    reg = registry()
    reg.secrets.add("hunter2-secret")

    def chatty(ctx: ToolContext) -> str:
        ctx.report_progress(1, None, "token hunter2-secret in use")
        ctx.log("x" * (MESSAGE_LIMIT + 50) + " hunter2-secret", "warning")
        return "ok"

    reg.add_tool(None, None, chatty)
    heard = Heard()
    with (
        caplog.at_level(logging.DEBUG, logger="tooldeck.tool"),
        reporting(on_progress=heard.on_progress, on_log=heard.on_log),
    ):
        assert reg.call("chatty").ok
    assert heard.progress == [(1, None, "token *** in use")]
    ((level, message, logger),) = heard.logs
    assert (level, logger) == ("warning", "chatty")
    assert message.startswith("x" * MESSAGE_LIMIT + "... [cut 54 characters]")
    assert "hunter2" not in caplog.text
    (record,) = [r for r in caplog.records if r.name == "tooldeck.tool.chatty"]
    assert record.levelno == logging.WARNING


def test_log_reaches_python_logging_under_the_tool_name(caplog):
    with caplog.at_level(logging.DEBUG, logger="tooldeck.tool"):
        assert registry().call("steps", {"n": 1}).ok
    (record,) = [r for r in caplog.records if r.name == "tooldeck.tool.steps"]
    assert record.levelno == logging.INFO  # notice: Python logging's nearest level below
    assert record.getMessage() == "counted to 1"


@pytest.mark.parametrize(
    ("done", "total", "error"),
    [
        (float("nan"), None, ValueError),
        (float("inf"), None, ValueError),
        (-1, None, ValueError),
        (1, -5, ValueError),
        (1, float("inf"), ValueError),
        ("3", None, TypeError),
        (True, None, TypeError),
        (1, "10", TypeError),
    ],
)
def test_bad_progress_values_raise_to_the_handler_listening_or_not(done, total, error):
    caught: list[BaseException] = []
    reg = ToolRegistry()

    def sloppy(ctx: ToolContext) -> str:
        try:
            ctx.report_progress(done, total)
        except (TypeError, ValueError) as exc:
            caught.append(exc)
        return "went on"

    reg.add_tool(None, None, sloppy)
    heard = Heard()
    assert reg.call("sloppy").text == "went on"
    with reporting(on_progress=heard.on_progress):
        assert reg.call("sloppy").text == "went on"
    assert [type(e) for e in caught] == [error, error]
    assert heard.progress == []


def test_an_unknown_level_fails_the_call_as_the_handlers_error():
    reg = ToolRegistry()

    def shouty(ctx: ToolContext) -> str:
        ctx.log("hey", "loud")  # type: ignore[arg-type]
        return "never"

    reg.add_tool(None, None, shouty)
    result = reg.call("shouty")
    assert not result.ok
    assert "level must be one of debug, info, notice" in result.text


def test_a_listener_that_raises_is_logged_and_the_call_goes_on(caplog):
    def broken(*args: object) -> None:
        raise RuntimeError("listener bug")

    with (
        caplog.at_level(logging.WARNING, logger="tooldeck.registry"),
        reporting(on_progress=broken, on_log=broken),
    ):
        result = registry().call("steps", {"n": 2})
    assert result.ok
    assert "a progress/log listener raised" in caplog.text


# -------------------------------------------------------------------- cancellation
async def test_cancelling_acall_cancels_a_coroutine_handler():
    started, saw = asyncio.Event(), []
    reg = ToolRegistry()

    async def forever() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            saw.append("cancelled")
            raise
        return "never"

    reg.add_tool(None, None, forever)
    task = asyncio.create_task(reg.acall("forever"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert saw == ["cancelled"]
    assert (await reg.acall("asteps_missing")).error.kind == "unknown_tool"


@pytest.mark.parametrize("timeout", [None, 30.0])
@pytest.mark.parametrize("fails", [False, True])
async def test_cancelling_acall_drops_a_sync_handlers_outcome_and_frees_its_slot(
    timeout, fails, caplog
):
    """The worker is not interrupted: it finishes on its own, its outcome goes nowhere
    (not even an "exception was never retrieved" log), and its pool slot comes back."""
    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    reg = ToolRegistry()

    def blocking() -> str:
        started.set()
        release.wait(30)
        finished.set()
        if fails:
            raise RuntimeError("late failure")
        return "late"

    reg.add_tool(None, None, blocking, timeout=timeout)
    pool = reg._policy.pool
    task = asyncio.create_task(reg.acall("blocking"))
    await asyncio.to_thread(started.wait, 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert pool._busy == 1  # the thread still runs the handler
    release.set()
    await asyncio.to_thread(finished.wait, 30)
    while pool._busy:  # the worker gives its slot back right after the handler returns
        await asyncio.sleep(0.01)
    await asyncio.sleep(0)  # the hand-off to this loop (call_soon_threadsafe) has run
    gc.collect()
    assert "never retrieved" not in caplog.text
    assert "Traceback" not in caplog.text
    reg.add_tool("again", "x", lambda: "fine")
    assert (await reg.acall("again")).text == "fine"


async def test_cancelling_acall_while_an_approval_is_pending():
    asked = asyncio.Event()
    answered: list[str] = []

    async def approve(request: Any) -> bool:
        asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            answered.append("abandoned")
            raise
        return True

    ran: list[str] = []
    reg = ToolRegistry(approve=approve)
    reg.add_tool("delete", "Delete.", lambda: ran.append("ran") or "deleted", side_effects=True)
    task = asyncio.create_task(reg.acall("delete"))
    await asyncio.wait_for(asked.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert answered == ["abandoned"]
    assert ran == []  # never approved, never run
    reg.add_tool("read", "Read.", lambda: "read")
    assert (await reg.acall("read")).text == "read"
