"""Every exchange with an attached MCP server ends, however the server behaves.

Attack class: a ``via: client`` server (untrusted replies) that never answers a
call, answers what nobody can read, sends a reply without end or a tool list
without end, floods ``tools/list_changed``, or outlives ``tooldeck``. Each test
runs real processes over real stdio (``mcp_hostile_servers.py``: servers on
the ``mcp`` SDK, and hand-written JSON-RPC where the SDK cannot write the
hostile bytes) or HTTP on 127.0.0.1. Bounds are generous: they prove that
something ended or did not stall, not how fast it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tooldeck import ToolRegistry
from tooldeck._model import McpServerSpec
from tooldeck.manifest import from_manifests
from tooldeck.mcp import attach_servers

pytestmark = pytest.mark.slow

HOSTILE = Path(__file__).with_name("mcp_hostile_servers.py")
TOOLDECK = Path(sys.executable).parent / "tooldeck"
MiB = 1024 * 1024


def hostile(
    mode: str, *args: str, env: dict[str, str] | None = None, **options: Any
) -> McpServerSpec:
    """A stdio server running one mode of mcp_hostile_servers.py."""
    return McpServerSpec(
        name="hostile",
        command=(sys.executable, str(HOSTILE), mode, *args),
        env=env or {},
        via="client",
        **options,
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is gone for our purpose
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def until_gone(pid: int, within: float) -> bool:
    """:func:`wait_gone` for async tests: the loop keeps running (it may be what stops it)."""
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def read_pid(path: Path, within: float = 30.0) -> int:
    deadline = time.monotonic() + within
    while not (path.exists() and path.read_text(encoding="utf-8").strip()):
        assert time.monotonic() < deadline, f"no process id in {path}"
        time.sleep(0.05)
    return int(path.read_text(encoding="utf-8"))


def grown_mb(before: int) -> float:
    """How far this process's peak resident memory grew since ``before`` (ru_maxrss, KiB)."""
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024


def manifest(tmp_path: Path, mode: str, *args: str, **fields: Any) -> Path:
    """A manifest attaching one hostile server; ``fields`` go under its entry as YAML."""
    lines = [
        "version: 1",
        "mcp_servers:",
        "  - name: hostile",
        f"    command: {json.dumps([sys.executable, str(HOSTILE), mode, *args])}",
        "    via: client",
    ]
    lines += [f"    {key}: {json.dumps(value)}" for key, value in fields.items()]
    path = tmp_path / "hostile.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, "tooldeck serve never listened"
            time.sleep(0.1)


@contextlib.contextmanager
def tooldeck(tmp_path: Path, *argv: str) -> Iterator[subprocess.Popen[bytes]]:
    """``tooldeck ARGV`` in ``tmp_path``, its stdin held open; killed if it outlives the test."""
    with (tmp_path / "stderr.log").open("wb") as errlog:
        process = subprocess.Popen(
            [str(TOOLDECK), *argv],
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=errlog,
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)
            assert process.stdin is not None
            process.stdin.close()


# ------------------------------------------------------------------------- calls end


def test_a_call_the_server_never_answers_ends_at_the_timeout_its_manifest_sets(tmp_path):
    # A guard: the registry enforced a declared timeout before (and still wins the race).
    registry = from_manifests([manifest(tmp_path, "sdk", timeout="1s")])

    async def check() -> None:
        async with attach_servers(registry) as attachment:
            started = time.monotonic()
            result = await asyncio.wait_for(registry.acall("hang", {}), 30)
            assert time.monotonic() - started < 10
            assert result.error.kind == "timeout"
            assert "within 1 s" in result.text
            assert (await registry.acall("echo", {"text": "still here"})).text == "still here"
            assert attachment.health()["hostile"].ok

    asyncio.run(check())


