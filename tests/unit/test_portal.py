"""Coroutine handlers run on the application's event loop, from sync and async callers.

The handlers here are *loop-bound*: they await a future or a queue created on
the application's loop, as an MCP client session or a connection pool would.
Under a fresh ``asyncio.run`` such a handler fails ("attached to a different
loop"); through the registry's portal it works from any thread.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tooldeck import Decision, ToolRegistry
from tooldeck._portal import LoopPortal, PortalClosed, run_coroutine


class AppLoop:
    """An application event loop in its own thread, holding a loop-bound connection.

    The connection (a stream to a small echo server on 127.0.0.1) belongs to
    this loop, as an MCP client session does: reading it from another loop
    fails with "attached to a different loop".
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.served = threading.Event()
        self.server, self.reader, self.writer, self.lock = self.submit(self._connect())

    async def _connect(self) -> tuple[Any, asyncio.StreamReader, asyncio.StreamWriter, Any]:
        async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while line := await reader.readline():
                    writer.write(line.replace(b"ping", b"pong"))
                    await writer.drain()
            finally:
                writer.close()
                self.served.set()

        server = await asyncio.start_server(echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return server, reader, writer, asyncio.Lock()

    async def ping(self) -> str:
        """Ask over the connection; the answer is read by the app loop's transport.

        The reply is held back a moment so the read always has to wait, and
        waiting on another loop's stream is what fails without the portal.
        """
        async with self.lock:
            self.loop.call_soon_threadsafe(self.loop.call_later, 0.1, self.writer.write, b"ping\n")
            return (await self.reader.readline()).decode().strip()

    def submit(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)

    async def _close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()
        await asyncio.to_thread(self.served.wait, 10)
        self.server.close()
        await self.server.wait_closed()

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        if self.loop.is_running():
            self.submit(self._close())
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture
def app() -> Iterator[AppLoop]:
    app = AppLoop()
    yield app
    app.stop()


def bound_registry(app: AppLoop, **options: Any) -> ToolRegistry:
    """A registry with one handler that needs the app's loop (it reads the app's queue)."""
    registry = ToolRegistry(loop=app.loop, **options)

    async def ping() -> dict[str, Any]:
        """Talk over a connection that belongs to the application's loop."""
        message = await app.ping()
        return {"message": message, "on_app_loop": asyncio.get_running_loop() is app.loop}

    registry.add_tool("ping", "Ping.", ping)
    return registry


def test_a_sync_call_from_another_thread_runs_on_the_app_loop(app):
    registry = bound_registry(app)
    result = registry.call("ping")
    assert result.ok, result.text
    assert result.value == {"message": "pong", "on_app_loop": True}


def test_without_the_portal_the_same_handler_fails(app):
    registry = bound_registry(app)
    registry.use_loop(None)
    result = registry.call("ping")
    assert not result.ok
    assert result.error.kind == "execution_error"
    assert "loop" in result.error.message


def test_acall_from_another_loop_runs_on_the_app_loop(app):
    registry = bound_registry(app)
    result = asyncio.run(registry.acall("ping"))
    assert result.value == {"message": "pong", "on_app_loop": True}


def test_acall_on_the_app_loop_awaits_directly(app):
    registry = bound_registry(app)
    result = app.submit(registry.acall("ping"))
    assert result.value == {"message": "pong", "on_app_loop": True}


def test_a_registry_created_inside_a_running_loop_belongs_to_it():
    async def main() -> tuple[bool, Any]:
        loop = asyncio.get_running_loop()
        registry = ToolRegistry()
        queue: asyncio.Queue[int] = asyncio.Queue()
        queue.put_nowait(7)

        async def take() -> int:
            return await queue.get()

        registry.add_tool("take", "Take.", take)
        result = await asyncio.to_thread(registry.call, "take")  # a sync caller elsewhere
        return registry.loop is loop, result.value

    assert asyncio.run(main()) == (True, 7)
    assert ToolRegistry().loop is None


def test_a_sync_call_on_the_loop_thread_itself_falls_back_to_a_fresh_loop():
    """Waiting for its own loop would deadlock; a loop-agnostic coroutine still runs."""

    async def main() -> Any:
        registry = ToolRegistry()

        async def later() -> str:
            await asyncio.sleep(0)
            return "done"

        registry.add_tool("later", "Later.", later)
        return registry.call("later").value

    assert asyncio.run(main()) == "done"


def test_a_loop_that_stops_mid_call_is_an_error_not_a_hang(app):
    registry = ToolRegistry(loop=app.loop)
    started = threading.Event()

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    registry.add_tool("forever", "Never returns.", forever)
    threading.Thread(target=lambda: (started.wait(10), app.stop()), daemon=True).start()
    began = time.monotonic()
    result = registry.call("forever")
    assert time.monotonic() - began < 30
    assert result.error.kind == "execution_error"
    assert "event loop stopped" in result.error.message


def test_a_closed_loop_falls_back_to_a_fresh_one(app):
    registry = ToolRegistry(loop=app.loop)

    async def plain() -> int:
        return 1

    registry.add_tool("plain", "Plain.", plain)
    app.stop()
    assert registry.call("plain").value == 1


def test_timeouts_cancel_the_handler_on_the_app_loop(app):
    registry = ToolRegistry(loop=app.loop)
    cancelled = threading.Event()

    async def slow() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    registry.add_tool("slow", "Slow.", slow, timeout=0.2)
    result = registry.call("slow")
    assert result.error.kind == "timeout"
    assert cancelled.wait(10)


def test_async_approvers_and_hooks_run_on_the_app_loop(app):
    asked: list[bool] = []

    async def approve(request: Any) -> Decision:
        asked.append(asyncio.get_running_loop() is app.loop)
        assert await app.ping() == "pong"  # loop-bound, like asking an MCP client
        return Decision.approve()

    async def audit(event: Any, result: Any) -> None:
        asked.append(asyncio.get_running_loop() is app.loop)

    registry = ToolRegistry(loop=app.loop, approve=approve)
    registry.on_call(after=audit)
    registry.add_tool("write", "Write.", lambda: "written", side_effects=True)
    assert registry.call("write").text == "written"
    assert asyncio.run(registry.acall("write")).text == "written"
    assert asked == [True, True, True, True]


def test_parallel_batches_run_on_the_app_loop(app):
    registry = bound_registry(app)
    results = registry.call_many([("ping", None)] * 5, strategy="parallel", limit=2)
    assert [r.value["on_app_loop"] for r in results] == [True] * 5


def test_the_portal_by_itself():
    assert run_coroutine(lambda: asyncio.sleep(0, "x")) == "x"
    loop = asyncio.new_event_loop()
    portal = LoopPortal(loop)
    assert not portal.open()
    assert portal.run(lambda: asyncio.sleep(0, "fresh")) == "fresh"  # loop not running
    loop.close()
    assert repr(portal).startswith("LoopPortal(")
    assert issubclass(PortalClosed, RuntimeError)
