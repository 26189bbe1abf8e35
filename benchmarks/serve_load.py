"""Held under load: ``tooldeck serve --transport http`` with 16 clients, hot reload and JWT.

Run from the repository root::

    .venv/bin/python benchmarks/serve_load.py            # full run: 60 s of load per server
    .venv/bin/python benchmarks/serve_load.py --quick    # smoke run: 3 clients, ~15 s in all
    .venv/bin/python benchmarks/serve_load.py --check    # exit 1 if a target is missed
    .venv/bin/python benchmarks/serve_load.py --duration 120 --clients 32 --round 10
    .venv/bin/python benchmarks/serve_load.py --no-auth  # both servers without authentication
    .venv/bin/python benchmarks/serve_load.py --no-rewrite   # no reloads (what they cost)

The script writes a small project into a temporary folder: a handler module
``bench_tools.py`` with ``add(a: int, b: int) -> dict``, a manifest serving it
and a ``pyproject.toml`` allowing the module. Two servers run, each in a child
process on a free port of 127.0.0.1, both under uvicorn with h11:

tooldeck   the real CLI: ``python -m tooldeck serve -m manifests --transport http
           --reload``, with ``--auth jwt`` (a PEM public key, an issuer and the
           server's resource URL as audience) and the per-client limits raised
           (``--rate-limit``) where this tooldeck has those flags
MCPServer  the mcp package's ``MCPServer`` serving the same function
           (``@tool`` on ``bench_tools.add``), with ``token_verifier=`` a PyJWT
           verifier written here that checks what tooldeck's does (signature with
           the same public key, algorithm, ``iss``, ``aud``, ``exp``/``nbf`` with
           30 s leeway) and ``AuthSettings``

Each side has ``--clients`` clients (:class:`_mcpsession.McpSession`: raw HTTP/1.1 on
asyncio in this process, so the clients cost a few tens of µs a call and do not set
the pace), each with a token of its own (``sub`` = the client's name), each as a real
client: ``initialize`` once, a GET stream for notifications, then ``tools/call`` in a
loop, and a ``tools/list`` after every ``notifications/tools/list_changed``. All the
while the script rewrites the manifest every second, alternating two descriptions of
the tool, so tooldeck really reloads and its clients really get ``list_changed``.
MCPServer cannot reload, so it never announces a change; for the same load, its
clients list the tools at each rewrite as if told (both servers answer the same
requests; tooldeck also does the reloading and the announcing).

The sides take turns: rounds of ``--round`` seconds, tooldeck and MCPServer
alternating (which goes first swaps each pair), ``--duration`` seconds of load
per side in all, after an untimed warm-up round each. Reported per side: calls/s,
p50/p99 latency, failed calls (and why), the server process's CPU per call
(``/proc/PID/stat``, all threads) and its RSS (``/proc/PID/status``) after the
warm-up and at the end.

Targets: tooldeck's throughput >= 1.0x MCPServer's (median of per-pair ratios),
p99 <= 1.0x MCPServer's, 0 failed requests, RSS growth <= 10% from after warm-up
to the end. Benchmarks report, they do not gate: the exit status is 0 unless
``--check`` is given and a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = Path(__file__).resolve()
# Python puts a script's folder first on sys.path, where benchmarks/mcp.py would shadow
# the mcp package (the MCPServer child imports it): keep the folder, but last.
sys.path[:] = [p for p in sys.path if Path(p or os.curdir).resolve() != HERE]
sys.path.append(str(HERE))

from _loadservers import (  # noqa: E402
    Project,
    Server,
    free_port,
    mcpserver_argv,
    serve_mcpserver,
    tooldeck_argv,
    tooldeck_flags,
)
from _mcpsession import CallFailed, McpSession  # noqa: E402

THROUGHPUT_TARGET = 1.0
"""tooldeck / MCPServer calls per second: at least."""
P99_TARGET = 1.0
"""tooldeck / MCPServer p99 latency: at most."""
RSS_GROWTH_TARGET = 0.10
"""tooldeck's RSS at the end over its RSS after the warm-up, minus one: at most."""

ARGS = {"a": 2, "b": 3}
EXPECTED_IN_PAYLOAD = '"sum\\": 5'
"""In every good answer: the text block ``{"sum": 5}`` (both servers send it), JSON-escaped."""
CALL_TIMEOUT = 10.0
"""Seconds before a request counts as failed (timeout)."""
REWRITE_EVERY = 1.0

TOOLDECK, MCPSERVER = "tooldeck", "MCPServer"
SIDES = (TOOLDECK, MCPSERVER)


