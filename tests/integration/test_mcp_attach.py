"""Client-side MCP servers as registry tools, against real servers over stdio.

The server is a small script written to ``tmp_path`` with the ``mcp`` package's
own server API (``MCPServer``), launched with ``sys.executable``. Every test
waits on real protocol traffic; the only sleeps poll for a killed process.
"""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp_types import CallToolResult, TextContent

from tooldeck import ToolRegistry
from tooldeck._model import McpServerSpec
from tooldeck.mcp import McpAttachment, attach_in_background, attach_servers
from tooldeck.mcp._attaching.results import result_text

pytestmark = pytest.mark.slow

SERVER = '''
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

# A flag file next to the script makes later launches die at once (a server
# that cannot come back).
if Path(__file__).with_suffix(".down").exists():
    sys.exit(3)

server = MCPServer("demo")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
def fail(reason: str) -> str:
    """Always fails, with the reason."""
    raise ToolError(f"failed on purpose: {reason}")


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def whoami() -> str:
    """The DEMO_NAME environment variable."""
    return os.environ.get("DEMO_NAME", "?")


if __name__ == "__main__":
    server.run()
'''

TOOLS = ("echo", "fail", "pid", "whoami")


@pytest.fixture
def server_script(tmp_path: Path) -> Path:
    path = tmp_path / "demo_server.py"
    path.write_text(SERVER, encoding="utf-8")
    return path


def spec(script: Path, name: str = "demo", **options: Any) -> McpServerSpec:
    options.setdefault("prefix", "demo_")
    return McpServerSpec(
        name=name,
        command=(sys.executable, str(script)),
        env={"DEMO_NAME": name},
        via="client",
        **options,
    )


class CountingSession(ClientSession):
    """A real session that counts ``tools/list`` requests."""

    lists = 0

    async def list_tools(self, **kwargs: Any) -> Any:
        type(self).lists += 1
        return await super().list_tools(**kwargs)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


@pytest.fixture
async def attached(server_script: Path) -> AsyncIterator[tuple[ToolRegistry, McpAttachment]]:
    registry = ToolRegistry()
    registry.add(spec(server_script))
    async with attach_servers(registry) as attachment:
        yield registry, attachment


# ------------------------------------------------------------------------ listing and calls


async def test_tools_appear_with_the_prefix_in_the_server_group(attached):
    registry, attachment = attached
    names = sorted(t.name for t in registry.tools())
    assert names == [f"demo_{t}" for t in TOOLS]
    assert {registry.group_of(n) for n in names} == {"mcp:demo"}
    assert registry.get_tool("demo_echo").description == "Echo the text back."
    assert registry.input_schema("demo_echo")["required"] == ["text"]
    health = attachment.health()["demo"]
    assert health.ok
    assert health.connected
    assert health.error is None
    assert health.tools == tuple(f"demo_{t}" for t in TOOLS)


async def test_calls_work_through_acall_and_sync_call_from_another_thread(attached):
    registry, _ = attached
    result = await registry.acall("demo_echo", {"text": "hello"})
    assert result.ok, result.text
    assert result.text == "hello"
    # The env of the spec reaches the stdio server.
    assert (await registry.acall("demo_whoami", {})).text == "demo"

    outcome: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: outcome.setdefault("r", registry.call("demo_echo", '{"text": "sync"}'))
    )
    thread.start()
    while thread.is_alive():  # keep the loop free: the call runs on it through the portal
        await asyncio.sleep(0.01)
    assert outcome["r"].ok, outcome["r"].text
    assert outcome["r"].text == "sync"


async def test_arguments_are_checked_against_the_servers_schema(attached):
    registry, _ = attached
    result = await registry.acall("demo_echo", {"text": 3})
    assert not result.ok
    assert result.error.kind == "invalid_arguments"


async def test_an_is_error_result_fails_the_call_with_the_servers_words(attached):
    registry, _ = attached
    result = await registry.acall("demo_fail", {"reason": "testing"})
    assert not result.ok
    assert result.error.kind == "mcp_error"
    assert "failed on purpose: testing" in result.text
    assert result.attempts == 1


