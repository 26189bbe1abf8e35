"""``tooldeck serve`` sends progress and log messages and honours cancellation, end to end.

The real console script, over stdio (the client spawns it) and over Streamable HTTP
on a free 127.0.0.1 port, spoken to by the ``mcp`` package's ``ClientSession``:
progress with a ``progressToken`` (the client's ``progress_callback``), log messages
after ``logging/setLevel`` (its ``logging_callback``), nothing of either when not
asked, and ``notifications/cancelled`` (the client cancels its own call) for a
coroutine tool and for a sync one on a worker thread, after which the server
still answers. Every wait has a deadline; nothing sleeps to let something happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.serve_process import free_port, serve_process

pytestmark = pytest.mark.slow

TOOLDECK = Path(sys.executable).parent / "tooldeck"
MODULE = "mcp_progress_handlers"
DEADLINE = 30.0

HANDLERS = """
import asyncio
import threading

from tooldeck import ToolContext


def count(n: int, ctx: ToolContext) -> str:
    for i in range(1, n + 1):
        ctx.report_progress(i, n, f"step {i}")
    ctx.log("the details", "debug")
    ctx.log(f"counted to {n}", "info")
    return "counted"


async def stuck(ctx: ToolContext) -> str:
    ctx.report_progress(1, None, "started")
    await asyncio.Event().wait()
    return "never"


def blocked(ctx: ToolContext) -> str:
    ctx.report_progress(1, None, "started")
    threading.Event().wait(120)  # a worker thread: nothing interrupts it; it ends on its own
    return "late"
"""

MANIFEST = f"""\
version: 1
tools:
  - name: count
    handler: {MODULE}:count
    description: Count to n, reporting each step.
    params:
      - {{name: n, type: integer, description: "How far"}}
  - name: stuck
    handler: {MODULE}:stuck
    description: Start and never finish (a coroutine).
  - name: blocked
    handler: {MODULE}:blocked
    description: Start and block for a long time (a worker thread).
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / f"{MODULE}.py").write_text(HANDLERS, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    return tmp_path


def serve_args(*extra: str) -> list[str]:
    return ["serve", "-m", "tools.yaml", "--allow-handlers", MODULE, *extra]


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Heard:
    """The client's callbacks: progress per call, log messages, other notifications."""

    def __init__(self) -> None:
        self.progress: dict[str, list[tuple[float, float | None, str | None]]] = {}
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.methods: list[str] = []
        self.changed = asyncio.Event()

    def on_progress_of(self, call: str) -> Any:
        got = self.progress.setdefault(call, [])

        async def callback(done: float, total: float | None, message: str | None) -> None:
            got.append((done, total, message))
            self.changed.set()

        return callback

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)
        self.changed.set()

    async def on_message(self, message: Any) -> None:
        if not isinstance(message, Exception):
            self.methods.append(message.method)
            self.changed.set()

    async def until(self, check: Any) -> None:
        async with asyncio.timeout(DEADLINE):
            while not check():
                self.changed.clear()
                await self.changed.wait()


@contextlib.asynccontextmanager
async def stdio_session(project: Path, heard: Heard) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(TOOLDECK), args=serve_args(), cwd=str(project))
    with (project / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(
                read,
                write,
                logging_callback=heard.on_log,
                message_handler=heard.on_message,
                read_timeout_seconds=DEADLINE,
            ) as s,
        ):
            async with asyncio.timeout(DEADLINE):
                await s.initialize()
            yield s


@contextlib.contextmanager
def http_server(project: Path, *extra: str) -> Iterator[str]:
    port = free_port()
    argv = [str(TOOLDECK), *serve_args("--transport", "http", "--port", str(port), *extra)]
    with serve_process(argv, cwd=project, port=port, log=project / "http.log", deadline=DEADLINE):
        yield f"http://127.0.0.1:{port}/mcp"


@contextlib.asynccontextmanager
async def http_session(url: str, heard: Heard) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(
            read,
            write,
            logging_callback=heard.on_log,
            message_handler=heard.on_message,
            read_timeout_seconds=DEADLINE,
        ) as s,
    ):
        async with asyncio.timeout(DEADLINE):
            await s.initialize()
        yield s


