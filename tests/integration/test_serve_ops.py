"""``tooldeck serve --transport http`` for operators: probes, metrics, the audit log, workers.

Each test starts the real command on a free loopback port and talks to it with a
real HTTP client (httpx2) and a real MCP client (``mcp.client.streamable_http``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.slow

TOOLDECK = Path(sys.executable).parent / "tooldeck"
MODULE = "serve_ops_handlers"
DEADLINE = 30.0
SECRET = "s3cr3t-value-from-env"

HANDLERS = """
import os


def pid() -> int:
    return os.getpid()


def echo(text: str, password: str = "", options: dict | None = None) -> str:
    return text


def boom() -> str:
    raise RuntimeError("broken on purpose")
"""

MANIFEST = f"""\
version: 1
bundle: ops
tools:
  - name: pid
    handler: {MODULE}:pid
    description: The process id of the worker that answers.
  - name: echo
    handler: {MODULE}:echo
    description: "Echo the text (key: ${{env:OPS_KEY}})."
    params:
      - {{name: text, description: "What to say"}}
      - {{name: password, description: "A password", default: ""}}
      - {{name: options, type: object, description: "Anything", default: {{}}}}
  - name: boom
    handler: {MODULE}:boom
    description: Always fails.
"""

DOWN_SERVER = """\
mcp_servers:
  - name: broken
    command: {python}
    args: ["-c", "import sys; sys.exit(3)"]
    via: client
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / f"{MODULE}.py").write_text(HANDLERS, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    return tmp_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Served:
    def __init__(self, process: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.process = process
        self.base = f"http://127.0.0.1:{port}"
        self.url = f"{self.base}/mcp"
        self.log = log

    def get(self, path: str) -> httpx2.Response:
        return httpx2.get(self.base + path, timeout=DEADLINE)

    def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """Every sample of ``/metrics``: (name, sorted labels) -> value."""
        response = self.get("/metrics")
        assert response.status_code == 200
        return {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.text)
            for sample in family.samples
        }


def start(project: Path, *extra: str, env: dict[str, str] | None = None) -> Served:
    port = free_port()
    argv = [
        str(TOOLDECK),
        "serve",
        "-m",
        "tools.yaml",
        "--allow-handlers",
        MODULE,
        "--transport",
        "http",
        "--port",
        str(port),
        *extra,
    ]
    log_path = project / f"http-{port}.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            argv,
            cwd=project,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "OPS_KEY": SECRET, **(env or {})},
        )
    served = Served(process, port, log_path)
    deadline = time.monotonic() + DEADLINE
    while True:
        if process.poll() is not None:
            raise AssertionError(f"server exited: {log_path.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return served
        except OSError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"server never answered: {log_path.read_text()}")
        time.sleep(0.1)


def stop(served: Served) -> None:
    served.process.terminate()
    try:
        served.process.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait()


@contextlib.contextmanager
def serving(project: Path, *extra: str) -> Iterator[Served]:
    served = start(project, *extra)
    try:
        yield served
    finally:
        stop(served)


