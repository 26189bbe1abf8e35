"""Progress, log messages and cancellation over MCP, in process: the low-level server on
memory streams, spoken to by the mcp client, with the server's writes recorded."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import warnings
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.memory import create_client_server_memory_streams

from tests.unit.test_mcp_server import Sent, text_of
from tooldeck import ToolContext, ToolRegistry
from tooldeck.mcp import RegistryServer, build_server
from tooldeck.mcp._serving import CallRecord
from tooldeck.mcp._serving.notify import CallNotifier

DEADLINE = 10.0


class Client:
    """What the client heard: progress (per call) and log messages."""

    def __init__(self) -> None:
        self.progress: list[tuple[float, float | None, str | None]] = []
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.changed = asyncio.Event()

    async def on_progress(self, done: float, total: float | None, message: str | None) -> None:
        self.progress.append((done, total, message))
        self.changed.set()

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)
        self.changed.set()

    async def until(self, check: Any) -> None:
        async with asyncio.timeout(DEADLINE):
            while not check():
                self.changed.clear()
                await self.changed.wait()


@contextlib.asynccontextmanager
async def connected(
    served: RegistryServer,
    client: Client | None = None,
    *,
    sent: list[Sent] | None = None,
    modern_level: str | None = None,
) -> AsyncIterator[ClientSession]:
    """A session on ``served``; ``modern_level`` speaks 2026-07-28 with that log level."""
    async with (
        create_client_server_memory_streams() as (client_streams, server_streams),
        anyio.create_task_group() as tg,
    ):
        recorder = Sent(server_streams[1])
        if sent is not None:
            sent.append(recorder)
        tg.start_soon(
            lambda: served.server.run(server_streams[0], recorder, served.initialization_options())
        )
        async with ClientSession(
            client_streams[0],
            client_streams[1],
            logging_callback=client.on_log if client else None,
            read_timeout_seconds=DEADLINE,
            log_level=modern_level,  # type: ignore[arg-type]
        ) as session:
            if modern_level is not None:
                await session.discover()
            else:
                await session.initialize()
            yield session
        tg.cancel_scope.cancel()


async def set_level(session: ClientSession, level: str) -> None:
    with warnings.catch_warnings():  # the logging capability is deprecated as of 2026-07-28
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await session.set_logging_level(level)  # type: ignore[arg-type]


def notifications(sent: Sent, method: str) -> list[dict[str, Any]]:
    return [
        m.message.params or {}
        for m in sent.messages
        if getattr(m.message, "method", None) == method and getattr(m.message, "id", None) is None
    ]


def work(n: int, ctx: ToolContext) -> str:
    """Report n steps and log at two levels."""
    for i in range(1, n + 1):
        ctx.report_progress(i, n, f"step {i}")
    ctx.log("details", "debug")
    ctx.log(f"worked {n}", "warning")
    return "worked"


async def awork(n: int, ctx: ToolContext) -> str:
    """The same from a coroutine."""
    for i in range(1, n + 1):
        ctx.report_progress(i, n)
        await asyncio.sleep(0)
    return "worked"


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.add_tool(None, None, work)
    reg.add_tool(None, None, awork)
    return reg


# ------------------------------------------------------------------------- progress
@pytest.mark.parametrize("tool", ["work", "awork"])
async def test_progress_reaches_a_client_that_asked(tool):
    served = build_server(registry())
    served.progress_interval = 0  # no rate limit
    heard, sent = Client(), []
    async with connected(served, heard, sent=sent) as session:
        result = await session.call_tool(tool, {"n": 3}, progress_callback=heard.on_progress)
        assert text_of(result) == "worked"
        await heard.until(lambda: heard.progress and heard.progress[-1][0] == 3)
    # newer reports replace one not sent yet (a worker thread outruns the loop): a subset,
    # growing, ending with the last one
    assert set(heard.progress) <= {
        (i, 3, f"step {i}" if tool == "work" else None) for i in (1, 2, 3)
    }
    assert [p[0] for p in heard.progress] == sorted({p[0] for p in heard.progress})
    assert heard.progress[-1][:2] == (3, 3)
    (recorder,) = sent
    methods = [getattr(m.message, "method", "answer") for m in recorder.messages[-4:]]
    assert methods[-1] == "answer"  # every progress notification went before the answer


async def test_no_progress_and_no_log_unless_asked_and_no_logging_capability_lost():
    served = build_server(registry())
    sent: list[Sent] = []
    async with connected(served, sent=sent) as session:
        assert session.initialize_result.capabilities.logging is not None  # type: ignore[union-attr]
        assert text_of(await session.call_tool("work", {"n": 3})) == "worked"
    (recorder,) = sent
    assert notifications(recorder, "notifications/progress") == []
    assert notifications(recorder, "notifications/message") == []


async def test_a_flood_of_progress_is_coalesced_and_the_last_one_is_kept():
    """With an interval no call lasts, only the first report and the last one go out."""
    served = build_server(registry())
    served.progress_interval = 3600.0
    heard, sent = Client(), []
    async with connected(served, heard, sent=sent) as session:
        result = await session.call_tool("awork", {"n": 200}, progress_callback=heard.on_progress)
        assert not result.is_error
    (recorder,) = sent
    sent_progress = [p["progress"] for p in notifications(recorder, "notifications/progress")]
    assert sent_progress[-1] == 200  # the final done == total is never lost
    assert len(sent_progress) <= 2
    assert sent_progress == sorted(set(sent_progress))


async def test_the_notifier_drops_progress_that_does_not_grow():
    sent: list[tuple[float, float | None, str | None]] = []

    async def send(done: float, total: float | None, message: str | None) -> None:
        sent.append((done, total, message))

    notifier = CallNotifier(
        asyncio.get_running_loop(), send_progress=send, send_log=None, log_level=None, interval=0
    )
    for done in (1, 1, 0.5, 2):
        notifier.progress(done, 2, None)
    await notifier.aclose()
    notifier.progress(3, 3, None)  # after the answer: nothing more
    await asyncio.sleep(0)
    assert [d for d, _, _ in sent][-1] == 2
    assert all(a[0] < b[0] for a, b in itertools.pairwise(sent))
    assert (3, 3, None) not in sent


# --------------------------------------------------------------------------- logging
async def test_log_messages_only_after_set_level_and_at_or_above_it():
    served = build_server(registry())
    heard = Client()
    async with connected(served, heard) as session:
        await session.call_tool("work", {"n": 1})
        assert heard.logs == []  # no level set: nothing sent
        await set_level(session, "info")
        await session.call_tool("work", {"n": 1})
        await heard.until(lambda: heard.logs)
        await set_level(session, "debug")
        await session.call_tool("work", {"n": 2})
        await heard.until(lambda: len(heard.logs) == 3)
    assert [(m.level, m.data, m.logger) for m in heard.logs] == [
        ("warning", "worked 1", "work"),
        ("debug", "details", "work"),
        ("warning", "worked 2", "work"),
    ]


async def test_the_level_is_per_connection():
    served = build_server(registry())
    first, second = Client(), Client()
    async with connected(served, first) as one, connected(served, second) as two:
        await set_level(one, "debug")
        await two.call_tool("work", {"n": 1})
        await one.call_tool("work", {"n": 1})
        await first.until(lambda: len(first.logs) == 2)
        await two.call_tool("awork", {"n": 1})  # a round trip after the first call's answer
    assert second.logs == []


async def test_a_modern_client_asks_for_log_messages_per_request():
    served = build_server(registry())
    heard = Client()
    async with connected(served, heard, modern_level="warning") as session:
        await session.call_tool("work", {"n": 1})
        await heard.until(lambda: heard.logs)
    assert [(m.level, m.data) for m in heard.logs] == [("warning", "worked 1")]


async def test_log_messages_are_masked():
    reg = registry()
    reg.secrets.add("s3cr3t-value")

    def leaky(ctx: ToolContext) -> str:
        ctx.log("using s3cr3t-value now", "error")
        ctx.report_progress(1, 1, "s3cr3t-value")
        return "ok"

    reg.add_tool(None, None, leaky)
    served = build_server(reg)
    heard = Client()
    async with connected(served, heard) as session:
        await set_level(session, "debug")
        await session.call_tool("leaky", {}, progress_callback=heard.on_progress)
        await heard.until(lambda: heard.logs and heard.progress)
    assert heard.logs[0].data == "using *** now"
    assert heard.progress == [(1, 1, "***")]


# ---------------------------------------------------------------------- cancellation
async def test_cancelling_a_coroutine_tool_cancels_it_and_records_cancelled():
    started, saw = asyncio.Event(), []
    reg = registry()

    async def stuck() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            saw.append("cancelled")
            raise
        return "never"

    reg.add_tool(None, None, stuck)
    served = build_server(reg)
    records: list[CallRecord] = []
    served.call_observers.append(records.append)
    heard = Client()
    async with connected(served, heard) as session:
        call = asyncio.create_task(session.call_tool("stuck", {}))
        await asyncio.wait_for(started.wait(), DEADLINE)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        async with asyncio.timeout(DEADLINE):
            while not records:
                await asyncio.sleep(0.01)
        assert text_of(await session.call_tool("work", {"n": 1})) == "worked"
    assert saw == ["cancelled"]
    assert [r.outcome for r in records] == ["cancelled", "ok"]


async def test_cancelling_a_sync_tool_ends_the_wait_and_the_worker_finishes_alone():
    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    reg = registry()

    def blocking(ctx: ToolContext) -> str:
        started.set()
        release.wait(DEADLINE)
        ctx.report_progress(1, 1, "too late")  # the call is over: nobody hears this
        finished.set()
        return "late"

    reg.add_tool(None, None, blocking)
    pool = reg._policy.pool
    served = build_server(reg)
    records: list[CallRecord] = []
    served.call_observers.append(records.append)
    heard, sent = Client(), []
    async with connected(served, heard, sent=sent) as session:
        call = asyncio.create_task(
            session.call_tool("blocking", {}, progress_callback=heard.on_progress)
        )
        await asyncio.to_thread(started.wait, DEADLINE)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        async with asyncio.timeout(DEADLINE):
            while not records:
                await asyncio.sleep(0.01)
        assert records[0].outcome == "cancelled"
        assert pool._busy == 1  # still running, still counted
        assert text_of(await session.call_tool("work", {"n": 1})) == "worked"  # responsive
        release.set()
        await asyncio.to_thread(finished.wait, DEADLINE)
        async with asyncio.timeout(DEADLINE):
            while pool._busy:
                await asyncio.sleep(0.01)
    (recorder,) = sent
    assert notifications(recorder, "notifications/progress") == []
    answers = [m for m in recorder.messages if getattr(m.message, "id", None) is not None]
    assert len(answers) == 3  # initialize, the second call; the cancelled call is never answered
    assert heard.progress == []
