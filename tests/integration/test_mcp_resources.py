"""Resources served over MCP: listed, read, subscribed to, announced, to the SDK's own client.

The server is a small Python program on the public API (``add_resource`` and
``serve_stdio`` / ``serve_http``), started as a child process: over stdio the
client spawns it; over Streamable HTTP it listens on a free 127.0.0.1 port.
Every wait has a deadline; nothing sleeps for a fixed time to let something happen.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from tests.serve_process import free_port, serve_process

pytestmark = pytest.mark.slow

DEADLINE = 30.0

SERVER = '''
import asyncio, sys
from pathlib import Path
from tooldeck import Param, ResourceContents, ToolContext, ToolFailed, ToolRegistry
from tooldeck.mcp import serve_http, serve_stdio

project = Path(sys.argv[2])
registry = ToolRegistry(project_dir=project)
registry.add_resource("docs://readme", file="README.md", description="The README.")
registry.add_resource("img://logo", file="logo.png", description="The logo.")
registry.add_resource("docs://outside", file="escape", description="A symlink out.")
registry.add_resource("hr://salaries", lambda: "secret pay", scopes=("hr:read",), name="salaries")

@registry.resource("orders://{order_id}", mime_type="application/json")
def order(order_id: int) -> dict:
    """One order as JSON."""
    if order_id == 404:
        raise ToolFailed("no order 404", kind="not_found")
    return {"id": order_id}

@registry.tool
async def count(n: int, context: ToolContext) -> str:
    """Count to n, reporting each step."""
    for i in range(1, n + 1):
        context.report_progress(i, n, f"step {i}")
        await asyncio.sleep(0.06)  # past the 50 ms coalescing: every step is sent
    return "counted"

@registry.tool
def touch_order(order_id: int) -> str:
    """Say that an order changed."""
    registry.resource_updated(f"orders://{order_id}")
    return "ok"

if sys.argv[1] == "stdio":
    asyncio.run(serve_stdio(registry))
else:
    asyncio.run(serve_http(registry, host="127.0.0.1", port=int(sys.argv[3])))
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Orders\n", encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (tmp_path / "secret.txt").write_text("top secret", encoding="utf-8")
    (root / "escape").symlink_to(tmp_path / "secret.txt")
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    return root


class Updates:
    """The resource updates a client received, awaited with a deadline."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self.arrived = asyncio.Event()

    async def handler(self, message: object) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))
            self.arrived.set()

    async def next(self) -> str:
        await asyncio.wait_for(self.arrived.wait(), DEADLINE)
        self.arrived.clear()
        return self.uris[-1]


@contextlib.asynccontextmanager
async def stdio_session(project: Path, updates: Updates) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(project.parent / "server.py"), "stdio", str(project)],
        cwd=str(project),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=updates.handler) as session,
    ):
        await asyncio.wait_for(session.initialize(), DEADLINE)
        yield session


async def _listing_and_reads(session: ClientSession) -> None:
    listed = await session.list_resources()
    by_uri = {str(r.uri): r for r in listed.resources}
    assert set(by_uri) == {"docs://readme", "img://logo", "docs://outside", "hr://salaries"}
    assert (by_uri["docs://readme"].mime_type, by_uri["docs://readme"].name) == (
        "text/markdown",
        "readme",
    )
    templates = await session.list_resource_templates()
    (template,) = templates.resource_templates
    assert (template.uri_template, template.name, template.mime_type) == (
        "orders://{order_id}",
        "order",
        "application/json",
    )

    readme = await session.read_resource("docs://readme")
    (text,) = readme.contents
    assert isinstance(text, types.TextResourceContents)
    assert (text.text, text.mime_type) == ("# Orders\n", "text/markdown")
    logo = (await session.read_resource("img://logo")).contents[0]
    assert isinstance(logo, types.BlobResourceContents)
    assert base64.b64decode(logo.blob).startswith(b"\x89PNG")
    order = (await session.read_resource("orders://42")).contents[0]
    assert isinstance(order, types.TextResourceContents)
    assert order.text == '{"id": 42}'

    for uri, code, words in [
        ("orders://x", types.INVALID_PARAMS, "expected integer"),
        ("nothing://here", types.INVALID_PARAMS, "no resource has this URI"),
        ("orders://404", types.INTERNAL_ERROR, "no order 404"),
        ("docs://outside", types.INTERNAL_ERROR, "outside the project"),
    ]:
        with pytest.raises(MCPError) as raised:
            await session.read_resource(uri)
        assert raised.value.error.code == code, uri
        assert words in raised.value.error.message, raised.value.error.message
        assert "top secret" not in raised.value.error.message
    # Without authentication (stdio) a scoped resource is open, as scoped tools are.
    assert (await session.read_resource("hr://salaries")).contents[0].text == "secret pay"


async def test_resources_are_listed_and_read_over_stdio(project: Path):
    async with stdio_session(project, Updates()) as session:
        await _listing_and_reads(session)


