"""A real ``serve --transport http`` server in a thread, and clients from distinct addresses.

Every client of these tests binds its own loopback source address (127.0.0.2,
127.0.0.3, ...): the whole 127/8 reaches a server listening on 127.0.0.1, and
the server's per-client limits key on the address, so each address is a
different client.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tooldeck import ToolRegistry
from tooldeck.mcp._http.options import HttpOptions
from tooldeck.mcp._http.run import http_server
from tooldeck.mcp._serving import build_server

DEADLINE = 20.0
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "flood", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def slow(seconds: float) -> str:
    """Sleep on a worker thread (a sync handler), then say so."""
    time.sleep(seconds)
    return f"slept {seconds}"


def add(a: int, b: int) -> int:
    return a + b


def registry() -> ToolRegistry:
    tools = ToolRegistry()
    tools.add_tool("slow", "Sleep a while.", slow)
    tools.add_tool("add", "Add two integers.", add)
    return tools


@dataclasses.dataclass
class Running:
    url: str
    server: Any
    served: Any
    loop: asyncio.AbstractEventLoop

    @property
    def limits(self) -> Any:
        return self.server.limits

    def sessions(self) -> int:
        """Sessions the first session manager holds now."""
        app = self.server.config.app
        for route in app.routes:  # the first MCP endpoint (the probes have no manager)
            manager = getattr(route.endpoint, "session_manager", None)
            if manager is not None:
                return len(manager._server_instances)
        return 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(**fields: Any) -> Iterator[Running]:
    """Serve :func:`registry` on 127.0.0.1 with ``HttpOptions(**fields)`` in a thread."""
    options = HttpOptions(port=free_port(), **fields)
    tools = registry()
    served = build_server(tools)
    server = http_server(served, options)
    ready = threading.Event()
    loop_box: list[asyncio.AbstractEventLoop] = []

    async def main() -> None:
        loop_box.append(asyncio.get_running_loop())
        tools.use_loop(asyncio.get_running_loop())
        ready.set()
        await server.serve()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    ready.wait(DEADLINE)
    deadline = time.monotonic() + DEADLINE
    while not server.started:
        assert thread.is_alive(), "the server stopped while starting"
        assert time.monotonic() < deadline, "the server never started"
        time.sleep(0.02)
    try:
        yield Running(f"http://127.0.0.1:{options.port}/mcp", server, served, loop_box[0])
    finally:
        server.should_exit = True
        thread.join(DEADLINE)
        tools.close()


def client(address: str, **kwargs: Any) -> httpx2.AsyncClient:
    """An HTTP client whose connections leave from ``address`` (a loopback one)."""
    transport = httpx2.AsyncHTTPTransport(local_address=address, **kwargs)
    return httpx2.AsyncClient(transport=transport, timeout=DEADLINE)


@contextlib.asynccontextmanager
async def mcp_session(url: str, address: str) -> AsyncIterator[ClientSession]:
    """A real MCP client session from ``address``, initialized."""
    async with (
        client(address) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
    ):
        async with asyncio.timeout(DEADLINE):
            await session.initialize()
        yield session


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)
