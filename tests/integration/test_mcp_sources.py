"""An attachment is a source the registry pulls from: listing, calling and exporting refresh it.

No test here calls ``ensure_fresh``: a server declared ``initialize_on_startup:
false`` must show up because the registry asks its stale sources before it
lists tools or answers a name it does not hold, whoever the consumer is (a
library ``run()``/``arun()`` against the scripted OpenAI server, an export,
``registry.call``). The server is the hand-written ``echo`` mode of
``mcp_fake_servers.py`` over stdio (fast to start; it writes its pid to
``$FAKE_MCP_PID_FILE``).
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.integration.openai_server import ScriptedServer, Turn, call, say
from tooldeck import McpServerSpec, ToolRegistry, export_tools
from tooldeck.manifest import load_manifests
from tooldeck.mcp import attach_in_background, attach_servers
from tooldeck.providers.openai import arun, run

pytestmark = pytest.mark.slow

FAKES = Path(__file__).with_name("mcp_fake_servers.py")


def lazy(pid_file: Path | None = None, **options: Any) -> McpServerSpec:
    """The echo server, declared to connect on first use, its tools prefixed ``fake_``."""
    options.setdefault("prefix", "fake_")
    env = {"FAKE_MCP_PID_FILE": str(pid_file)} if pid_file is not None else {}
    return McpServerSpec(
        name="fake",
        command=(sys.executable, str(FAKES), "echo"),
        via="client",
        env=env,
        initialize_on_startup=False,
        **options,
    )


def with_lazy_server(**options: Any) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add(lazy(**options))
    return registry


def offered(model: ScriptedServer) -> list[str]:
    return [d["name"] for d in model.bodies()[0].get("tools", [])]


# ------------------------------------------------------------------ the model loop
def test_a_library_run_offers_and_calls_a_lazy_servers_tools(model):
    registry = with_lazy_server()
    model.script(Turn(calls=(call("fake_echo", {"text": "hi"}, "c1"),)), say("done"))
    with (
        registry,
        attach_in_background(registry) as attachment,
        openai.OpenAI(base_url=model.url, api_key="test", max_retries=0) as client,
    ):
        assert attachment.health()["fake"].connects == 0  # nothing connected yet
        result = run(client, model="m", input="echo hi", registry=registry)
        assert attachment.health()["fake"].connects == 1
    assert offered(model) == ["fake_echo"]
    [made] = result.calls
    assert made.result.ok, made.result.text
    assert json.loads(made.result.text) == {"text": "hi"}


async def test_arun_on_the_attachments_loop_offers_a_lazy_servers_tools(model):
    registry = with_lazy_server()
    model.script(Turn(calls=(call("fake_echo", {"text": "hey"}, "c1"),)), say("done"))
    async with (
        attach_servers(registry),
        openai.AsyncOpenAI(base_url=model.url, api_key="test", max_retries=0) as client,
    ):
        result = await arun(client, model="m", input="echo hey", registry=registry)
    assert offered(model) == ["fake_echo"]
    assert result.calls[0].result.ok, result.calls[0].result.text


# ------------------------------------------------------------------ calls
def test_a_sync_call_before_any_refresh_reaches_the_lazy_server():
    registry = with_lazy_server()
    with registry, attach_in_background(registry) as attachment:
        assert registry.get_tool("fake_echo") is None
        result = registry.call("fake_echo", {"text": "first"})
        assert result.ok, result.text
        assert json.loads(result.text) == {"text": "first"}
        assert attachment.health()["fake"].connects == 1


async def test_an_async_call_before_any_refresh_reaches_the_lazy_server():
    registry = with_lazy_server()
    async with attach_servers(registry) as attachment:
        result = await registry.acall("fake_echo", {"text": "first"})
        assert result.ok, result.text
        assert attachment.health()["fake"].connects == 1


async def test_an_unknown_name_the_server_cannot_provide_does_not_connect_it():
    registry = with_lazy_server()
    async with attach_servers(registry) as attachment:
        result = await registry.acall("other_tool", {})
        assert result.error is not None
        assert result.error.kind == "unknown_tool"
        assert attachment.health()["fake"].connects == 0


async def test_an_unknown_name_with_the_prefix_is_unknown_after_one_listing():
    registry = with_lazy_server()
    async with attach_servers(registry) as attachment:
        result = await registry.acall("fake_nope", {})
        assert result.error is not None
        assert result.error.kind == "unknown_tool"
        assert attachment.health()["fake"].connects == 1
        await registry.acall("fake_nope", {})  # the listing is fresh: no second one
        assert attachment.health()["fake"].listed_at is not None
        assert attachment.health()["fake"].connects == 1


def test_a_use_name_reserved_by_a_manifest_reaches_the_lazy_server(tmp_path):
    command = json.dumps([sys.executable, str(FAKES), "echo"])
    (tmp_path / "deck.yaml").write_text(
        "version: 1\n"
        "mcp_servers:\n"
        "  - name: fake\n"
        f"    command: {command}\n"
        "    via: client\n"
        "    initialize_on_startup: false\n"
        "tools:\n"
        "  - name: shout\n"
        "    use: fake/echo\n",
        encoding="utf-8",
    )
    registry, loaded = load_manifests([tmp_path])
    assert loaded.diagnostics == []
    with registry, attach_in_background(registry):
        assert registry.tool_use("shout") is not None
        assert registry.get_tool("shout") is None
        result = registry.call("shout", {"text": "loud"})
        assert result.ok, result.text
        assert json.loads(result.text) == {"text": "loud"}


def test_a_sync_call_on_a_loops_thread_does_not_wait_for_the_source():
    """Waiting there would block that loop: the call answers from what the registry holds."""
    registry = with_lazy_server()
    with registry, attach_in_background(registry) as attachment:

        async def on_another_loop() -> Any:
            return registry.call("fake_echo", {"text": "x"})

        result = asyncio.run(on_another_loop())
        assert result.error is not None
        assert result.error.kind == "unknown_tool"
        assert attachment.health()["fake"].connects == 0


# ------------------------------------------------------------------ listing and export
def test_listing_and_export_include_a_lazy_servers_tools():
    registry = with_lazy_server()
    with registry, attach_in_background(registry):
        definitions = export_tools(registry, "openai-chat")
        assert [d["function"]["name"] for d in definitions] == ["fake_echo"]
        assert [t.name for t in registry.tools()] == ["fake_echo"]


async def test_atools_lists_a_lazy_server_on_its_own_loop():
    registry = with_lazy_server()
    async with attach_servers(registry):
        assert [t.name for t in await registry.atools()] == ["fake_echo"]


def test_a_listing_from_many_threads_connects_once():
    registry = with_lazy_server()
    with registry, attach_in_background(registry) as attachment:
        seen: list[list[str]] = []
        threads = [
            threading.Thread(target=lambda: seen.append([t.name for t in registry.tools()]))
            for _ in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert seen == [["fake_echo"]] * 8
        assert attachment.health()["fake"].connects == 1


# ------------------------------------------------------------------ close, then use
async def test_after_close_the_next_call_reconnects(tmp_path):
    pid_file = tmp_path / "fake.pid"
    registry = with_lazy_server(pid_file=pid_file)
    async with attach_servers(registry) as attachment:
        assert (await registry.acall("fake_echo", {"text": "one"})).ok
        first = int(pid_file.read_text(encoding="utf-8"))
        await attachment.close()
        health = attachment.health()["fake"]
        assert not health.connected
        assert health.connects == 1
        assert registry.sources() == (attachment,)  # still attached, now stale
        result = await registry.acall("fake_echo", {"text": "two"})
        assert result.ok, result.text
        assert attachment.health()["fake"].connects == 2
        assert int(pid_file.read_text(encoding="utf-8")) != first  # a new process
    assert registry.sources() == ()  # detached on exit


def test_after_close_the_next_listing_reconnects():
    registry = with_lazy_server()
    with registry, attach_in_background(registry) as attachment:
        assert [t.name for t in registry.tools()] == ["fake_echo"]
        loop = registry.loop
        assert loop is not None
        asyncio.run_coroutine_threadsafe(attachment.close(), loop).result(timeout=30)
        assert not attachment.health()["fake"].connected
        assert [t.name for t in registry.tools()] == ["fake_echo"]
        assert attachment.health()["fake"].connected
        assert attachment.health()["fake"].connects == 2


async def test_the_mcp_servers_tools_list_includes_a_lazy_servers_tools():
    from tooldeck.mcp._serving.server import RegistryServer

    registry = with_lazy_server()
    served = RegistryServer(registry)
    async with attach_servers(registry):  # no served.attachment: the registry holds the source
        listed = await served._list_tools(None, None)  # type: ignore[arg-type]
    assert [tool.name for tool in listed.tools] == ["fake_echo"]