async def edit_until_announced(path: Path, arrived: asyncio.Event) -> None:
    """Edit ``path`` until an update arrives: the watcher's first look at the file (twice a
    second) is its baseline, so an edit made before that look is not a change to it."""
    for attempt in range(int(DEADLINE / 0.5)):
        path.write_text(f"# Orders, edit {attempt}\n", encoding="utf-8")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(arrived.wait(), 0.5)
            return
    raise AssertionError(f"no update for {path.name} within {DEADLINE} s")


async def test_subscribers_hear_of_changes_to_files_and_handler_data(project: Path):
    updates = Updates()
    async with stdio_session(project, updates) as session:
        with warnings.catch_warnings():  # 2025-era subscriptions: deprecated by the SDK
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await session.subscribe_resource("docs://readme")
            await session.subscribe_resource("orders://7")
            with pytest.raises(MCPError, match="no resource has this URI"):
                await session.subscribe_resource("nothing://here")
        await edit_until_announced(project / "README.md", updates.arrived)
        assert updates.uris[-1] == "docs://readme"
        updates.arrived.clear()
        result = await session.call_tool("touch_order", {"order_id": 7})
        assert not result.is_error
        assert await updates.next() == "orders://7"
        # Unsubscribed: the next change of that order is not sent to this client.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await session.unsubscribe_resource("orders://7")
        await session.call_tool("touch_order", {"order_id": 7})
        await session.call_tool("touch_order", {"order_id": 8})
        assert updates.uris.count("orders://7") == 1


async def test_resources_over_streamable_http(project: Path, tmp_path: Path):
    port = free_port()
    argv = [sys.executable, str(tmp_path / "server.py"), "http", str(project), str(port)]
    with serve_process(argv, cwd=project, port=port, log=tmp_path / "serve.log"):
        async with (
            streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
            ClientSession(read, write) as session,
        ):
            await asyncio.wait_for(session.initialize(), DEADLINE)
            await _listing_and_reads(session)


async def test_a_2026_client_listens_for_resource_updates(project: Path):
    from mcp import Client

    params = StdioServerParameters(
        command=sys.executable,
        args=[str(project.parent / "server.py"), "stdio", str(project)],
        cwd=str(project),
    )
    async with Client(params) as client:
        listed = await client.list_resources()
        assert "docs://readme" in {str(r.uri) for r in listed.resources}
        async with client.listen(resource_subscriptions=["docs://readme"]) as subscription:
            arrived = asyncio.Event()
            seen: list[object] = []

            async def consume() -> None:
                async for event in subscription:
                    seen.append(event)
                    arrived.set()

            consumer = asyncio.create_task(consume())
            try:
                await edit_until_announced(project / "README.md", arrived)
            finally:
                consumer.cancel()
            assert getattr(seen[0], "uri", None) == "docs://readme"


async def test_a_gateway_hears_an_attached_servers_resource_updates(project: Path):
    """tooldeck attached to a tooldeck server: it subscribes to the resources it lists, and
    a change there (a file edited) reaches the gateway registry's subscribers."""
    from tooldeck import ToolRegistry
    from tooldeck.mcp import attach_servers

    script = str(project.parent / "server.py")
    gateway = ToolRegistry()
    gateway.add_mcp_server(
        "remote", command=[sys.executable, script, "stdio", str(project)], via="client"
    )
    updated: list[tuple[str, ...]] = []
    arrived = asyncio.Event()

    def seen(group: str | None, change: object) -> None:
        uris = getattr(change, "resources_updated", ())
        if uris:
            updated.append(uris)
            arrived.set()

    gateway.subscribe(seen)
    async with attach_servers(gateway):
        assert "docs://readme" in {spec.key for spec in gateway.resources()}
        await edit_until_announced(project / "README.md", arrived)
        (contents,) = await gateway.aread_resource("docs://readme")
        assert (contents.text or "").startswith("# Orders, edit")
    assert updated[-1] == ("docs://readme",)


async def test_an_attached_tools_progress_reaches_whoever_listens_to_the_call(project: Path):
    from tooldeck import ToolRegistry, reporting
    from tooldeck.mcp import attach_servers

    script = str(project.parent / "server.py")
    gateway = ToolRegistry()
    gateway.add_mcp_server(
        "remote", command=[sys.executable, script, "stdio", str(project)], via="client"
    )
    heard: list[tuple[float, float | None, str | None]] = []
    async with attach_servers(gateway):
        with reporting(
            on_progress=lambda done, total, message: heard.append((done, total, message))
        ):
            result = await gateway.acall("count", {"n": 3})
        assert result.ok, result.text
        quiet = await gateway.acall("count", {"n": 1})  # nobody listens: nothing asked for
        assert quiet.ok
    assert heard[-1] == (3, 3, "step 3")
    assert [h[0] for h in heard] == sorted(h[0] for h in heard)