async def set_level(session: ClientSession, level: str) -> None:
    with warnings.catch_warnings():  # the logging capability is deprecated as of 2026-07-28
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await session.set_logging_level(level)  # type: ignore[arg-type]


# ------------------------------------------------------------------ the checks
async def check_progress_and_logs(session: ClientSession, heard: Heard) -> None:
    assert session.initialize_result is not None
    assert session.initialize_result.capabilities.logging is not None

    # Not asked: neither progress nor log messages.
    assert text_of(await session.call_tool("count", {"n": 3})) == "counted"
    # Asked for progress only: progress, still no log messages.
    asked = await session.call_tool("count", {"n": 5}, progress_callback=heard.on_progress_of("a"))
    assert text_of(asked) == "counted"
    await heard.until(lambda: heard.progress["a"] and heard.progress["a"][-1][0] == 5)
    got = heard.progress["a"]
    assert got[-1] == (5, 5, "step 5")
    assert [p[0] for p in got] == sorted({p[0] for p in got})  # growing, coalesced maybe
    assert heard.logs == []

    # A level set: messages at or above it, from every later call of this connection.
    await set_level(session, "info")
    assert text_of(await session.call_tool("count", {"n": 2})) == "counted"
    await heard.until(lambda: heard.logs)
    assert [(m.level, m.data, m.logger) for m in heard.logs] == [("info", "counted to 2", "count")]
    # Every progress notification the client saw was call "a"'s (the tee to message_handler
    # runs apart from the callbacks: wait for it, then count).
    await heard.until(lambda: heard.methods.count("notifications/progress") >= len(got))
    assert heard.methods.count("notifications/progress") == len(got)


async def check_cancellation(session: ClientSession, heard: Heard, tool: str) -> None:
    call = asyncio.create_task(
        session.call_tool(tool, {}, progress_callback=heard.on_progress_of(tool))
    )
    await heard.until(lambda: heard.progress.get(tool))
    assert heard.progress[tool] == [(1, None, "started")]
    call.cancel()  # the client sends notifications/cancelled
    with pytest.raises(asyncio.CancelledError):
        await call
    # The server stays responsive: the next call is answered.
    assert text_of(await session.call_tool("count", {"n": 1})) == "counted"


# ------------------------------------------------------------------ stdio
async def test_progress_and_logs_over_stdio(project: Path):
    heard = Heard()
    async with stdio_session(project, heard) as session:
        await check_progress_and_logs(session, heard)


@pytest.mark.parametrize("tool", ["stuck", "blocked"])
async def test_cancelling_a_call_over_stdio(project: Path, tool: str):
    heard = Heard()
    async with stdio_session(project, heard) as session:
        await check_cancellation(session, heard, tool)
        await check_cancellation(session, heard, tool)  # again: no slot or task leaked
    assert "Traceback" not in (project / "stderr.log").read_text()


# ------------------------------------------------------------------ Streamable HTTP
async def test_progress_and_logs_over_http(project: Path):
    heard = Heard()
    with http_server(project) as url:
        async with http_session(url, heard) as session:
            await check_progress_and_logs(session, heard)
        other = Heard()  # the level belongs to the first session, not to this one
        async with http_session(url, other) as session:
            assert text_of(await session.call_tool("count", {"n": 1})) == "counted"
            await session.call_tool("count", {"n": 1}, progress_callback=other.on_progress_of("b"))
            await other.until(lambda: other.progress["b"])
        assert other.logs == []


def audit_lines(path: Path, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + DEADLINE
    while True:
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        if len(lines) >= count or time.monotonic() > deadline:
            return [json.loads(line) for line in lines]
        time.sleep(0.05)


async def test_cancelling_calls_over_http_is_audited_as_cancelled(project: Path):
    log = project / "audit.jsonl"
    heard = Heard()
    with http_server(project, "--audit-log", str(log)) as url:
        async with http_session(url, heard) as session:
            await check_cancellation(session, heard, "stuck")
            await check_cancellation(session, heard, "blocked")
        lines = audit_lines(log, 4)
    outcomes = {(line["tool"], line["outcome"]) for line in lines}
    assert outcomes == {("stuck", "cancelled"), ("blocked", "cancelled"), ("count", "ok")}
    assert len(lines) == 4
    assert "Traceback" not in (project / "http.log").read_text()
