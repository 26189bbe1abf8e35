"""SIGTERM drains ``tooldeck serve --transport http``: the call in flight finishes, new
requests get 503, the process exits 0.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .serve_limits_harness import HEADERS, INIT, client, free_port, mcp_session, text_of

pytestmark = pytest.mark.slow

TOOLDECK = Path(sys.executable).parent / "tooldeck"
HANDLERS = """
import pathlib, time

def slow(seconds: float) -> str:
    pathlib.Path("started").write_text("yes")
    time.sleep(seconds)
    return f"slept {seconds}"
"""
MANIFEST = """\
version: 1
bundle: drain
tools:
  - name: slow
    handler: drain_handlers:slow
    description: Sleep a while.
    params:
      - {name: seconds, type: number, description: "How long"}
"""


async def test_sigterm_lets_the_call_in_flight_finish_refuses_new_requests_and_exits_0(
    tmp_path: Path,
):
    (tmp_path / "drain_handlers.py").write_text(HANDLERS, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    port = free_port()
    argv = [
        str(TOOLDECK), "serve", "-m", "tools.yaml", "--allow-handlers", "drain_handlers",
        "--transport", "http", "--port", str(port), "--drain-timeout", "20",
    ]  # fmt: skip
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(argv, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_listening(port, process, tmp_path)
        url = f"http://127.0.0.1:{port}/mcp"
        async with mcp_session(url, "127.0.0.2") as session:
            await session.list_tools()  # else the client lists them after the result, refused
            call = asyncio.create_task(session.call_tool("slow", {"seconds": 2}))
            deadline = time.monotonic() + 20
            while not (tmp_path / "started").exists():
                assert time.monotonic() < deadline, "the call never started"
                await asyncio.sleep(0.02)
            process.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.3)  # the signal is handled on the server's next tick
            async with client("127.0.0.3") as http:
                refused = await http.post(url, content=json.dumps(INIT), headers=HEADERS)
            assert refused.status_code == 503
            assert refused.headers["connection"] == "close"
            result = await asyncio.wait_for(call, 20)
            assert not result.is_error, text_of(result)
            assert "slept 2" in text_of(result)
        assert process.wait(timeout=20) == 0, (tmp_path / "serve.log").read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()


def _wait_listening(port: int, process: subprocess.Popen[bytes], project: Path) -> None:
    deadline = time.monotonic() + 20
    while True:
        if process.poll() is not None:
            raise AssertionError((project / "serve.log").read_text())
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.1)