async def test_allowed_tools_keeps_only_the_listed_tools(server_script):
    registry = ToolRegistry()
    registry.add(spec(server_script, allowed_tools=("echo", "nope")))
    async with attach_servers(registry) as attachment:
        assert [t.name for t in registry.tools()] == ["demo_echo"]
        assert attachment.health()["demo"].tools == ("demo_echo",)
        assert (await registry.acall("demo_echo", {"text": "x"})).text == "x"
        assert not (await registry.acall("demo_pid", {})).ok  # not registered


async def test_hosted_servers_are_left_alone(server_script):
    registry = ToolRegistry()
    registry.add(McpServerSpec(name="hosted", url="https://example.invalid/mcp"))
    registry.add(spec(server_script))
    async with attach_servers(registry) as attachment:
        assert attachment.servers == ("demo",)


# ------------------------------------------------------------------------------- failures


async def test_a_server_that_cannot_start_is_left_out_and_the_others_work(server_script):
    registry = ToolRegistry()
    registry.add(McpServerSpec(name="ghost", command=("/nonexistent/mcp-server",), prefix="ghost_"))
    registry.add(spec(server_script))
    async with attach_servers(registry) as attachment:
        assert sorted(t.name for t in registry.tools()) == [f"demo_{t}" for t in TOOLS]
        ghost = attachment.health()["ghost"]
        assert not ghost.ok
        assert not ghost.connected
        assert ghost.tools == ()
        assert "FileNotFoundError" in ghost.error
        assert "/nonexistent/mcp-server" in ghost.error
        assert attachment.health()["demo"].ok
        assert (await registry.acall("demo_echo", {"text": "fine"})).text == "fine"
        # Refreshing the broken server does not raise either.
        changes = await attachment.refresh()
        assert not changes["ghost"]
        assert not attachment.health()["ghost"].ok


async def test_an_unreachable_http_server_is_left_out_with_the_reason(server_script):
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    registry = ToolRegistry()
    registry.add(
        McpServerSpec(
            name="web", url=f"http://127.0.0.1:{port}/mcp", via="client", authorization="tok"
        )
    )
    registry.add(spec(server_script))
    async with attach_servers(registry, connect_timeout=10.0) as attachment:
        web = attachment.health()["web"]
        assert not web.ok
        assert "ConnectError" in web.error
        assert attachment.health()["demo"].ok
        assert not [t for t in registry.tools() if registry.group_of(t.name) == "mcp:web"]


async def test_a_killed_server_is_reconnected_once_on_the_next_call(attached):
    registry, attachment = attached
    first = int((await registry.acall("demo_pid", {})).text)
    os.kill(first, signal.SIGKILL)
    assert await wait_gone(first)

    result = await registry.acall("demo_echo", {"text": "again"})
    assert result.ok, result.text
    assert result.text == "again"
    second = int((await registry.acall("demo_pid", {})).text)
    assert second != first
    health = attachment.health()["demo"]
    assert health.connects == 2
    assert health.ok
    assert health.connected


async def test_a_server_that_stays_down_fails_the_call_after_one_reconnect(server_script):
    registry = ToolRegistry()
    registry.add(spec(server_script))
    async with attach_servers(registry) as attachment:
        pid = int((await registry.acall("demo_pid", {})).text)
        server_script.with_suffix(".down").write_text("", encoding="utf-8")
        os.kill(pid, signal.SIGKILL)
        assert await wait_gone(pid)

        result = await registry.acall("demo_echo", {"text": "x"})
        assert not result.ok
        assert result.error.kind == "execution_error"
        assert "MCP server 'demo' is unreachable" in result.text
        health = attachment.health()["demo"]
        assert health.connects == 1  # the reconnect was tried and failed
        assert not health.ok
        assert not health.connected
        assert "connection lost" in health.error

        # The server comes back: the next call connects again.
        server_script.with_suffix(".down").unlink()
        assert (await registry.acall("demo_echo", {"text": "back"})).text == "back"
        assert attachment.health()["demo"].connects == 2