@pytest.mark.parametrize(
    ("mode", "tool", "arguments"),
    [
        ("sdk", "hang", {}),  # never answers
        ("deaf", "echo", {"text": "x" * MiB}),  # stops reading: even sending never ends
    ],
)
async def test_with_no_timeout_anywhere_a_call_ends_at_the_default(
    monkeypatch, mode, tool, arguments
):
    from tooldeck._model import MCP_CALL_TIMEOUT

    assert MCP_CALL_TIMEOUT == 60.0
    monkeypatch.setattr(
        "tooldeck.mcp._attaching.attachment.MCP_CALL_TIMEOUT", 1.0
    )  # 60 s, shortened
    registry = ToolRegistry()  # no default_timeout
    async with attach_servers(registry, [hostile(mode)]):  # no timeout= either
        assert registry.get_tool(tool).timeout is None
        started = time.monotonic()
        result = await asyncio.wait_for(registry.acall(tool, arguments), 30)
        assert time.monotonic() - started < 10
        assert result.error.kind == "timeout"
        assert f"tool {tool!r} on MCP server 'hostile' did not answer within 1 s" in result.text


@pytest.mark.parametrize("mode", ["control-byte", "wrong-shape"])
async def test_a_reply_nobody_can_read_fails_its_call_at_once(mode):
    registry = ToolRegistry()
    async with attach_servers(registry, [hostile(mode, timeout=30.0)]) as attachment:
        started = time.monotonic()
        result = await asyncio.wait_for(registry.acall("get", {}), 60)
        assert time.monotonic() - started < 10  # not the 30 s timeout
        assert result.error.kind == "mcp_error"
        assert "the server's reply could not be read" in result.text
        assert json.loads((await registry.acall("echo", {"text": "ok"})).text) == {"text": "ok"}
        assert attachment.health()["hostile"].connects == 1


