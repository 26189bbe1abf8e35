"""The benchmark scripts still run: a smoke test, never a speed assertion.

Targets are measured and reported by the scripts themselves; here each runs
its shortest form and must exit 0 without a traceback, so a refactor cannot
leave a benchmark broken until someone needs its figures.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize(
    "argv",
    [
        ["dispatch.py", "--quick"],
        ["load.py", "--quick"],
        ["reload.py", "--quick"],
        ["startup.py", "--rounds", "1"],
        ["mcp.py", "--quick"],
        ["loop.py", "--quick"],
        ["serve_load.py", "--quick"],
    ],
    ids=["dispatch", "load", "reload", "startup", "mcp", "loop", "serve_load"],
)
def test_the_benchmark_runs(argv):
    done = _run(argv)
    assert "target" in done.stdout


def test_the_loop_benchmark_runs_without_openai_agents():
    """openai-agents is no dependency: without it, tooldeck is still measured against the floor."""
    done = _run(["loop.py", "--quick", "--api", "chat"], TOOLDECK_BENCH_NO_AGENTS="1")
    assert "tooldeck run / floor <= 1.2x" in done.stdout
    assert "openai-agents comparison skipped" in done.stdout
    assert "pip install openai-agents" in done.stdout
    assert "openai-agents Runner.run" not in done.stdout


def _run(argv: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / argv[0]), *argv[1:]],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=BENCHMARKS.parent,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    return done