# --------------------------------------------------------------------------------- caching


async def test_tool_lists_are_cached_for_cache_ttl_and_listed_again_lazily(server_script):
    now = [1000.0]
    CountingSession.lists = 0
    registry = ToolRegistry()
    registry.add(spec(server_script, cache_ttl=60.0))
    async with attach_servers(
        registry, session_factory=CountingSession, clock=lambda: now[0]
    ) as attachment:
        assert CountingSession.lists == 1
        for _ in range(3):
            assert (await registry.acall("demo_echo", {"text": "x"})).ok
        now[0] += 59.0
        assert not await attachment.ensure_fresh()
        assert (await registry.acall("demo_echo", {"text": "x"})).ok
        assert CountingSession.lists == 1  # within the ttl: no tools/list

        now[0] += 2.0  # past the ttl: the next use lists again, once
        assert (await registry.acall("demo_echo", {"text": "x"})).ok
        assert (await registry.acall("demo_echo", {"text": "x"})).ok
        assert CountingSession.lists == 2
        assert attachment.health()["demo"].listed_at == now[0]

        attachment.clear_cache()
        assert (await registry.acall("demo_echo", {"text": "x"})).ok
        assert CountingSession.lists == 3

        change = (await attachment.refresh("demo"))["demo"]
        assert CountingSession.lists == 4
        assert not change  # same tools, same handlers: nothing changed in the registry


# ------------------------------------------------------------------------------- shadowing


async def test_a_local_tool_shadows_the_remote_one(server_script):
    registry = ToolRegistry()

    def local_echo(text: str) -> str:
        """The local echo."""
        return f"local:{text}"

    registry.add_tool("demo_echo", None, local_echo)
    registry.add(spec(server_script))
    async with attach_servers(registry) as attachment:
        health = attachment.health()["demo"]
        assert health.shadowed == ("demo_echo",)
        assert "demo_echo" not in health.tools
        assert health.ok
        assert registry.group_of("demo_echo") is None
        assert (await registry.acall("demo_echo", {"text": "x"})).text == "local:x"
        assert (await registry.acall("demo_whoami", {})).text == "demo"


async def test_two_servers_with_the_same_tool_names_the_first_wins(server_script):
    registry = ToolRegistry()
    registry.add(spec(server_script, name="one", prefix=""))
    registry.add(spec(server_script, name="two", prefix=""))
    attachment = McpAttachment(registry)
    await attachment.refresh("one")
    await attachment.refresh("two")
    try:
        assert attachment.health()["two"].shadowed == TOOLS
        assert (await registry.acall("whoami", {})).text == "one"
    finally:
        await attachment.aclose()


# ------------------------------------------------------------------------------- lifecycle


async def test_aclose_stops_every_server_and_unregisters_its_tools(server_script):
    registry = ToolRegistry()
    registry.add(spec(server_script, name="a", prefix="a_"))
    registry.add(spec(server_script, name="b", prefix="b_"))
    registry.use_loop(None)  # as if made outside any loop
    attachment = McpAttachment(registry)
    async with attachment:
        assert registry.loop is asyncio.get_running_loop()
        pids = [int((await registry.acall(f"{p}_pid", {})).text) for p in ("a", "b")]
        assert all(alive(pid) for pid in pids)
    for pid in pids:
        assert await wait_gone(pid, timeout=1.0), f"server {pid} outlived aclose"
    assert registry.tools() == ()
    assert registry.loop is None  # the attachment had set it, and put it back
    assert not any(h.connected for h in attachment.health().values())
    await attachment.aclose()  # idempotent


def test_the_sync_helper_attaches_on_a_background_loop(server_script):
    registry = ToolRegistry()
    registry.add(spec(server_script))
    with attach_in_background(registry) as attachment:
        result = registry.call("demo_echo", {"text": "from sync"})
        assert result.ok, result.text
        assert result.text == "from sync"
        pid = int(registry.call("demo_pid").text)
        assert attachment.health()["demo"].ok
    deadline = time.monotonic() + 5.0
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid)
    assert registry.tools() == ()