@contextlib.asynccontextmanager
async def session(url: str) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write, read_timeout_seconds=DEADLINE) as s,
    ):
        async with asyncio.timeout(DEADLINE):
            await s.initialize()
        yield s


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def series(metrics: dict[Any, float], name: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {labels: value for (sample, labels), value in metrics.items() if sample == name}


# ------------------------------------------------------------------ probes, metrics


async def test_probes_and_metrics_count_calls_without_a_series_per_made_up_name(project: Path):
    # 130 made-up names in a row: over the default per-client rate (20/s), lifted here.
    with serving(project, "--rate-limit", "none") as served:
        health = served.get("/healthz")
        assert (health.status_code, health.text) == (200, "ok")
        ready = served.get("/readyz")
        assert (ready.status_code, ready.json()) == (200, {"ready": True})

        async with session(served.url) as s:
            for n in range(3):
                assert text_of(await s.call_tool("echo", {"text": f"hi {n}"})) == f"hi {n}"
            assert (await s.call_tool("boom", {})).is_error
            assert (await s.call_tool("echo", {})).is_error  # a required argument missing
            for n in range(30):
                assert (await s.call_tool(f"made_up_{n}", {})).is_error
        before = served.metrics()
        calls = series(before, "tooldeck_tool_calls_total")
        assert calls[(("outcome", "ok"), ("tool", "echo"))] == 3
        assert calls[(("outcome", "unknown_tool"), ("tool", "(unknown)"))] == 30
        assert {dict(labels)["tool"] for labels in calls} == {"echo", "boom", "(unknown)"}
        assert sum(v for labels, v in calls.items() if dict(labels)["tool"] == "boom") == 1
        counts = series(before, "tooldeck_tool_call_duration_seconds_count")
        assert counts[(("tool", "echo"),)] == 4
        assert series(before, "tooldeck_reloads_total") == {
            (("outcome", "failed"),): 0,
            (("outcome", "ok"),): 0,
        }

        async with session(served.url) as s:  # a flood of names: the same series, counted
            for n in range(100):
                await s.call_tool(f"another {n}\nname", {})
        after = served.metrics()
        assert set(after) == set(before)
        unknown = (("outcome", "unknown_tool"), ("tool", "(unknown)"))
        assert series(after, "tooldeck_tool_calls_total")[unknown] == 130


async def test_no_metrics_turns_the_route_off(project: Path):
    with serving(project, "--no-metrics") as served:
        assert served.get("/metrics").status_code == 404
        assert served.get("/readyz").status_code == 200


async def test_readyz_names_an_attached_server_that_is_down(project: Path):
    manifest = MANIFEST + DOWN_SERVER.format(python=json.dumps(sys.executable))
    (project / "tools.yaml").write_text(manifest, encoding="utf-8")
    with serving(project, "--connect-timeout", "10") as served:
        ready = served.get("/readyz")
        assert ready.status_code == 503
        assert ready.json() == {"ready": False, "servers_down": ["broken"]}
        assert served.get("/healthz").status_code == 200
        up = series(served.metrics(), "tooldeck_attached_server_up")
        assert up == {(("server", "broken"),): 0}


async def test_a_broken_reload_keeps_the_server_ready_and_is_counted(project: Path):
    with serving(project, "--reload") as served:
        assert series(served.metrics(), "tooldeck_reloads_total")[(("outcome", "ok"),)] == 1
        (project / "tools.yaml").write_text(MANIFEST + "  - name: [broken\n", encoding="utf-8")
        deadline = time.monotonic() + DEADLINE
        while series(served.metrics(), "tooldeck_reloads_total")[(("outcome", "failed"),)] < 1:
            assert time.monotonic() < deadline, served.log.read_text()
            await asyncio.sleep(0.1)
        ready = served.get("/readyz")
        assert (ready.status_code, ready.json()) == (200, {"ready": True, "manifests": "errors"})
        assert series(served.metrics(), "tooldeck_manifests_ok") == {(): 0}
        async with session(served.url) as s:  # the last good tools still answer
            assert text_of(await s.call_tool("echo", {"text": "still here"})) == "still here"


# ------------------------------------------------------------------ the audit log


def audit_lines(path: Path, count: int) -> list[dict[str, Any]]:
    """The audit log's lines once ``count`` are written (a thread writes them)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        lines = text.splitlines()
        if len(lines) >= count or time.monotonic() > deadline:
            return [json.loads(line) for line in lines]
        time.sleep(0.05)


async def test_the_audit_log_has_one_json_line_per_call_without_arguments(project: Path):
    log = project / "audit.jsonl"
    with serving(project, "--audit-log", str(log)) as served:
        async with session(served.url) as s:
            await s.call_tool("echo", {"text": "hello", "password": "hunter2"})
            await s.call_tool("boom", {})
            await s.call_tool('evil\n{"tool":"forged"}\u2028x', {})
        lines = audit_lines(log, 3)
    raw = log.read_text(encoding="utf-8")
    assert raw.count("\n") == 3
    assert "\u2028" not in raw
    assert "hunter2" not in raw
    assert [line["tool"] for line in lines[:2]] == ["echo", "boom"]
    assert [line["outcome"] for line in lines] == ["ok", "execution_error", "unknown_tool"]
    assert lines[2]["tool"] == 'evil\n{"tool":"forged"}\u2028x'
    first = lines[0]
    assert set(first) == {
        "time",
        "subject",
        "client_id",
        "client",
        "tool",
        "outcome",
        "duration_ms",
        "request_id",
        "session_id",
    }
    assert first["time"].endswith("Z")
    assert "T" in first["time"]
    assert first["subject"] is None
    assert first["client_id"] is None
    assert first["client"].startswith("127.0.0.1:")
    assert isinstance(first["duration_ms"], float)
    assert first["duration_ms"] >= 0
    assert isinstance(first["request_id"], int)
    assert first["session_id"]  # a stateful server: every line names its session


async def test_audit_arguments_are_masked(project: Path):
    log = project / "audit.jsonl"
    with serving(project, "--audit-log", str(log), "--audit-arguments") as served:
        arguments = {
            "text": f"the key is {SECRET}",
            "password": "hunter2",
            "options": {"api_key": "k-123", "nested": [{"Authorization": "Bearer x"}], "n": 1},
        }
        async with session(served.url) as s:
            await s.call_tool("echo", arguments)
        (line,) = audit_lines(log, 1)
    assert line["arguments"] == {
        "text": "the key is ***",
        "password": "***",
        "options": {"api_key": "***", "nested": [{"Authorization": "***"}], "n": 1},
    }
    assert SECRET not in log.read_text(encoding="utf-8")


async def test_an_audit_log_that_cannot_be_written_is_reported_once(project: Path):
    with serving(project, "--audit-log", "/dev/full") as served:
        async with session(served.url) as s:
            for n in range(5):
                assert text_of(await s.call_tool("echo", {"text": str(n)})) == str(n)
                await asyncio.sleep(0.05)  # each line its own write
        deadline = time.monotonic() + DEADLINE
        while "cannot write the audit log" not in served.log.read_text():
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert served.log.read_text().count("cannot write the audit log /dev/full") == 1


def test_an_audit_log_that_cannot_be_opened_refuses_to_serve(project: Path):
    argv = [str(TOOLDECK), "serve", "-m", "tools.yaml", "--allow-handlers", MODULE]
    argv += ["--transport", "http", "--port", str(free_port())]
    done = subprocess.run(
        [*argv, "--audit-log", str(project / "missing" / "audit.jsonl")],
        check=False,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        env={**os.environ, "OPS_KEY": SECRET},
    )
    assert done.returncode == 2, done.stderr
    assert "cannot open the audit log" in done.stderr


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--transport", "http", "--audit-arguments"], "--audit-arguments needs --audit-log"),
        (["--transport", "stdio", "--workers", "2"], "--workers applies to --transport http only"),
        (["--transport", "http", "--workers", "2"], "--workers needs --stateless"),
        (["--transport", "http", "--workers", "0"], "must be at least 1"),
    ],
)
def test_ops_flags_refuse_what_cannot_work(project: Path, flags: list[str], words: str):
    argv = [str(TOOLDECK), "serve", "-m", "tools.yaml", "--allow-handlers", MODULE]
    done = subprocess.run(
        [*argv, "--port", str(free_port()), *flags],
        check=False,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "OPS_KEY": SECRET},
    )
    assert done.returncode == 2, done.stderr
    assert words in done.stderr


# ------------------------------------------------------------------ workers


def worker_pids(parent: int) -> set[int]:
    """The uvicorn workers under ``parent`` (multiprocessing's spawned children)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"spawn_main" in cmdline:
            found.add(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree from /proc")
async def test_workers_serve_stateless_calls_from_several_processes(project: Path):
    with serving(project, "--stateless", "--workers", "2") as served:
        seen: set[int] = set()

        async def one_call() -> int:
            async with session(served.url) as s:
                listed = [tool.name for tool in (await s.list_tools()).tools]
                assert sorted(listed) == ["boom", "echo", "pid"]
                return int(text_of(await s.call_tool("pid", {})))

        deadline = time.monotonic() + DEADLINE
        while len(seen) < 2 and time.monotonic() < deadline:
            seen.update(await asyncio.gather(*(one_call() for _ in range(4))))
        workers = worker_pids(served.process.pid)
        assert len(workers) == 2, workers
        assert seen == workers
        assert served.get("/readyz").status_code == 200


def test_metrics_refuse_a_foreign_host_but_the_probes_answer_any(project: Path) -> None:
    # A page that rebinds its own DNS name to this server could read /metrics (tool and
    # server names) as same-origin; the Host it sends is its own name, refused like /mcp.
    with serving(project) as served:
        rebound = {"Host": "evil.example:8000"}
        metrics = httpx2.get(served.base + "/metrics", headers=rebound, timeout=DEADLINE)
        assert metrics.status_code == 421
        assert "tooldeck_tool_calls_total" not in metrics.text
        foreign_origin = {"Origin": "http://evil.example"}
        refused = httpx2.get(served.base + "/metrics", headers=foreign_origin, timeout=DEADLINE)
        assert refused.status_code == 403
        assert served.get("/metrics").status_code == 200
        # A load balancer or Kubernetes probes by IP address, whatever Host it sends.
        assert httpx2.get(served.base + "/healthz", headers=rebound, timeout=DEADLINE).text == "ok"
        ready = httpx2.get(served.base + "/readyz", headers=rebound, timeout=DEADLINE)
        assert ready.status_code == 200
