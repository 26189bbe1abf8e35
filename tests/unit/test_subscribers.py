"""Registry listeners are safe whichever thread changes the registry."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from tooldeck import RegistryChange, ToolRegistry


def greet(name: str) -> str:
    return f"Hello, {name}!"


def test_an_async_subscriber_runs_on_its_own_loop_for_changes_from_other_threads():
    async def main() -> list[tuple[bool, tuple[str, ...]]]:
        loop = asyncio.get_running_loop()
        registry = ToolRegistry()
        seen: list[tuple[bool, tuple[str, ...]]] = []
        arrived = asyncio.Event()

        async def on_change(group: str | None, change: RegistryChange) -> None:
            seen.append((asyncio.get_running_loop() is loop, change.added))
            if len(seen) == 2:
                arrived.set()

        registry.subscribe(on_change)
        await asyncio.to_thread(registry.add_tool, "a", "A.", greet)  # a watcher-like thread
        registry.add_tool("b", "B.", greet)  # the loop's own thread
        await asyncio.wait_for(arrived.wait(), 10)
        return seen

    assert asyncio.run(main()) == [(True, ("a",)), (True, ("b",))]


def test_an_async_subscriber_without_any_loop_is_refused():
    async def on_change(group: str | None, change: RegistryChange) -> None:
        return None

    with pytest.raises(ValueError, match="needs an event loop"):
        ToolRegistry().subscribe(on_change)


def test_an_async_subscriber_uses_the_registry_loop_when_subscribed_outside_it():
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        registry = ToolRegistry(loop=loop)
        done = threading.Event()
        where: list[bool] = []

        async def on_change(group: str | None, change: RegistryChange) -> None:
            where.append(asyncio.get_running_loop() is loop)
            done.set()

        registry.subscribe(on_change)
        registry.add_tool("a", "A.", greet)
        assert done.wait(10)
        assert where == [True]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def test_a_stopped_loop_drops_the_notification_with_a_log_line(caplog):
    async def subscribe() -> ToolRegistry:
        registry = ToolRegistry()

        async def on_change(group: str | None, change: RegistryChange) -> None:
            raise AssertionError("must not run")

        registry.subscribe(on_change)
        return registry

    registry = asyncio.run(subscribe())  # its loop is gone now
    with caplog.at_level(logging.WARNING, logger="tooldeck.registry"):
        registry.add_tool("a", "A.", greet)
    assert "a" in registry
    assert "event loop stopped" in caplog.text


def test_a_failing_async_subscriber_is_logged(caplog):
    async def main() -> None:
        registry = ToolRegistry()
        done = asyncio.Event()

        async def broken(group: str | None, change: RegistryChange) -> None:
            done.set()
            raise RuntimeError("async listener bug")

        registry.subscribe(broken)
        registry.add_tool("a", "A.", greet)
        await asyncio.wait_for(done.wait(), 10)
        await asyncio.sleep(0.05)

    with caplog.at_level(logging.WARNING, logger="tooldeck.registry"):
        asyncio.run(main())
    assert "async listener bug" in caplog.text
