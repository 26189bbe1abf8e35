"""Shared fixtures: the repository root and a runner for the real console script."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(sys.executable).parent


@pytest.fixture
def run_cli():
    """Run the installed ``tooldeck`` console script in a subprocess."""

    def run(*args: str, cwd: Path | str = ROOT, env: dict | None = None, timeout: float = 60):
        return subprocess.run(
            [str(SCRIPTS / "tooldeck"), *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            check=False,
        )

    return run
