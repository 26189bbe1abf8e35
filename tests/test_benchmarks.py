"""The benchmark scripts still run: a smoke test, never a speed assertion.

Targets are measured and reported by the scripts themselves; here each runs
its shortest form and must exit 0 without a traceback, so a refactor cannot
leave a benchmark broken until someone needs its figures.
"""

from __future__ import annotations

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
    ],
    ids=["dispatch", "load", "reload", "startup", "mcp"],
)
def test_the_benchmark_runs(argv):
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / argv[0]), *argv[1:]],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=BENCHMARKS.parent,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "target" in done.stdout
