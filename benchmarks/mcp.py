"""MCP both ways: what serving a registry and attaching a server cost over the mcp package itself.

Run from the repository root::

    .venv/bin/python benchmarks/mcp.py            # full run, ~45 s
    .venv/bin/python benchmarks/mcp.py --quick    # smoke run, ~6 s
    .venv/bin/python benchmarks/mcp.py --check    # exit 1 if a target is missed
    .venv/bin/python benchmarks/mcp.py --profile  # also cProfile the in-process calls
    .venv/bin/python benchmarks/mcp.py --returns str   # a handler returning a JSON string
    .venv/bin/python benchmarks/mcp.py --only memory --rounds 31   # one part, steadier

One sync handler, ``add(a: int, b: int) -> dict`` returning ``{"sum": a + b}``
(``--returns str``: ``-> str`` returning the same JSON as text), served four ways:

(a) floor     a bare low-level ``mcp.server.lowlevel.Server`` whose ``tools/call``
              handler calls ``add`` and returns ``json.dumps`` of it as text
(b) tooldeck  ``tooldeck.mcp.build_server(registry)`` with ``registry.add_tool``;
              the sync handler runs on a worker thread (the default under acall)
(c) inline    the same with ``add_tool(..., inline=True)``: run on the event loop
(d) MCPServer the mcp package's ``MCPServer`` with ``@server.tool()`` (it runs a
              sync tool with ``anyio.to_thread.run_sync``)

Part 1, in process: ``mcp.Client(server)`` in both of its in-memory modes, the
default (2026-07-28 protocol, requests dispatched directly, no JSON-RPC framing)
and ``mode="legacy"`` (initialize handshake, JSON-RPC over in-memory streams);
wall time and this process's CPU time per call. Part 2, Streamable HTTP on
127.0.0.1: each server in a process of its own (uvicorn; tooldeck through
``tooldeck.mcp.serve_http``), both protocol eras, driven by a minimal raw
HTTP/1.1 client (:class:`RawMcpHttp`) with 1 and 8 connections, and by one
real ``mcp.Client`` (information); p50/p99 latency, throughput and the server
process's CPU per call. Part 3, an attached tool: a stdio MCP server (the
floor) called with ``ClientSession.call_tool`` versus the same tool attached
with ``tooldeck.mcp.attach_servers`` and called with ``await registry.acall``.

Variants alternate round by round (the order rotates) so machine noise lands
on all of them; ratios are medians of per-round ratios.

Targets: inline <= 1.15x floor and tooldeck (worker thread) < MCPServer, in
process, in both modes; tooldeck never slower than MCPServer over HTTP (p50
latency with 1 and 8 connections, throughput with 8); attached call <= 1.1x the
direct call. Benchmarks report, they do not gate: the exit status is 0 unless
``--check`` is given and a target is missed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = Path(__file__).resolve()
# This file is called mcp.py, and Python puts a script's folder first on sys.path:
# `import mcp` would import this file instead of the mcp package. Keep the folder
# (for _timing), but last.
sys.path[:] = [p for p in sys.path if Path(p or os.curdir).resolve() != HERE]
sys.path.append(str(HERE))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import cProfile  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import pstats  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Awaitable, Callable, Sequence  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import date  # noqa: E402
from importlib import metadata  # noqa: E402
from typing import Any  # noqa: E402

import mcp_types as types  # noqa: E402
from _timing import Timing  # noqa: E402
from mcp import Client, ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION  # noqa: E402

import tooldeck  # noqa: E402
from tooldeck import McpServerSpec, ToolRegistry  # noqa: E402
from tooldeck.mcp import attach_servers, build_server  # noqa: E402

ARGS = {"a": 2, "b": 3}
EXPECTED = {"sum": 5}
INPUT_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}

INLINE_TARGET = 1.15
"""tooldeck inline / floor, in process."""
DEFAULT_TARGET = 1.0
"""tooldeck (worker thread) / MCPServer, in process: strictly below."""
HTTP_TARGET = 1.0
"""tooldeck / MCPServer over HTTP: p50 latency at most, throughput at least."""
ATTACH_TARGET = 1.1
"""attached registry.acall / direct ClientSession.call_tool."""

FLOOR, TOOLDECK, INLINE, MCPSERVER = "floor", "tooldeck", "inline", "mcpserver"
KINDS = (FLOOR, TOOLDECK, INLINE, MCPSERVER)
LABELS = {
    FLOOR: "(a) floor: low-level Server + json.dumps",
    TOOLDECK: "(b) tooldeck, worker thread (default)",
    INLINE: "(c) tooldeck, inline=True",
    MCPSERVER: "(d) MCPServer @tool, sync",
}
MODES = {"auto": "default: 2026-07-28, direct dispatch", "legacy": "legacy: JSON-RPC streams"}
ERAS = {"auto": "2026-07-28", "legacy": "legacy handshake + session"}


def add(a: int, b: int) -> dict:  # type: ignore[type-arg]
    """Add two integers."""
    return {"sum": a + b}


def add_text(a: int, b: int) -> str:
    """Add two integers."""
    return json.dumps({"sum": a + b})


HANDLERS: dict[str, Callable[..., Any]] = {"dict": add, "str": add_text}
HANDLER: list[Callable[..., Any]] = [add]
"""The handler every server serves (``--returns`` chooses; children are told too)."""
RETURNS = ["dict"]
HANDLER_SOURCE = {
    "dict": "def add(a: int, b: int) -> dict: return {'sum': a + b}",
    "str": "def add(a: int, b: int) -> str: return json.dumps({'sum': a + b})",
}


# ------------------------------------------------------------------ servers
def floor_server() -> Server[Any]:
    dumps = json.dumps
    tool = types.Tool(name="add", description="Add two integers.", input_schema=INPUT_SCHEMA)
    handler = HANDLER[0]

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        value = handler(**(params.arguments or {}))
        text = value if isinstance(value, str) else dumps(value)
        return types.CallToolResult(content=[types.TextContent(text=text)])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    def input_schema(name: str) -> dict[str, Any] | None:  # as tooldeck and MCPServer have
        return INPUT_SCHEMA if name == "add" else None

    return Server(
        "floor",
        on_call_tool=call_tool,
        on_list_tools=list_tools,
        get_tool_input_schema=input_schema,
    )


def tooldeck_registry(*, inline: bool) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_tool("add", "Add two integers.", HANDLER[0], inline=inline)
    return registry


def mcpserver_server() -> MCPServer:
    server = MCPServer("bench", log_level="WARNING")
    server.tool(name="add", description="Add two integers.")(HANDLER[0])
    return server


def lowlevel(kind: str) -> Server[Any]:
    """The low-level Server of a kind (what mcp.Client connects to in process)."""
    if kind == FLOOR:
        return floor_server()
    if kind == MCPSERVER:
        lowlevel_server: Server[Any] = mcpserver_server()._lowlevel_server
        return lowlevel_server  # what Client(MCPServer) unwraps too
    return build_server(tooldeck_registry(inline=kind == INLINE)).server


def _text(result: types.CallToolResult) -> str:
    block = result.content[0] if result.content else None
    return block.text if isinstance(block, types.TextContent) else repr(result)


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"mcp benchmark: sanity check failed: {what}")


def _check_result(result: Any, what: str) -> None:
    _require(isinstance(result, types.CallToolResult), f"{what} -> {result!r}")
    _require(not result.is_error, f"{what} -> error {_text(result)!r}")
    _require(json.loads(_text(result)) == EXPECTED, f"{what} -> {_text(result)!r}")


# ------------------------------------------------------------------ timing
Variant = Callable[[], Awaitable[object]]


@dataclass(frozen=True)
class Timed:
    """One variant's per-call wall time and this process's CPU time, in µs, per round."""

    wall: Timing
    cpu: Timing


async def interleaved_async(
    variants: dict[str, Variant], rounds: int, number: int, warmup: int
) -> dict[str, Timed]:
    """``_timing.interleaved_samples`` for coroutines, with the process's CPU time beside.

    The CPU time (all threads of this process: a worker thread's share counts) is
    steadier than the wall time on a busy machine, where other processes take the
    cores; a thread hand-off's wake-up latency shows only in the wall time.
    """
    for fn in variants.values():
        for _ in range(warmup):
            await fn()
    names = list(variants)
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        gc.collect()
        for name in names[shift:] + names[:shift]:
            fn = variants[name]
            gc.disable()
            try:
                cpu_started = time.process_time_ns()
                started = time.perf_counter_ns()
                for _ in range(number):
                    await fn()
                elapsed = time.perf_counter_ns() - started
                cpu_used = time.process_time_ns() - cpu_started
            finally:
                gc.enable()
            wall[name].append(elapsed / number / 1000.0)
            cpu[name].append(cpu_used / number / 1000.0)
    return {name: Timed(Timing(tuple(wall[name])), Timing(tuple(cpu[name]))) for name in names}


def ratio(timing: Timing, base: Timing) -> float:
    """Median over rounds of the per-round ratio (one round's variants ran back to back)."""
    ratios = [t / b for t, b in zip(timing.samples, base.samples, strict=True) if b > 0]
    return statistics.median(ratios) if ratios else float("nan")


@dataclass
class Verdict:
    part: str
    what: str
    op: str
    """How ``measured`` must compare with ``limit``: "<=", "<" or ">="."""
    limit: float
    measured: float

    @property
    def ok(self) -> bool:
        if self.op == "<=":
            return self.measured <= self.limit
        if self.op == "<":
            return self.measured < self.limit
        return self.measured >= self.limit

    def line(self) -> str:
        word = "PASS" if self.ok else "MISS"
        limit = f"{self.op} {self.limit:.2f}x"
        return f"  {self.part:<24} {self.what:<40} {limit:>9} {self.measured:8.2f}x  {word}"


# ------------------------------------------------------------ part 1: memory
async def part_memory(
    rounds: int, number: int, profile_calls: int, verdicts: list[Verdict]
) -> None:
    print(
        f"\npart 1: in process, mcp.Client(server); {rounds} rounds x {number} calls, interleaved"
    )
    async with contextlib.AsyncExitStack() as stack:
        variants: dict[str, Variant] = {}
        clients: dict[tuple[str, str], Client] = {}
        for mode in MODES:
            for kind in KINDS:
                client = await stack.enter_async_context(Client(lowlevel(kind), mode=mode))
                _check_result(await client.call_tool("add", ARGS), f"{mode} {kind}")
                clients[mode, kind] = client
                variants[f"{mode}/{kind}"] = _caller(client)
        # Information: the registry alone, without MCP around it.
        registries = {kind: tooldeck_registry(inline=kind == INLINE) for kind in (TOOLDECK, INLINE)}
        for kind, registry in registries.items():
            result = await registry.acall("add", ARGS)
            _require(result.ok and json.loads(result.text) == EXPECTED, f"acall {result.text!r}")
            variants[f"acall/{kind}"] = _acaller(registry)
        timings = await interleaved_async(variants, rounds, number, warmup=max(20, number // 5))

        for mode, title in MODES.items():
            floor = timings[f"{mode}/{FLOOR}"]
            mcps = timings[f"{mode}/{MCPSERVER}"]
            print(f"\n  Client(server, mode={mode!r}) ({title}):")
            print(
                f"  {'':<40} {'--------- wall time ---------':>29}"
                f"  {'--------- CPU time ----------':>29}"
            )
            print(
                f"  {'variant':<40} {'µs/call':>9} {'/ floor':>8} {'/ MCPS.':>8}"
                f"   {'µs/call':>9} {'/ floor':>8} {'/ MCPS.':>8}   wall rounds"
            )
            for kind in KINDS:
                t = timings[f"{mode}/{kind}"]
                print(
                    f"  {LABELS[kind]:<40} {t.wall.median:9.1f}"
                    f" {ratio(t.wall, floor.wall):7.2f}x {ratio(t.wall, mcps.wall):7.2f}x"
                    f"   {t.cpu.median:9.1f}"
                    f" {ratio(t.cpu, floor.cpu):7.2f}x {ratio(t.cpu, mcps.cpu):7.2f}x"
                    f"   {t.wall.low:.0f}-{t.wall.high:.0f}"
                )
            inline = ratio(timings[f"{mode}/{INLINE}"].wall, floor.wall)
            default = ratio(timings[f"{mode}/{TOOLDECK}"].wall, mcps.wall)
            part = f"1 in process, {mode}"
            verdicts.append(Verdict(part, "tooldeck inline / floor", "<=", INLINE_TARGET, inline))
            verdicts.append(
                Verdict(part, "tooldeck worker thread / MCPServer", "<", DEFAULT_TARGET, default)
            )
        acall_t = timings[f"acall/{TOOLDECK}"]
        acall_i = timings[f"acall/{INLINE}"]
        print("\n  information: await registry.acall('add', args) alone, no MCP (wall, CPU)")
        for label, t in (("worker thread (default)", acall_t), ("inline=True", acall_i)):
            print(f"  {label:<40} {t.wall.median:9.1f} µs/call {t.cpu.median:18.1f} µs/call")
        print(
            f"  {'difference: the worker-thread hand-off':<40}"
            f" {acall_t.wall.median - acall_i.wall.median:9.1f} µs/call"
            f" {acall_t.cpu.median - acall_i.cpu.median:18.1f} µs/call"
        )
        if profile_calls:
            for kind in (TOOLDECK, INLINE, FLOOR, MCPSERVER):
                await print_profile(
                    f"Client(server) default mode, {LABELS[kind]}",
                    _caller(clients["auto", kind]),
                    profile_calls,
                )


def _caller(client: Client) -> Variant:
    call = client.call_tool

    def one() -> Awaitable[object]:
        return call("add", ARGS)

    return one


def _acaller(registry: ToolRegistry) -> Variant:
    acall = registry.acall

    def one() -> Awaitable[object]:
        called: Awaitable[object] = acall("add", ARGS)
        return called

    return one


# --------------------------------------------------------------- part 2: HTTP
HTTP_KINDS = (TOOLDECK, MCPSERVER, INLINE, FLOOR)
RAW1, RAW8, CLIENT1 = "raw, 1 client", "raw, 8 clients", "mcp.Client, 1"
"""The measurements of part 2: the raw load generator with 1 and 8 connections, and
one real ``mcp.Client`` (end to end, for information)."""


class RawMcpHttp:
    """The load generator: one keep-alive HTTP/1.1 connection sending ``tools/call``.

    It sends what ``mcp.Client`` sends for the call (same headers, same JSON-RPC
    body, captured from it; for the legacy era after the same initialize
    handshake) and reads the response, JSON or an SSE event, just far enough to
    find the result. Its own cost is a few tens of µs per call, the same for
    every server, so latency and throughput are the server's: an ``mcp.Client``
    spends about 1 ms of CPU per call itself, and with 8 of them in this process
    the client, not the server, would set the pace.
    """

    def __init__(self, port: int, era: str) -> None:
        self.port = port
        self.era = era
        self.headers = ""
        self.next_id = 1
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        await self._connect()
        if self.era == "auto":
            version = LATEST_MODERN_VERSION
            self.headers = (
                f"mcp-protocol-version: {version}\r\nmcp-method: tools/call\r\nmcp-name: add\r\n"
            )
            meta = {
                "io.modelcontextprotocol/protocolVersion": version,
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
            self.params = json.dumps({"name": "add", "arguments": ARGS, "_meta": meta})
        else:
            version = LATEST_HANDSHAKE_VERSION
            hello = {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            }
            body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
            status, headers, _ = await self._post(body.encode())
            session = headers.get("mcp-session-id")
            _require(status == 200 and session is not None, f"initialize -> {status} {headers}")
            self.headers = f"mcp-session-id: {session}\r\nmcp-protocol-version: {version}\r\n"
            note = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
            status, _, _ = await self._post(note)
            _require(status == 202, f"notifications/initialized -> {status}")
            self.params = json.dumps({"name": "add", "arguments": ARGS})
        reply = json.loads(await self.call())
        content = reply["result"]["content"][0]["text"]
        _require(json.loads(content) == EXPECTED, f"raw {self.era} tools/call -> {reply!r}")

    async def call(self) -> bytes:
        """One ``tools/call``; the JSON-RPC response."""
        request_id = self.next_id
        self.next_id += 1
        body = f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{self.params}}}'
        status, headers, payload = await self._post(body.encode())
        if headers.get("content-type", "").startswith("text/event-stream"):
            events = [line for line in payload.split(b"\n") if line.startswith(b"data: ")]
            payload = events[-1][6:].strip() if events else b""
        if status != 200 or b'"isError":false' not in payload:
            raise SystemExit(f"mcp benchmark: raw tools/call failed: {status} {payload[:300]!r}")
        return payload

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def _post(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        try:
            return await self._exchange(body)
        except (asyncio.IncompleteReadError, ConnectionError):
            # uvicorn closes a keep-alive connection after 5 idle seconds (every round
            # starts with an untimed call through each connection, so this is not timed)
            await self.close()
            await self._connect()
            return await self._exchange(body)

    async def _exchange(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        reader, writer = self.reader, self.writer
        assert reader is not None
        assert writer is not None
        writer.write(
            f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{self.port}\r\n"
            "accept: application/json, text/event-stream\r\ncontent-type: application/json\r\n"
            f"{self.headers}content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split(" ", 2)[1])
        headers = {}
        for line in head[1:]:
            if line:
                key, _, value = line.partition(":")
                headers[key.lower()] = value.strip()
        if "content-length" in headers:
            return status, headers, await reader.readexactly(int(headers["content-length"]))
        if headers.get("transfer-encoding") != "chunked":
            return status, headers, b""
        chunks = []
        while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
        await reader.readuntil(b"\r\n")  # the end of the (empty) trailer
        return status, headers, b"".join(chunks)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()


@dataclass
class HttpSamples:
    latencies: list[float] = field(default_factory=list)
    """Seconds per call, every call of every round."""
    throughputs: list[float] = field(default_factory=list)
    """Calls per second, one per round."""
    medians: list[float] = field(default_factory=list)
    """The median latency of each round, seconds."""
    cpu_seconds: float = 0.0
    """Server process CPU time over the rounds (Linux only)."""
    cpu_calls: int = 0
    """The calls made while ``cpu_seconds`` was counted."""

    def p(self, q: float) -> float:
        """The ``q`` quantile of the latencies, in ms."""
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000.0

    @property
    def throughput(self) -> float:
        return statistics.median(self.throughputs)

    @property
    def cpu(self) -> float:
        """Server CPU µs per call (NaN where /proc is not there)."""
        return self.cpu_seconds / self.cpu_calls * 1e6 if self.cpu_calls else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of a process, all threads (Linux /proc), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class HttpServers:
    """One server subprocess per kind, each on a free port of 127.0.0.1."""

    def __init__(self, kinds: Sequence[str]) -> None:
        self.kinds = list(kinds)
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.ports: dict[str, int] = {}
        self.logs: dict[str, Any] = {}

    def __enter__(self) -> HttpServers:
        for kind in self.kinds:
            port = free_port()
            log = tempfile.TemporaryFile()
            self.logs[kind] = log
            self.ports[kind] = port
            self.procs[kind] = subprocess.Popen(
                [
                    *(sys.executable, str(SCRIPT), "--serve-http", kind, "--port", str(port)),
                    *("--returns", RETURNS[0]),
                ],
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + 60
        for kind in self.kinds:
            while True:
                if self.procs[kind].poll() is not None:
                    raise SystemExit(f"mcp benchmark: {kind} server exited: {self.log(kind)}")
                try:
                    socket.create_connection(("127.0.0.1", self.ports[kind]), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise SystemExit(f"mcp benchmark: {kind} server did not start") from None
                    time.sleep(0.05)
        return self

    def url(self, kind: str) -> str:
        return f"http://127.0.0.1:{self.ports[kind]}/mcp"

    def log(self, kind: str) -> str:
        log = self.logs[kind]
        log.seek(0)
        return str(log.read()[-2000:].decode(errors="replace"))

    def check_alive(self) -> None:
        for kind, proc in self.procs.items():
            if proc.poll() is not None:
                raise SystemExit(f"mcp benchmark: {kind} server died: {self.log(kind)}")

    def __exit__(self, *exc_info: object) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in self.logs.values():
            log.close()


async def _http_round(
    calls: Sequence[Callable[[], Awaitable[object]]],
    calls_each: int,
    into: HttpSamples,
    server_pid: int,
) -> None:
    """``calls_each`` sequential calls through each of ``calls``, all of them at once."""
    latencies: list[float] = []
    clock = time.perf_counter

    async def worker(call: Callable[[], Awaitable[object]]) -> None:
        for _ in range(calls_each):
            started = clock()
            await call()
            latencies.append(clock() - started)

    await asyncio.gather(*(c() for c in calls))  # untimed: wakes idle connections up
    cpu_before = process_cpu(server_pid)
    started = clock()
    await asyncio.gather(*(worker(c) for c in calls))
    wall = clock() - started
    cpu_after = process_cpu(server_pid)
    if cpu_before is not None and cpu_after is not None:
        into.cpu_seconds += cpu_after - cpu_before
        into.cpu_calls += len(latencies)
    into.latencies.extend(latencies)
    into.throughputs.append(len(latencies) / wall)
    into.medians.append(statistics.median(latencies))


async def part_http(rounds: int, calls: int, kinds: Sequence[str], verdicts: list[Verdict]) -> None:
    print(
        f"\npart 2: Streamable HTTP on 127.0.0.1, each server in a process of its own (uvicorn);"
        f" {rounds} rounds x {calls} calls per variant and measurement, interleaved"
    )
    measures = {RAW1: 1, RAW8: 8, CLIENT1: 1}
    samples = {(era, m, kind): HttpSamples() for era in ERAS for m in measures for kind in kinds}
    with HttpServers(kinds) as servers:
        async with contextlib.AsyncExitStack() as stack:
            callers: dict[tuple[str, str, str], list[Callable[[], Awaitable[object]]]] = {}
            for era in ERAS:
                for kind in kinds:
                    client = await stack.enter_async_context(Client(servers.url(kind), mode=era))
                    _check_result(await client.call_tool("add", ARGS), f"http {era} {kind}")
                    callers[era, CLIENT1, kind] = [_caller(client)]
                    raws: list[Callable[[], Awaitable[object]]] = []
                    for _ in range(measures[RAW8]):
                        raw = RawMcpHttp(servers.ports[kind], era)
                        stack.push_async_callback(raw.close)
                        await raw.open()
                        raws.append(raw.call)
                    callers[era, RAW1, kind] = raws[:1]
                    callers[era, RAW8, kind] = raws
            for group in callers.values():  # warm up every connection
                await asyncio.gather(*(_warm(call, 5) for call in group))
            for r in range(rounds):
                shift = r % len(kinds)
                gc.collect()
                gc.disable()
                try:
                    for era in ERAS:
                        for m, connections in measures.items():
                            each = max(1, (calls // 4 if m == CLIENT1 else calls) // connections)
                            for kind in [*kinds[shift:], *kinds[:shift]]:
                                await _http_round(
                                    callers[era, m, kind],
                                    each,
                                    samples[era, m, kind],
                                    servers.procs[kind].pid,
                                )
                finally:
                    gc.enable()
        servers.check_alive()

    for era, title in ERAS.items():
        print(f"\n  protocol {title}:")
        print(
            f"  {'client':<15} {'variant':<40} {'p50 ms':>7} {'p99 ms':>7} {'calls/s':>8}"
            f" {'CPU µs':>7}   vs MCPServer: p50  p99 calls/s  CPU"
        )
        for m in measures:
            base = samples[era, m, MCPSERVER]
            for kind in kinds:
                s = samples[era, m, kind]
                print(
                    f"  {m:<15} {LABELS[kind]:<40} {s.p(0.5):7.2f} {s.p(0.99):7.2f}"
                    f" {s.throughput:8.0f} {s.cpu:7.0f}"
                    f"   {' ' * 12}{_median_ratio(s.medians, base.medians):5.2f}x"
                    f" {s.p(0.99) / base.p(0.99):4.2f}x"
                    f" {_median_ratio(s.throughputs, base.throughputs):6.2f}x"
                    f" {s.cpu / base.cpu if base.cpu > 0 else float('nan'):4.2f}x"
                )
        for m in (RAW1, RAW8):
            td, base = samples[era, m, TOOLDECK], samples[era, m, MCPSERVER]
            part = f"2 HTTP {era}, {m.split(', ')[1]}"
            lat = _median_ratio(td.medians, base.medians)
            verdicts.append(
                Verdict(part, "tooldeck / MCPServer p50 latency", "<=", HTTP_TARGET, lat)
            )
            if m == RAW8:
                tput = _median_ratio(td.throughputs, base.throughputs)
                verdicts.append(
                    Verdict(part, "tooldeck / MCPServer throughput", ">=", HTTP_TARGET, tput)
                )
    print(
        "  (raw: the load generator, see RawMcpHttp. p50, p99: over every call of every round;"
        " calls/s: median over rounds; CPU: the server process's user + system time per call,"
        " all its threads, over all rounds. Ratios: p50 and calls/s are medians of per-round"
        " ratios, p99 and CPU are ratios of the totals)"
    )


def _median_ratio(top: Sequence[float], bottom: Sequence[float]) -> float:
    return statistics.median(t / b for t, b in zip(top, bottom, strict=True))


async def _warm(call: Callable[[], Awaitable[object]], calls: int) -> None:
    for _ in range(calls):
        await call()


# ------------------------------------------------------------- part 3: attach
async def _direct_session(
    params: StdioServerParameters, ready: asyncio.Future[ClientSession], done: asyncio.Event
) -> None:
    try:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            ready.set_result(session)
            await done.wait()
    except BaseException as exc:
        if not ready.done():
            ready.set_exception(exc)
        raise


async def part_attach(rounds: int, number: int, verdicts: list[Verdict]) -> None:
    print(
        "\npart 3: an attached tool; the floor server over stdio (a subprocess each);"
        f" {rounds} rounds x {number} calls, interleaved"
    )
    command = (sys.executable, str(SCRIPT), "--serve-stdio", "--returns", RETURNS[0])
    params = StdioServerParameters(command=command[0], args=list(command[1:]))
    ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
    done = asyncio.Event()
    # The direct session lives in a task of its own (anyio: it is left by the task
    # that entered it), so both servers start, and later stop, at the same time.
    owner = asyncio.create_task(_direct_session(params, ready, done))
    try:
        registry = ToolRegistry()
        spec = McpServerSpec(name="bench", command=command)
        async with attach_servers(registry, [spec]) as attached:
            session = await ready
            _check_result(await session.call_tool("add", ARGS), "direct ClientSession")
            health = attached.health()["bench"]
            _require(health.ok and health.tools == ("add",), f"attach -> {health!r}")
            result = await registry.acall("add", ARGS)
            _require(result.ok and json.loads(result.text) == EXPECTED, f"acall {result.text!r}")

            call_tool, acall = session.call_tool, registry.acall
            variants: dict[str, Variant] = {
                "direct": lambda: call_tool("add", ARGS),
                "attached": lambda: acall("add", ARGS),
            }
            timings = await interleaved_async(variants, rounds, number, max(20, number // 5))
            done.set()
    finally:
        done.set()
        await owner
    direct, via = timings["direct"], timings["attached"]
    measured = ratio(via.wall, direct.wall)
    print(
        f"  {'variant':<54} {'wall µs':>8} {'/ direct':>9}"
        f"   {'CPU µs':>7} {'/ direct':>9}   wall rounds"
    )
    for label, t in (
        ("(a) ClientSession.call_tool('add', args)", direct),
        ("(b) attach_servers, await registry.acall('add', args)", via),
    ):
        print(
            f"  {label:<54} {t.wall.median:8.1f} {ratio(t.wall, direct.wall):8.2f}x"
            f"   {t.cpu.median:7.1f} {ratio(t.cpu, direct.cpu):8.2f}x"
            f"   {t.wall.low:.0f}-{t.wall.high:.0f}"
        )
    print(
        f"  difference: {via.wall.median - direct.wall.median:.1f} µs/call wall,"
        f" {via.cpu.median - direct.cpu.median:.1f} µs/call CPU of this process (the client"
        " side, where an attachment works; the server is a subprocess)"
    )
    verdicts.append(
        Verdict(
            "3 attached tool",
            "registry.acall / ClientSession.call_tool",
            "<=",
            ATTACH_TARGET,
            measured,
        )
    )


# ------------------------------------------------------------------ profile
def _short(file: str) -> str:
    root = str(HERE.parent) + os.sep
    site = str(Path(types.__file__).resolve().parent.parent) + os.sep
    if file.startswith(root):
        return file[len(root) :]
    if file.startswith(site):
        return "<site>/" + file[len(site) :]
    marker = f"{os.sep}lib{os.sep}python"
    return "<stdlib>/" + file.split(marker, 1)[1].split(os.sep, 1)[1] if marker in file else file


async def print_profile(label: str, fn: Variant, calls: int, top: int = 22) -> None:
    """cProfile ``calls`` awaits of ``fn`` on this loop (GC off, as in the timed rounds).

    Only this thread is seen: a worker thread's share is the time the loop waits for it.
    """
    profiler = cProfile.Profile()
    gc.collect()
    gc.disable()
    try:
        profiler.enable()
        for _ in range(calls):
            await fn()
        profiler.disable()
    finally:
        gc.enable()
    stats: Any = pstats.Stats(profiler)
    total = stats.total_tt
    rows = [
        (tt / total, ct / total, nc, f"{_short(file)}:{line}({func})" if line else func)
        for (file, line, func), (_, nc, tt, ct, _) in stats.stats.items()
    ]
    print(f"\ncProfile of {label}: {total / calls * 1e6:.0f} µs/call under the profiler")
    print("  top functions by own time:")
    for own, cum, nc, where in sorted(rows, reverse=True)[:top]:
        print(f"    {own:6.1%} own {cum:6.1%} cum {nc / calls:6.1f}/call  {where}")
    ours = [row for row in rows if row[3].startswith("engine")]
    if ours:
        print("  engine functions by cumulative time:")
        for own, cum, nc, where in sorted(ours, key=lambda row: row[1], reverse=True)[:top]:
            print(f"    {cum:6.1%} cum {own:6.1%} own {nc / calls:6.1f}/call  {where}")


# ------------------------------------------------------------------ children
async def serve_http_child(kind: str, port: int) -> None:
    import uvicorn

    if kind in (TOOLDECK, INLINE):
        from tooldeck.mcp import HttpOptions, serve_http

        # One benchmark client is one client to the per-client limits: lift them, so the
        # figures measure serving, not the rate limit (MCPServer has none).
        unlimited = HttpOptions(
            port=port, rate_limit=None, max_concurrent=64, max_connections_per_client=1024
        )
        await serve_http(tooldeck_registry(inline=kind == INLINE), options=unlimited)
        return
    app = (
        mcpserver_server().streamable_http_app(host="127.0.0.1")
        if kind == MCPSERVER
        else floor_server().streamable_http_app(host="127.0.0.1")
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve()


async def serve_stdio_child() -> None:
    from mcp.server.stdio import stdio_server

    server = floor_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


# -------------------------------------------------------------------- main
def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


async def run(opts: argparse.Namespace) -> list[Verdict]:
    verdicts: list[Verdict] = []
    parts = set(opts.only or ("memory", "http", "attach"))
    rounds = opts.rounds or (3 if opts.quick else 15)
    number = opts.number or (40 if opts.quick else 300)
    if "memory" in parts:
        started = time.perf_counter()
        profile_calls = 0 if opts.quick or not opts.profile else 2000
        await part_memory(rounds, number, profile_calls, verdicts)
        print(f"  (part 1 took {time.perf_counter() - started:.1f} s)")
    if "http" in parts:
        started = time.perf_counter()
        http_rounds = opts.rounds or (2 if opts.quick else 10)
        calls = opts.http_calls or (16 if opts.quick else 64)
        kinds = (TOOLDECK, MCPSERVER) if opts.quick else HTTP_KINDS  # each server costs ~1 s
        await part_http(http_rounds, calls, kinds, verdicts)
        print(f"  (part 2 took {time.perf_counter() - started:.1f} s, server start-up included)")
    if "attach" in parts:
        started = time.perf_counter()
        await part_attach(rounds, number, verdicts)
        print(f"  (part 3 took {time.perf_counter() - started:.1f} s, server start-up included)")
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few rounds: a smoke run (< 10 s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--rounds", type=int, help="rounds (default 15, HTTP 10; --quick 3, 2)")
    parser.add_argument("--number", type=int, help="calls per variant per round, parts 1 and 3")
    parser.add_argument("--http-calls", type=int, help="calls per variant per round over HTTP")
    parser.add_argument(
        "--only", action="append", choices=("memory", "http", "attach"), help="run only this part"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the in-process calls")
    parser.add_argument(
        "--returns",
        choices=HANDLERS,
        default="dict",
        help="the handler returns a dict (default: structured content too) or a JSON str",
    )
    parser.add_argument("--serve-http", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-stdio", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    HANDLER[0] = HANDLERS[opts.returns]
    RETURNS[0] = opts.returns
    if opts.serve_http:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_http_child(opts.serve_http, opts.port))
        return 0
    if opts.serve_stdio:
        asyncio.run(serve_stdio_child())
        return 0

    print(
        f"mcp benchmark  {date.today().isoformat()}  "
        f"Python {platform.python_version()} ({platform.python_implementation()})  "
        f"tooldeck {tooldeck.__version__}  mcp {_version('mcp')}  "
        f"uvicorn {_version('uvicorn')}  {os.cpu_count()} CPUs"
    )
    print(f"handler: {HANDLER_SOURCE[opts.returns]}; arguments {ARGS}")
    started = time.perf_counter()
    verdicts = asyncio.run(run(opts))
    print(f"\ntargets ({time.perf_counter() - started:.1f} s):")
    print(f"  {'part':<24} {'ratio':<40} {'target':>9} {'measured':>9}  verdict")
    for verdict in verdicts:
        print(verdict.line())
    missed = [v for v in verdicts if not v.ok]
    print(
        f"target summary: {len(verdicts) - len(missed)} of {len(verdicts)} met"
        + (f"; missed: {', '.join(f'{v.part}: {v.what}' for v in missed)}" if missed else "")
    )
    return 1 if opts.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
