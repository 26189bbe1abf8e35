"""The resource handlers of the MCP server in process: toolsets, announcements, subscriptions."""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import Iterator

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from tests.unit.test_mcp_server import DEADLINE, Notes, connected
from tooldeck import ToolRegistry
from tooldeck.mcp import build_server
from tooldeck.mcp._serving.resources import MAX_SUBSCRIPTIONS
from tooldeck.providers import Toolset


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.add_resource("docs://public", lambda: "public", name="public", tags=("docs",))
    reg.add_resource("docs://internal", lambda: "internal", name="internal", tags=("ops",))
    reg.add_resource("orders://{order_id}", lambda order_id: order_id, name="order", tags=("docs",))
    return reg


async def wait_for(notes: Notes, method: str, count: int = 1) -> None:
    async with asyncio.timeout(DEADLINE):
        while notes.methods.count(method) < count:
            notes.arrived.clear()
            await notes.arrived.wait()


@contextlib.contextmanager
def subscribing() -> Iterator[None]:
    """2025-era subscribe/unsubscribe, which the SDK's client marks deprecated."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        yield


async def test_resources_are_advertised_with_subscriptions():
    async with connected(build_server(registry())) as session:
        caps = session.server_capabilities
        assert caps is not None
        assert caps.resources is not None
        assert caps.resources.subscribe is True
        assert not caps.resources.list_changed  # no reload: the lists do not change


async def test_a_toolset_serves_only_its_resources():
    served = build_server(registry(), toolset=Toolset.of(tags=["docs"]))
    async with connected(served) as session:
        listed = [str(r.uri) for r in (await session.list_resources()).resources]
        templates = (await session.list_resource_templates()).resource_templates
        assert listed == ["docs://public"]
        assert [t.uri_template for t in templates] == ["orders://{order_id}"]
        with pytest.raises(MCPError, match="no resource has this URI") as raised:
            await session.read_resource("docs://internal")  # outside: unknown here
        assert raised.value.error.code == types.INVALID_PARAMS
        assert "internal" not in raised.value.error.message.replace("docs://internal", "")
        read = await session.read_resource("orders://9")
        assert read.contents[0].text == "9"  # type: ignore[union-attr]


async def test_resource_list_changes_are_announced_with_list_changed():
    reg = registry()
    notes = Notes()
    async with connected(build_server(reg, list_changed=True), notes) as session:
        caps = session.server_capabilities
        assert caps is not None
        assert caps.resources is not None
        assert caps.resources.list_changed
        reg.add_resource("docs://late", lambda: "late", name="late")
        await wait_for(notes, "notifications/resources/list_changed")
        assert "docs://late" in [str(r.uri) for r in (await session.list_resources()).resources]
    assert "notifications/tools/list_changed" not in notes.methods


async def test_updates_reach_only_the_subscribed_and_end_with_unsubscribe():
    reg = registry()
    notes = Notes()
    async with connected(build_server(reg), notes) as session:
        with subscribing():
            await session.subscribe_resource("orders://1")
        reg.resource_updated("orders://2", "orders://1", "nothing://here")
        await wait_for(notes, "notifications/resources/updated")
        with subscribing():
            await session.unsubscribe_resource("orders://1")
        reg.resource_updated("orders://1")
        reg.add_resource("docs://x", lambda: "x", name="x")  # a change after it, as a fence
        await session.list_resources()
    assert notes.methods.count("notifications/resources/updated") == 1


async def test_a_redeclared_resource_is_an_update_for_its_subscribers():
    reg = registry()
    notes = Notes()
    async with connected(build_server(reg), notes) as session:
        with subscribing():
            await session.subscribe_resource("docs://public")
        reg.add_resource(
            "docs://public", lambda: "new", name="public", tags=("docs",), on_duplicate="replace"
        )
        await wait_for(notes, "notifications/resources/updated")
        assert (await session.read_resource("docs://public")).contents[0].text == "new"  # type: ignore[union-attr]


async def test_subscriptions_are_bounded_per_session():
    reg = ToolRegistry()
    reg.add_resource("n://{i}", lambda i: i, name="n")
    async with connected(build_server(reg)) as session:
        with subscribing():
            for i in range(MAX_SUBSCRIPTIONS):
                await session.subscribe_resource(f"n://{i}")
            await session.subscribe_resource("n://0")  # again: not one more
            with pytest.raises(MCPError, match="unsubscribe from one first"):
                await session.subscribe_resource("n://extra")


async def test_stateless_serving_refuses_subscriptions_in_words():
    served = build_server(registry())
    served.stateless = True
    async with connected(served) as session:
        with subscribing(), pytest.raises(MCPError, match="stateless HTTP"):
            await session.subscribe_resource("docs://public")


async def test_a_huge_or_odd_uri_is_answered_not_echoed():
    async with connected(build_server(registry())) as session:
        for uri in ["orders://" + "9" * 100_000, "orders://%ff", "orders://a/b"]:
            with pytest.raises(MCPError) as raised:
                await session.read_resource(uri)
            assert raised.value.error.code == types.INVALID_PARAMS
            assert len(raised.value.error.message) < 500
