"""The registry pulls from its ToolSources: when it asks them, when it does not, how long it waits.

A stub source on an event loop in a thread stands for an MCP attachment; the
real one is exercised in tests/integration/test_mcp_sources.py.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from tooldeck import Param, ToolRegistry, ToolSource, ToolSpec


def local(text: str) -> str:
    """Say it back."""
    return text


class Stub:
    """Publishes ``remote`` (a tool named ``stub_echo``) into the registry when refreshed."""

    def __init__(self, registry: ToolRegistry, loop: asyncio.AbstractEventLoop | None) -> None:
        self.registry = registry
        self._loop = loop
        self.is_stale = True
        self.asked = 0
        self.refreshes = 0
        self.hang = False
        self.refresh_timeout = 5.0

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    def stale(self) -> bool:
        self.asked += 1
        return self.is_stale

    def provides(self, name: str) -> bool:
        return name.startswith("stub_")

    async def ensure_fresh(self) -> Mapping[str, Any]:
        assert asyncio.get_running_loop() is self._loop  # always on the source's loop
        self.refreshes += 1
        if self.hang:
            await asyncio.sleep(3600)
        text = Param("text", "string", True, "What to say back.")
        spec = ToolSpec(name="stub_echo", description="Echo.", handler=local, params=(text,))
        self.registry.replace_group("stub", [spec])
        self.is_stale = False
        return {}


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(5)
    running.close()


@pytest.fixture
def registry() -> Iterator[ToolRegistry]:
    with ToolRegistry() as made:
        made.add_tool(None, None, local)
        yield made


def test_a_stub_is_a_tool_source(registry, loop):
    source: ToolSource = Stub(registry, loop)  # mypy checks the protocol here
    let_go = registry.add_source(source)
    assert registry.add_source(source) is not None
    assert registry.sources() == (source,)
    let_go()
    assert registry.sources() == ()
    assert registry.remove_source(source) is False


def test_a_call_of_a_local_tool_never_asks_a_source(registry, loop):
    source = Stub(registry, loop)
    registry.add_source(source)
    assert registry.call("local", {"text": "x"}).text == "x"
    assert source.asked == 0
    assert source.refreshes == 0


def test_a_call_of_a_name_the_registry_lacks_refreshes_then_calls(registry, loop):
    source = Stub(registry, loop)
    registry.add_source(source)
    assert registry.call("stub_echo", {"text": "y"}).text == "y"
    assert source.refreshes == 1
    assert registry.call("stub_echo", {"text": "z"}).text == "z"
    assert source.refreshes == 1  # fresh now, and held: not asked again


def test_a_name_no_source_provides_is_unknown_without_a_refresh(registry, loop):
    source = Stub(registry, loop)
    registry.add_source(source)
    result = registry.call("nothing", {})
    assert result.error is not None
    assert result.error.kind == "unknown_tool"
    assert source.refreshes == 0


def test_listing_refreshes_a_stale_source_once(registry, loop):
    source = Stub(registry, loop)
    registry.add_source(source)
    assert [t.name for t in registry.tools()] == ["local", "stub_echo"]
    assert [t.name for t in registry.tools()] == ["local", "stub_echo"]
    assert source.refreshes == 1


async def test_async_listing_and_calls_await_the_source_from_another_loop(registry, loop):
    source = Stub(registry, loop)
    registry.add_source(source)
    assert (await registry.acall("stub_echo", {"text": "a"})).text == "a"
    assert [t.name for t in await registry.atools()] == ["local", "stub_echo"]
    assert source.refreshes == 1


def test_a_refresh_that_hangs_is_given_up_after_its_timeout(registry, loop):
    source = Stub(registry, loop)
    source.hang, source.refresh_timeout = True, 0.3
    registry.add_source(source)
    started = time.monotonic()
    result = registry.call("stub_echo", {})
    assert time.monotonic() - started < 3
    assert result.error is not None
    assert result.error.kind == "unknown_tool"
    assert [t.name for t in registry.tools()] == ["local"]


async def test_a_hanging_refresh_is_given_up_on_the_async_path_too(registry, loop):
    source = Stub(registry, loop)
    source.hang, source.refresh_timeout = True, 0.3
    registry.add_source(source)
    started = time.monotonic()
    assert [t.name for t in await registry.atools()] == ["local"]
    assert time.monotonic() - started < 3


async def test_a_sync_listing_on_a_loops_thread_never_waits(registry, loop):
    source = Stub(registry, loop)
    registry.add_source(source)
    assert [t.name for t in registry.tools()] == ["local"]  # this thread runs a loop
    assert registry.refresh_sources() is False
    assert source.refreshes == 0


def test_a_source_not_started_or_whose_loop_stopped_is_skipped(registry):
    source = Stub(registry, None)
    registry.add_source(source)
    assert [t.name for t in registry.tools()] == ["local"]
    assert registry.refresh_sources() is False