# ------------------------------------------------------------------ the load
@dataclass
class Side:
    """One server, its clients and what they measured."""

    name: str
    server: Server
    sessions: list[McpSession] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    """Seconds per successful call, every timed round."""
    throughputs: list[float] = field(default_factory=list)
    """Successful calls per second, one per timed round."""
    calls: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    """Failed requests (calls and lists) by reason, timed rounds."""
    warmup_failures: Counter[str] = field(default_factory=Counter)
    cpu_seconds: float = 0.0
    """The server's CPU time over the timed rounds."""
    client_cpu: float = 0.0
    """This process's CPU time over the timed rounds (the clients)."""
    seconds: float = 0.0
    """Wall time of the timed rounds."""
    rss: dict[str, dict[str, int]] = field(default_factory=dict)
    rss_trace: list[int] = field(default_factory=list)
    """VmRSS in KiB after each timed round."""

    def p(self, q: float) -> float:
        """The ``q`` quantile of the latencies, in ms."""
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000.0

    @property
    def failed(self) -> int:
        return sum(self.failures.values())


async def open_sessions(side: Side, tokens: list[str | None]) -> None:
    for token in tokens:
        session = McpSession(
            side.server.port, token=token, arguments=ARGS, expected=EXPECTED_IN_PAYLOAD
        )
        await session.open()
        await session.call()
        side.sessions.append(session)


async def one_round(side: Side, seconds: float, *, timed: bool) -> None:
    """Every client calls in a loop for ``seconds``; the results go to ``side``."""
    failures = side.failures if timed else side.warmup_failures
    latencies: list[float] = []
    clock = time.perf_counter

    async def client(session: McpSession, deadline: float) -> None:
        while clock() < deadline:
            try:
                await asyncio.wait_for(session.list_if_due(), CALL_TIMEOUT)
            except Exception as exc:
                failures[f"tools/list: {_why(exc)}"] += 1
            started = clock()
            try:
                await asyncio.wait_for(session.call(), CALL_TIMEOUT)
            except Exception as exc:
                failures[f"tools/call: {_why(exc)}"] += 1
                continue
            latencies.append(clock() - started)

    # untimed: wakes connections uvicorn closed while the other side ran
    await asyncio.gather(*(_wake(s, failures) for s in side.sessions))
    side.server.check_alive()
    cpu_before, client_before = side.server.cpu(), time.process_time()
    started = clock()
    await asyncio.gather(*(client(s, started + seconds) for s in side.sessions))
    wall = clock() - started
    if timed:
        side.cpu_seconds += side.server.cpu() - cpu_before
        side.client_cpu += time.process_time() - client_before
        side.seconds += wall
        side.latencies += latencies
        side.calls += len(latencies)
        side.throughputs.append(len(latencies) / wall)
        side.rss_trace.append(side.server.memory()["VmRSS"])


async def _wake(session: McpSession, failures: Counter[str]) -> None:
    try:
        await asyncio.wait_for(session.list_if_due(), CALL_TIMEOUT)
        await asyncio.wait_for(session.call(), CALL_TIMEOUT)
    except Exception as exc:
        failures[f"untimed wake-up call: {_why(exc)}"] += 1


def _why(exc: BaseException) -> str:
    if isinstance(exc, CallFailed):
        return str(exc)
    if isinstance(exc, asyncio.TimeoutError):
        return f"no answer in {CALL_TIMEOUT:.0f} s"
    return f"{type(exc).__name__}: {exc}"[:120]


async def rewrite_forever(
    project: Project, counter: list[int], unannounced: list[McpSession]
) -> None:
    """Rewrite the manifest every second, alternating its two valid versions.

    The same load on both servers: tooldeck's clients list the tools again when
    ``list_changed`` says so; MCPServer cannot reload, so its clients
    (``unannounced``) list again at each rewrite too, as if told. Both servers
    then answer the same requests, and tooldeck also does the reloading.
    """
    while True:
        await asyncio.sleep(REWRITE_EVERY)
        counter[0] += 1
        project.write_manifest(counter[0])
        for session in unannounced:
            session.list_due = True


async def check_refusals(side: Side, project: Project) -> list[str]:
    """With authentication: no token, and a token for another server, get 401."""
    problems = []
    other = f"http://127.0.0.1:{side.server.port + 1}/mcp"
    for label, token in (
        ("no token", None),
        ("a token for another audience", project.token("intruder", other)),
    ):
        session = McpSession(side.server.port, token=token, arguments=ARGS, expected="")
        try:
            await session.open()
            problems.append(f"{side.name} accepted a session with {label}")
        except CallFailed as exc:
            if "-> 401" not in str(exc):
                problems.append(f"{side.name}, {label}: {exc}")
        finally:
            await session.close()
    return problems


