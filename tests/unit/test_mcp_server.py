"""tooldeck.mcp in process: the low-level server on memory streams, spoken to by the mcp client."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.session import ElicitationFnT
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage

from tooldeck import Param, ToolContext, ToolRegistry, ToolResult
from tooldeck.mcp import RegistryServer, build_server, call_result

DEADLINE = 10.0


class Notes:
    def __init__(self) -> None:
        self.methods: list[str] = []
        self.arrived = asyncio.Event()

    async def __call__(self, message: Any) -> None:
        if not isinstance(message, Exception):
            self.methods.append(message.method)
            self.arrived.set()


class Sent:
    """The server's write stream, recording what it sends (with the transport metadata)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.messages: list[SessionMessage] = []

    async def send(self, item: SessionMessage) -> None:
        self.messages.append(item)
        await self.inner.send(item)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> Sent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def requests(self, method: str) -> list[SessionMessage]:
        return [
            m
            for m in self.messages
            if getattr(m.message, "method", None) == method and _is_request(m)
        ]


def _is_request(message: SessionMessage) -> bool:
    return getattr(message.message, "id", None) is not None


@contextlib.asynccontextmanager
async def connected(
    served: RegistryServer,
    notes: Notes | None = None,
    *,
    elicitation: ElicitationFnT | None = None,
    sent: list[Sent] | None = None,
    modern: bool = False,
) -> AsyncIterator[ClientSession]:
    """A client session on ``served``, subscribed to its registry as ``serve_*`` does.

    ``elicitation``: the client declares the capability and answers with it;
    ``sent`` receives the recorder of everything the server writes; ``modern``
    speaks the 2026-07-28 per-request protocol (``server/discover``, no handshake).
    """
    unsubscribe = served.registry.subscribe(served.on_registry_change)
    async with (
        create_client_server_memory_streams() as (client, server),
        anyio.create_task_group() as tg,
    ):
        recorder = Sent(server[1])
        if sent is not None:
            sent.append(recorder)
        tg.start_soon(
            lambda: served.server.run(server[0], recorder, served.initialization_options())
        )
        async with ClientSession(
            client[0],
            client[1],
            message_handler=notes,
            elicitation_callback=elicitation,
            read_timeout_seconds=DEADLINE,
        ) as session:
            if modern:
                await session.discover()
            else:
                await session.initialize()
            yield session
        tg.cancel_scope.cancel()
    unsubscribe()


def registry() -> ToolRegistry:
    reg = ToolRegistry()

    def seen(ctx: ToolContext) -> dict[str, Any]:
        return dict(ctx.extra)

    reg.add_tool("seen", "Report the call context.", seen)
    reg.add_tool("pair", "Two numbers.", lambda: [1, 2])
    reg.add_prompt(
        "hello", "Say hello.", "Hello {name}!", Param("name", description="Who"), role="user"
    )
    return reg


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def test_a_call_gets_the_mcp_request_id_in_its_context():
    async with connected(build_server(registry())) as session:
        result = await session.call_tool("seen", {})
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    assert result.structured_content["mcp_session_id"] is None  # memory streams: no session id
    assert result.structured_content["mcp_request_id"] not in (None, "")


async def test_a_list_result_is_wrapped_as_structured_content():
    async with connected(build_server(registry())) as session:
        result = await session.call_tool("pair", {})
    assert result.structured_content == {"result": [1, 2]}
    assert text_of(result) == "[1, 2]"


async def test_an_unexpected_failure_below_the_registry_is_a_tool_error(monkeypatch):
    reg = registry()

    async def broken(*args: Any, **kwargs: Any) -> ToolResult:
        raise LookupError("the registry itself broke")

    monkeypatch.setattr(reg, "acall", broken)
    async with connected(build_server(reg)) as session:
        result = await session.call_tool("seen", {})
    assert result.is_error
    assert "LookupError: the registry itself broke" in text_of(result)


async def test_prompt_errors_are_protocol_errors_with_the_words():
    async with connected(build_server(registry())) as session:
        with pytest.raises(MCPError, match="unknown prompt 'nope'"):
            await session.get_prompt("nope", {})
        with pytest.raises(MCPError, match="name"):
            await session.get_prompt("hello", {})
        got = await session.get_prompt("hello", {"name": "Ada"})
    assert got.messages[0].role == "user"
    assert isinstance(got.messages[0].content, types.TextContent)
    assert got.messages[0].content.text == "Hello Ada!"


