"""The loop's definitions are cached per registry generation: each change shows up in the next run.

Real parts: the scripted OpenAI-compatible server on loopback, the real ``openai`` client,
real manifest files reloaded by :class:`LiveManifests`, and a tool source on an event loop
in a thread (as an attached MCP server is).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.integration.openai_server import ScriptedServer, say
from tests.manifests import save, tools_yaml
from tooldeck import Param, ToolRegistry, ToolSpec
from tooldeck.manifest._live import LiveManifests
from tooldeck.providers.openai import run


@pytest.fixture
def client(server: ScriptedServer) -> Iterator[openai.OpenAI]:
    server.script()
    server.requests.clear()
    with openai.OpenAI(base_url=server.url, api_key="test", max_retries=0) as made:
        yield made


def echo(text: str) -> str:
    """Say it back.

    Args:
        text: What to say.
    """
    return text


def sent(server: ScriptedServer, client: openai.OpenAI, registry: ToolRegistry) -> list[Any]:
    """The tools of the request one more run sends."""
    server.requests.clear()
    server.script(say("done"))
    run(client, model="m", input="hi", registry=registry)
    [body] = server.bodies()
    return [(d["name"], d["description"]) for d in body.get("tools", [])]


def test_a_tool_added_between_runs_is_sent(server, client):
    registry = ToolRegistry()
    registry.add_tool(None, None, echo)
    assert sent(server, client, registry) == [("echo", "Say it back.")]
    assert sent(server, client, registry) == [("echo", "Say it back.")]  # from the cache
    registry.add_tool("shout", "Say it loudly.", echo)
    assert sent(server, client, registry) == [("echo", "Say it back."), ("shout", "Say it loudly.")]
    registry.secrets.add("loudly")
    assert sent(server, client, registry)[1] == ("shout", "Say it ***.")


def test_a_reloaded_manifest_is_sent(server, client, tmp_path: Path):
    registry = ToolRegistry()
    path = save(tmp_path / "a.yaml", tools_yaml("info", description="Version one."))
    live = LiveManifests(registry, [tmp_path], environ={})
    assert live.load().ok
    assert sent(server, client, registry) == [("info", "Version one.")]
    save(path, tools_yaml("info", "more", description="Version two."))
    assert live.apply([path]).ok
    assert sent(server, client, registry) == [("info", "Version two."), ("more", "Version two.")]


class Source:
    """A tool source (as an MCP attachment is): publishes a new listing whenever it is stale."""

    def __init__(self, registry: ToolRegistry, loop: asyncio.AbstractEventLoop) -> None:
        self.registry = registry
        self.loop = loop
        self.refresh_timeout = 10.0
        self.listing = 0
        self.is_stale = True

    def stale(self) -> bool:
        return self.is_stale

    def provides(self, name: str) -> bool:
        return name.startswith("remote_")

    async def ensure_fresh(self) -> Mapping[str, Any]:
        self.listing += 1
        text = Param("text", "string", True, "What to say.")
        spec = ToolSpec(
            name="remote_echo",
            description=f"Listing {self.listing}.",
            handler=echo,
            params=(text,),
        )
        self.registry.replace_group("mcp:remote", [spec])
        self.is_stale = False
        return {}


def test_a_sources_new_listing_is_sent(server, client):
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        registry = ToolRegistry()
        source = Source(registry, loop)
        registry.add_source(source)
        assert sent(server, client, registry) == [("remote_echo", "Listing 1.")]
        assert sent(server, client, registry) == [("remote_echo", "Listing 1.")]
        source.is_stale = True  # its cache_ttl ran out, say
        assert sent(server, client, registry) == [("remote_echo", "Listing 2.")]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