async def test_a_call_timeout_applies_to_the_servers_tools(server_script):
    registry = ToolRegistry()
    registry.add(spec(server_script))
    async with attach_servers(registry, timeouts={"demo": 7.5}):
        assert registry.get_tool("demo_echo").timeout == 7.5


# --------------------------------------------------------------------------- result text


def test_result_text_joins_text_and_falls_back_to_structured_json():
    both = CallToolResult(
        content=[TextContent(text="a"), TextContent(text="b")], structured_content={"x": 1}
    )
    assert result_text(both) == "a\nb"
    structured = CallToolResult(content=[], structured_content={"x": 1, "y": "é"})
    assert result_text(structured) == '{"x": 1, "y": "é"}'
    assert result_text(CallToolResult(content=[])) == ""


def test_media_in_an_answer_become_media_objects_and_bad_ones_a_notice():
    from mcp_types import (
        AudioContent,
        BlobResourceContents,
        EmbeddedResource,
        ImageContent,
        TextResourceContents,
    )

    from tooldeck import Audio, File, Image
    from tooldeck.mcp._attaching.results import result_value

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    answer = CallToolResult(
        content=[
            TextContent(text="look:"),
            ImageContent(data=png, mime_type="image/png"),
            AudioContent(data=base64.b64encode(b"RIFF").decode(), mime_type="audio/wav"),
            EmbeddedResource(
                resource=BlobResourceContents(
                    uri="f://dir/r.pdf", mime_type="application/pdf", blob=png
                )
            ),
            EmbeddedResource(resource=TextResourceContents(uri="f://t", text="inline text")),
            ImageContent(data="not base64!", mime_type="image/png"),
            ImageContent(data=png, mime_type="text/plain"),  # not an image type
        ]
    )
    value = result_value(answer)
    assert isinstance(value, list)
    assert value[0] == "look:"
    assert isinstance(value[1], Image)
    assert value[1].data.startswith(b"\x89PNG")
    assert isinstance(value[2], Audio)
    assert isinstance(value[3], File)
    assert (value[3].name, value[3].mime_type) == ("r.pdf", "application/pdf")
    assert value[4] == "inline text"
    assert value[5].startswith("[image content the server sent that cannot be passed on")
    assert value[6].startswith("[image content the server sent that cannot be passed on")
    assert result_value(CallToolResult(content=[TextContent(text="only text")])) == "only text"


async def test_a_tooldeck_server_over_streamable_http_is_attached(tmp_path):
    """Both halves of tooldeck's MCP: `tooldeck serve --transport http` in one process, its
    tools attached over Streamable HTTP (with headers and a bearer token) in another."""
    import subprocess

    (tmp_path / "tools.yaml").write_text(
        "version: 1\ntools:\n"
        "  - name: info\n"
        "    description: Describe one file of the project, its size and its kind.\n"
        "    handler: tooldeck.handlers.files:file_info\n"
        "    params:\n"
        "      - {name: path, type: string, required: true, description: Which file}\n",
        encoding="utf-8",
    )
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "tooldeck"),
            "serve",
            "-m",
            "tools.yaml",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                assert server.poll() is None, "the server exited"
                await asyncio.sleep(0.1)
        remote = McpServerSpec(
            name="deck",
            url=f"http://127.0.0.1:{port}/mcp",
            via="client",
            prefix="deck_",
            authorization="secret-token",
            headers={"X-Team": "core"},
        )
        registry = ToolRegistry()
        async with attach_servers(registry, [remote], timeout=30) as attached:
            assert attached.health()["deck"].ok, attached.health()
            result = await registry.acall("deck_info", {"path": "notes.txt"})
            assert result.ok, result.text
            import json

            assert json.loads(result.text)["size"] == 5  # the served tool's own JSON
            missing = await registry.acall("deck_info", {"path": "nope.txt"})
            assert not missing.ok
    finally:
        server.terminate()
        server.wait(timeout=30)