async def test_registry_changes_are_announced_when_list_changed_is_on():
    reg = registry()
    notes = Notes()
    served = build_server(reg, list_changed=True)
    async with connected(served, notes) as session:
        caps = session.server_capabilities
        assert caps is not None
        assert caps.tools is not None
        assert caps.tools.list_changed is True
        reg.add_tool("late", "Added while connected.", lambda: "ok")
        async with asyncio.timeout(DEADLINE):
            while "notifications/tools/list_changed" not in notes.methods:
                notes.arrived.clear()
                await notes.arrived.wait()
        reg.add_prompt("bye", "Say bye.", "Bye!")
        async with asyncio.timeout(DEADLINE):
            while "notifications/prompts/list_changed" not in notes.methods:
                notes.arrived.clear()
                await notes.arrived.wait()
        names = [t.name for t in (await session.list_tools()).tools]
        assert len(served.sessions) == 1
    assert names == ["seen", "pair", "late"]
    assert served.sessions == []  # forgotten when its connection closed


async def test_no_announcements_without_list_changed():
    reg = registry()
    notes = Notes()
    served = build_server(reg)
    async with connected(served, notes) as session:
        caps = session.server_capabilities
        assert caps is not None
        assert caps.tools is not None
        assert not caps.tools.list_changed
        reg.add_tool("late", "Added while connected.", lambda: "ok")
        assert "late" in [t.name for t in (await session.list_tools()).tools]
        assert served.sessions == []  # nothing to announce: no session is kept
    assert notes.methods == []


async def test_the_sdks_tracing_middleware_runs_only_while_tracing_is_on(monkeypatch):
    """Without an OpenTelemetry SDK its spans go nowhere; with one, every message is traced."""
    from tooldeck.mcp._serving import server as server_module

    served = build_server(registry())
    names = [type(m).__name__ for m in served.server.middleware]
    assert "OpenTelemetryMiddleware" not in names  # not on the path of every message
    assert [type(m).__name__ for m in served._traced] == ["OpenTelemetryMiddleware"]
    seen: list[str] = []

    async def recording(ctx, call_next):  # type: ignore[no-untyped-def]
        seen.append(ctx.method)
        return await call_next(ctx)

    served._traced = [recording]
    async with connected(served, Notes()) as session:
        await session.list_tools()
        assert seen == []  # tracing off (no tracer provider installed)
        monkeypatch.setattr(server_module, "tracing_active", lambda: True)
        await session.list_tools()
    assert seen == ["tools/list"]


def test_call_result_keeps_failures_and_truncated_text_unstructured():
    failed = call_result(ToolResult.failure("no such file", kind="not_found"))
    assert failed.is_error
    assert failed.structured_content is None
    assert text_of(failed) == "Error (not_found): no such file"
    truncated = call_result(ToolResult(True, '{"a": 1, "b": [2, 3 ... [truncated]', {"a": 1}))
    assert not truncated.is_error
    assert truncated.structured_content is None
    scalar = call_result(ToolResult(True, "5", 5))
    assert scalar.structured_content is None
    assert text_of(scalar) == "5"


async def test_2026_07_28_clients_hear_of_list_changes_through_subscriptions_listen():
    from mcp import Client
    from mcp.shared.subscriptions import ToolsListChanged

    registry = ToolRegistry()
    registry.add_tool("ping", "Answer pong.", lambda: "pong")
    served = build_server(registry, list_changed=True)
    unsubscribe = registry.subscribe(served.on_registry_change)
    try:
        async with Client(served.server) as client:
            assert client.protocol_version >= "2026-07-28"
            async with client.listen(tools_list_changed=True) as subscription:
                registry.add_tool("later", "Added while listening.", lambda: "ok")
                with anyio.fail_after(5):
                    event = await subscription.__anext__()
                assert isinstance(event, ToolsListChanged)
            listed = await client.list_tools()
            assert {tool.name for tool in listed.tools} == {"ping", "later"}
    finally:
        unsubscribe()
