"""A tool's timeout bounds the caller's wait, and Python work stops at the limit.

CPU-bound handlers are interrupted (HandlerTimedOut, a BaseException, so ``except
Exception`` cannot swallow it); blocking handlers run out in daemon threads that never hold
the CLI open after it answered.
"""

from __future__ import annotations

import textwrap
import threading
import time
from pathlib import Path

import pytest

from tooldeck import ToolRegistry
from tooldeck._calling.workers import HandlerTimedOut, WorkerPool

LIMIT = 0.3
PROMPT = 10.0  # the caller is answered within this; the handlers spin forever


class Spinner:
    """A CPU-bound handler that counts its iterations and records how it ended."""

    def __init__(self, *, swallow: bool = False) -> None:
        self.count = 0
        self.ended = threading.Event()
        self.swallow = swallow

    def __call__(self, n: int = 0) -> str:
        try:
            while True:
                try:
                    self.count += 1
                except Exception:
                    if not self.swallow:
                        raise
        finally:
            self.ended.set()


def assert_stopped(spinner: Spinner) -> None:
    assert spinner.ended.wait(2.0), "the handler kept running past its timeout"
    before = spinner.count
    time.sleep(0.1)
    assert spinner.count == before


@pytest.mark.parametrize("swallow", [False, True], ids=["plain", "catches-Exception"])
def test_cpu_bound_handler_is_answered_on_time_and_stopped(swallow: bool):
    spinner = Spinner(swallow=swallow)
    registry = ToolRegistry()
    registry.add_tool("spin", "Spin.", spinner, timeout=LIMIT)
    started = time.monotonic()
    result = registry.call("spin", {})
    assert time.monotonic() - started < PROMPT
    assert result.error is not None
    assert result.error.kind == "timeout"
    assert_stopped(spinner)


async def test_cpu_bound_handler_under_acall_is_stopped():
    spinner = Spinner()
    registry = ToolRegistry()
    registry.add_tool("spin", "Spin.", spinner, timeout=LIMIT)
    started = time.monotonic()
    result = await registry.acall("spin", {})
    assert time.monotonic() - started < PROMPT
    assert result.error.kind == "timeout"
    assert_stopped(spinner)


def test_parallel_batch_of_cpu_bound_handlers_is_bounded():
    spinners = [Spinner() for _ in range(4)]
    registry = ToolRegistry()
    for index, spinner in enumerate(spinners):
        registry.add_tool(f"spin{index}", "Spin.", spinner, timeout=LIMIT)
    started = time.monotonic()
    results = registry.call_many([(f"spin{i}", {}) for i in range(4)], strategy="parallel")
    assert time.monotonic() - started < PROMPT * 2
    assert [r.error.kind for r in results] == ["timeout"] * 4
    for spinner in spinners:
        assert_stopped(spinner)


def test_a_registry_default_timeout_applies_too():
    spinner = Spinner()
    registry = ToolRegistry(default_timeout=LIMIT)
    registry.add_tool("spin", "Spin.", spinner)
    assert registry.call("spin", {}).error.kind == "timeout"
    assert_stopped(spinner)


def test_the_worker_survives_an_interruption_and_serves_the_next_call():
    pool = WorkerPool(1)
    spinner = Spinner()
    future = pool.submit(spinner)
    time.sleep(0.05)
    assert pool.interrupt(future)
    assert_stopped(spinner)
    with pytest.raises(HandlerTimedOut):
        future.result(timeout=2)
    assert pool.submit(lambda: 42).result(timeout=2) == 42
    assert pool.interrupt(future) is False  # finished: nothing to interrupt


def test_interrupting_a_finished_call_never_hits_the_next_one():
    pool = WorkerPool(1)
    for _ in range(200):
        first = pool.submit(lambda: 1)
        first.result(timeout=2)
        pool.interrupt(first)
        assert pool.submit(lambda: sum(range(1000))).result(timeout=2) == 499500


def test_cli_exits_promptly_after_a_timed_out_blocking_handler(tmp_path: Path, run_cli):
    (tmp_path / "tdsec_slow.py").write_text(
        "import time\n\ndef nap(seconds: float) -> str:\n"
        '    """Sleep."""\n    time.sleep(seconds)\n    return "woke"\n'
    )
    manifest = tmp_path / "slow.yaml"
    manifest.write_text(
        textwrap.dedent(
            """\
            version: 1
            tools:
              - name: nap
                handler: tdsec_slow:nap
                description: Sleep for the given number of seconds, then say so.
                timeout: 500ms
                params:
                  - name: seconds
                    type: number
                    description: how long to sleep
            """
        )
    )
    started = time.monotonic()
    done = run_cli(
        "call",
        "nap",
        "-m",
        str(manifest),
        "--allow-handlers",
        "tdsec_slow",
        "--args",
        '{"seconds": 30}',
        cwd=tmp_path,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert "timeout" in done.stderr
    assert elapsed < 10, f"the CLI waited {elapsed:.1f} s for an abandoned handler"