# -------------------------------------------------------------------- main
async def run(opts: argparse.Namespace, project: Project, auth: bool, flags: set[str]) -> int:
    ports = {TOOLDECK: free_port(), MCPSERVER: free_port()}
    argvs = {
        TOOLDECK: tooldeck_argv(
            ports[TOOLDECK], project, auth=auth, flags=flags, clients=opts.clients
        ),
        MCPSERVER: mcpserver_argv(SCRIPT, ports[MCPSERVER], project, auth=auth),
    }
    print(f"tooldeck: {' '.join(['tooldeck', *argvs[TOOLDECK][3:]])}")
    servers = {name: Server.start(name, argvs[name], ports[name], project.root) for name in SIDES}
    sides = {name: Side(name, server) for name, server in servers.items()}
    rewrites = [0]
    rewriter: asyncio.Task[None] | None = None
    try:
        deadline = time.monotonic() + 60
        for server in servers.values():
            server.wait_ready(deadline)
        problems: list[str] = []
        for side in sides.values():
            tokens = [
                project.token(f"client-{i:02d}", side.server.url) if auth else None
                for i in range(opts.clients)
            ]
            try:
                await open_sessions(side, tokens)
            except (CallFailed, OSError) as exc:
                raise SystemExit(
                    f"serve_load: no session with {side.name}: {exc}\n{side.server.tail()}"
                ) from None
            if auth:
                problems += await check_refusals(side, project)
        for problem in problems:
            print(f"  PROBLEM: {problem}")
        if not opts.no_rewrite:
            unannounced = sides[MCPSERVER].sessions
            rewriter = asyncio.create_task(rewrite_forever(project, rewrites, unannounced))
        warmup = opts.warmup if opts.warmup is not None else (1.0 if opts.quick else 5.0)
        for side in sides.values():
            await one_round(side, warmup, timed=False)
        for side in sides.values():
            side.rss["start"] = side.server.memory()
        rounds = max(1, round(opts.duration / opts.round))
        print(
            f"load: {opts.clients} clients per server, {rounds} rounds of {opts.round:g} s per"
            " server, alternating; "
            + (
                "the manifest never rewritten (--no-rewrite: no reloads)"
                if opts.no_rewrite
                else f"the manifest rewritten every {REWRITE_EVERY:g} s"
            )
        )
        for r in range(rounds):
            order = SIDES if r % 2 == 0 else SIDES[::-1]
            for name in order:
                await one_round(sides[name], opts.round, timed=True)
        for side in sides.values():
            side.server.check_alive()
            side.rss["end"] = side.server.memory()
    finally:
        if rewriter is not None:
            rewriter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await rewriter
        for side in sides.values():
            for session in side.sessions:
                await session.close()
        logs = {name: server.tail() for name, server in servers.items()}
        for server in servers.values():
            server.stop()
    return report(opts, sides, rewrites[0], problems, logs, auth=auth)