def test_the_cli_prints_a_clear_error_for_an_unreadable_reply_and_no_traceback(tmp_path):
    path = manifest(tmp_path, "control-byte", timeout="20s")
    started = time.monotonic()
    done = subprocess.run(
        [str(TOOLDECK), "call", "get", "-m", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert time.monotonic() - started < 15  # not the 20 s timeout
    assert done.returncode == 1
    assert "the server's reply could not be read (Invalid JSON: control character" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


# ---------------------------------------------------------------------- replies end


async def test_a_stdio_reply_over_the_default_cap_stops_the_server_and_fails_the_call(tmp_path):
    pid_file = tmp_path / "pid"
    spec = hostile("sdk", env={"HOSTILE_PID_FILE": str(pid_file)})  # max_reply_bytes: default
    registry = ToolRegistry()
    async with attach_servers(registry, [spec]) as attachment:
        # MCPServer sends a str result twice (text and structuredContent): ~3 MiB, then ~10 MiB.
        fits = await registry.acall("big", {"size": int(1.5 * MiB)})
        assert fits.ok
        assert len(fits.text) == int(1.5 * MiB)
        pid = read_pid(pid_file)
        result = await asyncio.wait_for(registry.acall("big", {"size": 5 * MiB}), 30)
        assert result.error.kind == "execution_error"
        assert "over 4,194,304 bytes (max_reply_bytes); the server was stopped" in result.text
        assert await until_gone(pid, 10), "the server that sent too much still runs"
        health = attachment.health()["hostile"]
        assert not health.connected
        assert "max_reply_bytes" in health.error
        assert (await registry.acall("echo", {"text": "back"})).text == "back"  # reconnects
        assert attachment.health()["hostile"].connects == 2


async def test_an_endless_line_ends_the_call_and_the_loop_keeps_running(tmp_path):
    pid_file = tmp_path / "pid"
    spec = hostile("endless", env={"HOSTILE_PID_FILE": str(pid_file)}, timeout=30.0)
    registry = ToolRegistry()
    lags: list[float] = []

    async def heartbeat() -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            lags.append(time.monotonic() - before - 0.01)

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    async with attach_servers(registry, [spec]):
        beat = asyncio.create_task(heartbeat())
        started = time.monotonic()
        result = await asyncio.wait_for(registry.acall("stream", {}), 60)
        beat.cancel()
        assert time.monotonic() - started < 10  # not the 30 s timeout
        assert "over 4,194,304 bytes (max_reply_bytes)" in result.text
        assert await until_gone(read_pid(pid_file), 10)
    assert max(lags, default=0.0) < 0.5  # (no beat yet: the call ended within 10 ms)
    assert grown_mb(before) < 200


async def test_local_tools_of_tooldeck_serve_stay_fast_while_a_server_streams_a_long_line(
    tmp_path,
):
    # 64 KiB every 2 ms up to a 64 MiB cap: a couple of seconds of one line. Read in
    # linear time, the loop that serves the local tool hardly notices.
    (tmp_path / "local_tools.py").write_text("def ping() -> str:\n    return 'pong'\n")
    path = manifest(tmp_path, "endless", "0.002", max_reply_bytes=64 * MiB)
    with path.open("a", encoding="utf-8") as f:
        f.write("tools:\n  - name: ping\n    handler: local_tools:ping\n    description: Pong.\n")
    port = free_port()
    argv = ["serve", "-m", str(path), "--allow-handlers", "local_tools"]
    with tooldeck(tmp_path, *argv, "--transport", "http", "--port", str(port)):
        wait_listening(port)
        async with (
            streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
            ClientSession(read, write, read_timeout_seconds=60) as session,
        ):
            await asyncio.wait_for(session.initialize(), 30)
            streaming = asyncio.create_task(session.call_tool("stream", {}))
            await asyncio.sleep(0.3)  # the line has begun
            waits = []
            while not streaming.done() and len(waits) < 40:
                started = time.monotonic()
                pong = await asyncio.wait_for(session.call_tool("ping", {}), 30)
                waits.append(time.monotonic() - started)
                assert pong.content[0].text == "pong"
                await asyncio.sleep(0.05)
            streamed = await asyncio.wait_for(streaming, 60)
    assert streamed.is_error
    assert "over 67,108,864 bytes (max_reply_bytes)" in streamed.content[0].text
    assert len(waits) >= 5, "the line ended too soon to measure anything"
    assert max(waits) < 0.5, f"a local call waited {max(waits):.2f}s"


def test_max_reply_bytes_in_a_manifest_sets_the_cap(tmp_path):
    registry = from_manifests([manifest(tmp_path, "sdk", max_reply_bytes=65536)])
    assert registry.mcp_servers()[0].max_reply_bytes == 65536

    async def check() -> None:
        async with attach_servers(registry):
            assert (await registry.acall("big", {"size": 30_000})).ok  # twice: ~60,000 bytes
            refused = await registry.acall("big", {"size": 70_000})
            assert "over 65,536 bytes (max_reply_bytes)" in refused.text

    asyncio.run(check())


class McpOverHttp(BaseHTTPRequestHandler):
    """Streamable HTTP, hand-written: JSON answers, ``big`` answering in the server's ``shape``."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        method, ident = request.get("method"), request.get("id")
        if ident is None:
            self._send(202, b"")
            return
        params = request.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "http-hostile", "version": "0"},
            }
        elif method == "tools/list":
            schema = {"type": "object", "properties": {"size": {"type": "integer"}}}
            result = {"tools": [{"name": "big", "inputSchema": schema}]}
        elif method == "tools/call":
            text = "x" * params["arguments"]["size"]
            result = {"content": [{"type": "text", "text": text}]}
        else:
            result = {}
        body = json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()
        shape = self.server.shape if method == "tools/call" else "json"  # type: ignore[attr-defined]
        if shape == "sse":
            self._send(200, b"event: message\ndata: " + body + b"\n\n", "text/event-stream")
        elif shape == "gzip":
            self._send(200, gzip.compress(body), encoding="gzip")
        else:
            self._send(200, body)

    def do_GET(self) -> None:  # no standalone event stream
        self._send(405, b"")

    def do_DELETE(self) -> None:
        self._send(200, b"")

    def _send(
        self, status: int, body: bytes, kind: str = "application/json", encoding: str = ""
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("mcp-session-id", "one")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), McpOverHttp)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("shape", "words"),
    [
        ("json", "it sent a reply over 262,144 bytes (max_reply_bytes)"),
        ("sse", "it sent an event over 262,144 bytes (max_reply_bytes)"),
        ("gzip", "its reply came compressed (gzip) although none was asked"),
    ],
)
async def test_an_http_reply_over_the_cap_fails_its_call(http_server, shape, words):
    http_server.shape = shape  # type: ignore[attr-defined]
    port = http_server.server_address[1]
    spec = McpServerSpec(
        name="web", url=f"http://127.0.0.1:{port}/mcp", via="client", max_reply_bytes=256 * 1024
    )
    registry = ToolRegistry()
    async with attach_servers(registry, [spec], connect_timeout=10.0) as attachment:
        assert attachment.health()["web"].ok, attachment.health()
        if shape != "gzip":
            assert (await registry.acall("big", {"size": 1000})).ok
        result = await asyncio.wait_for(registry.acall("big", {"size": MiB}), 30)
        assert not result.ok
        assert words in result.text


# ---------------------------------------------------------------------- listings end


@pytest.mark.parametrize("page", ["60000", "1000"])
async def test_sixty_thousand_tools_are_left_out_within_the_connect_timeout(page):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    registry = ToolRegistry()
    started = time.monotonic()
    async with asyncio.timeout(60):
        spec = hostile("tools", "60000", page)
        async with attach_servers(registry, [spec], connect_timeout=5.0) as attachment:
            elapsed = time.monotonic() - started
            health = attachment.health()["hostile"]
    assert elapsed < 5.0 + 3.0
    assert not health.ok
    assert health.error == "cannot list tools: it lists more than 10,000 tools (max_tools)"
    assert registry.tools() == ()
    assert grown_mb(before) < 300


@pytest.mark.parametrize(
    ("mode", "args", "options", "words"),
    [
        ("endless-pages", (), {}, "its tool list goes on past 1,000 pages"),
        (
            "fat-pages",
            ("60000",),
            {"max_reply_bytes": 65536},
            "its tool list is over 262,144 bytes (4 x max_reply_bytes)",
        ),
        ("tools", ("51", "10"), {"max_tools": 50}, "it lists more than 50 tools (max_tools)"),
    ],
)
async def test_a_listing_past_its_bounds_is_left_out_whole(mode, args, options, words):
    registry = ToolRegistry()
    spec = hostile(mode, *args, **options)
    async with attach_servers(registry, [spec], connect_timeout=20.0) as attachment:
        health = attachment.health()["hostile"]
    assert health.error == f"cannot list tools: {words}"
    assert health.tools == ()


def test_max_tools_in_a_manifest_sets_the_cap(tmp_path):
    registry = from_manifests([manifest(tmp_path, "tools", "50", "7", max_tools=50)])

    async def check() -> None:
        async with attach_servers(registry) as attachment:
            assert len(attachment.health()["hostile"].tools) == 50

    asyncio.run(check())


# ---------------------------------------------------------------- announcements end


def once_quiet(count: Any, quiet: float = 2.0, within: float = 40.0) -> int:
    """``count()`` once it has not changed for ``quiet`` seconds (or at the deadline)."""
    deadline = time.monotonic() + within
    last, since = count(), time.monotonic()
    while time.monotonic() - since < quiet and time.monotonic() < deadline:
        time.sleep(0.1)
        now = count()
        if now != last:
            last, since = now, time.monotonic()
    return int(last)


async def test_a_flood_of_list_changed_from_an_sdk_server_costs_a_few_listings():
    registry = ToolRegistry()
    async with attach_servers(registry, [hostile("sdk")]):
        assert (await asyncio.wait_for(registry.acall("flood", {"count": 3000}), 60)).ok

        async def lists() -> int:
            return int((await registry.acall("lists", {})).text)

        loop = asyncio.get_running_loop()
        listed = await loop.run_in_executor(
            None, once_quiet, lambda: asyncio.run_coroutine_threadsafe(lists(), loop).result()
        )
        assert listed <= 20, f"3,000 announcements cost {listed} listings"


async def test_ten_thousand_raw_announcements_cost_a_few_listings(tmp_path):
    count_file = tmp_path / "lists"
    spec = hostile("raw-flood", "10000", env={"HOSTILE_COUNT_FILE": str(count_file)})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    registry = ToolRegistry()
    async with attach_servers(registry, [spec]):

        def lists() -> int:
            return int(count_file.read_text(encoding="utf-8") or 0)

        listed = await asyncio.get_running_loop().run_in_executor(None, once_quiet, lists)
        assert listed <= 20, f"10,000 announcements cost {listed} listings"
        assert (await registry.acall("echo", {"text": "x"})).ok
    assert grown_mb(before) < 200


# ----------------------------------------------------------- servers end with tooldeck


def stubborn_manifest(tmp_path: Path, mode: str = "sdk", ignore_term: bool = False) -> Path:
    """A server that outlives its closed stdin (and, with ``ignore_term``, SIGTERM)."""
    env = {"HOSTILE_PID_FILE": str(tmp_path / "pid"), "HOSTILE_STUBBORN": "1"}
    if ignore_term:
        env["HOSTILE_IGNORE_TERM"] = "1"
    return manifest(tmp_path, mode, env=env)


@pytest.mark.parametrize("ignore_term", [False, True], ids=["stubborn", "ignores-sigterm"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_sigterm_to_tooldeck_serve_stops_its_stdio_servers(tmp_path, transport, ignore_term):
    path = stubborn_manifest(tmp_path, ignore_term=ignore_term)
    argv = ["serve", "-m", str(path)]
    if transport == "http":
        argv += ["--transport", "http", "--port", str(free_port())]
    with tooldeck(tmp_path, *argv) as process:
        pid = read_pid(tmp_path / "pid")
        time.sleep(0.5)  # attached and serving
        assert alive(pid)
        process.send_signal(signal.SIGTERM)
        assert wait_gone(pid, 10), f"server {pid} outlived tooldeck serve"
        process.wait(timeout=30)
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("command", "mode"),
    [
        (["call", "hang"], "sdk"),  # SIGTERM while the call waits
        (["list", "--connect-timeout", "60"], "silent"),  # while connecting
        (["lint", "--connect-timeout", "60"], "silent"),
    ],
    ids=["call", "list", "lint"],
)
def test_sigterm_to_a_one_shot_command_stops_its_stdio_servers(tmp_path, command, mode):
    path = stubborn_manifest(tmp_path, mode)
    with tooldeck(tmp_path, *command, "-m", str(path)) as process:
        pid = read_pid(tmp_path / "pid")
        time.sleep(1.0)  # connecting, or calling
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 128 + signal.SIGTERM
        assert wait_gone(pid, 10), f"server {pid} outlived tooldeck {command[0]}"
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "exit_code"), [("echo", 0), ("no_such_tool", 1)], ids=["ends", "fails"]
)
def test_a_call_that_ends_stops_its_stdio_servers(tmp_path, name, exit_code):
    path = stubborn_manifest(tmp_path)
    done = subprocess.run(
        [str(TOOLDECK), "call", name, "--args", '{"text": "hi"}', "-m", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == exit_code, done.stderr
    assert wait_gone(read_pid(tmp_path / "pid"), 10)


def test_main_called_from_python_leaves_the_signal_handlers_alone(capsys):
    """Only a tooldeck process turns SIGTERM into Ctrl-C; a program calling main() keeps its own."""
    from tooldeck.cli import main

    before = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}
    assert main(["schema"]) == 0
    assert {number: signal.getsignal(number) for number in before} == before
    capsys.readouterr()
