"""ruff and mypy stay clean: the same checks a developer runs, enforced in CI."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_ruff_check_is_clean():
    done = run(str(BIN / "ruff"), "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean():
    done = run(str(BIN / "ruff"), "format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_is_clean_on_engine(tmp_path: Path):
    """engine/ installs as ``tooldeck``; mypy names modules after folders, so it checks the
    package through a ``tooldeck`` link to engine/ (handlers/ comes in through engine/handlers)."""
    (tmp_path / "tooldeck").symlink_to(ROOT / "engine", target_is_directory=True)
    done = run(str(BIN / "mypy"), "--config-file", "pyproject.toml", str(tmp_path / "tooldeck"))
    assert done.returncode == 0, done.stdout + done.stderr