def report(
    opts: argparse.Namespace,
    sides: dict[str, Side],
    rewrites: int,
    problems: list[str],
    logs: dict[str, str],
    *,
    auth: bool,
) -> int:
    td, ms = sides[TOOLDECK], sides[MCPSERVER]
    print(
        f"\n  {'server':<10} {'calls':>7} {'calls/s':>8} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'failed':>6} {'CPU µs/call':>11} {'server CPU':>10} {'RSS start':>10}"
        f" {'RSS end':>9} {'growth':>7} {'peak RSS':>9}"
    )
    for side in sides.values():
        start, end = side.rss["start"]["VmRSS"], side.rss["end"]["VmRSS"]
        cpu_per_call = side.cpu_seconds / side.calls * 1e6 if side.calls else float("nan")
        print(
            f"  {side.name:<10} {side.calls:7d} {statistics.median(side.throughputs):8.0f}"
            f" {side.p(0.5):7.2f} {side.p(0.99):7.2f} {side.failed:6d} {cpu_per_call:11.0f}"
            f" {side.cpu_seconds / side.seconds:9.0%} {start / 1024:7.1f} MiB"
            f" {end / 1024:5.1f} MiB {end / start - 1:+6.1%}"
            f" {side.rss['end']['VmHWM'] / 1024:5.1f} MiB"
        )
    print(
        "  (calls/s: median over rounds; p50, p99: every successful call of the timed rounds;"
        " server CPU: user + system, all threads, per call and as a share of one core;"
        " RSS: VmRSS after the warm-up and at the end, peak: VmHWM)"
    )
    for side in sides.values():
        lists = sum(s.stats.lists for s in side.sessions)
        got = [s.stats.list_changed for s in side.sessions]
        seen = Counter[str]()
        for s in side.sessions:
            seen.update(s.stats.descriptions)
        reconnects = sum(s.stats.reconnects for s in side.sessions)
        print(
            f"  {side.name}: list_changed per client {min(got)}-{max(got)} for {rewrites} rewrites;"
            f" {lists} tools/list ({', '.join(f'{n} x {d!r}' for d, n in seen.items()) or '-'});"
            f" {reconnects} reconnections; clients' CPU {side.client_cpu / side.seconds:.0%}"
            " of one core"
        )
        trace = " ".join(f"{kib / 1024:.1f}" for kib in side.rss_trace)
        print(f"    RSS after each round, MiB: {trace}")
        for s in side.sessions:
            for error in s.stats.stream_errors[:1]:
                print(f"    GET stream of a client ended: {error}")
        for reason, count in (side.failures + side.warmup_failures).most_common(8):
            print(f"    failed: {count} x {reason}")
    if not opts.no_rewrite and not all(s.stats.list_changed for s in td.sessions):
        print("  NOTE: some tooldeck clients got no list_changed: did the reloads happen?")
        print("  tooldeck's log:\n" + logs[TOOLDECK])

    pairs = [t / m for t, m in zip(td.throughputs, ms.throughputs, strict=True) if m > 0]
    throughput = statistics.median(pairs) if pairs else float("nan")
    p99 = td.p(0.99) / ms.p(0.99)
    growth = td.rss["end"]["VmRSS"] / td.rss["start"]["VmRSS"] - 1
    verdicts = [
        (
            "throughput, tooldeck / MCPServer",
            f">= {THROUGHPUT_TARGET:.2f}x",
            f"{throughput:.2f}x",
            throughput >= THROUGHPUT_TARGET,
        ),
        (
            "p99 latency, tooldeck / MCPServer",
            f"<= {P99_TARGET:.2f}x",
            f"{p99:.2f}x",
            p99 <= P99_TARGET,
        ),
        ("tooldeck failed requests", "0", str(td.failed), td.failed == 0),
        (
            "tooldeck RSS growth after warm-up",
            f"<= {RSS_GROWTH_TARGET:.0%}",
            f"{growth:+.1%}",
            growth <= RSS_GROWTH_TARGET,
        ),
    ]
    if auth:
        wrong = f"{len(problems)} wrong" if problems else "all"
        verdicts.append(("auth refusals (401 without a valid token)", "all", wrong, not problems))
    print(f"\ntargets:\n  {'what':<44} {'target':>9} {'measured':>9}  verdict")
    for what, target, measured, ok in verdicts:
        print(f"  {what:<44} {target:>9} {measured:>9}  {'PASS' if ok else 'MISS'}")
    missed = [v[0] for v in verdicts if not v[3]]
    print(
        f"target summary: {len(verdicts) - len(missed)} of {len(verdicts)} met"
        + (f"; missed: {', '.join(missed)}" if missed else "")
    )
    return 1 if opts.check and missed else 0


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 clients, 2 x 2 s")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--duration", type=float, help="seconds of load per server (default 60)")
    parser.add_argument("--clients", type=int, help="clients per server (default 16)")
    parser.add_argument("--round", type=float, help="seconds per round (default 5)")
    parser.add_argument("--warmup", type=float, help="untimed seconds per server first (5)")
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help="no authentication on either side (also chosen when tooldeck serve has no --auth)",
    )
    parser.add_argument(
        "--no-rewrite",
        action="store_true",
        help="leave the manifest alone (information: what the reloads cost tooldeck)",
    )
    parser.add_argument("--serve-mcpserver", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--project", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--jwt-public-key", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.serve_mcpserver:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_mcpserver(opts.port, opts.project, opts.jwt_public_key))
        return 0
    opts.duration = opts.duration or (4.0 if opts.quick else 60.0)
    opts.clients = opts.clients or (3 if opts.quick else 16)
    opts.round = opts.round or (2.0 if opts.quick else 5.0)
    if not (
        opts.duration > 0 and opts.clients > 0 and opts.round > 0 and math.isfinite(opts.round)
    ):
        parser.error("--duration, --clients and --round must be positive")

    import tooldeck

    flags = tooldeck_flags()
    auth = not opts.no_auth and "--auth" in flags
    print(
        f"serve_load benchmark  {date.today().isoformat()}  Python {platform.python_version()}"
        f"  tooldeck {tooldeck.__version__}  mcp {_version('mcp')}  uvicorn {_version('uvicorn')}"
        f"  PyJWT {_version('PyJWT')}  {os.cpu_count()} CPUs"
    )
    if auth:
        print("authentication: JWT (RS256, one token per client) on both servers")
    elif opts.no_auth:
        print("authentication: none on either server (--no-auth)")
    else:
        print(
            "authentication: none on either server: this tooldeck serve has no --auth yet"
            " (the comparison stays like for like)"
        )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="serve-load-") as folder:
        project = Project.create(Path(folder))
        status = asyncio.run(run(opts, project, auth, flags))
    print(f"(took {time.perf_counter() - started:.0f} s)")
    return status


if __name__ == "__main__":
    sys.exit(main())
