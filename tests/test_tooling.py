"""ruff and mypy stay clean: the same checks a developer runs, enforced in CI."""

import shutil
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


def test_mypy_strict_is_clean_on_the_engine_folder():
    """mypy follows engine/ as it is, without an install or a link: inside the package every
    import is relative, so the folder's own name does not matter."""
    done = run(str(BIN / "mypy"), "--config-file", "pyproject.toml", "engine")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_is_clean_on_the_handlers(tmp_path: Path):
    """handlers/ is an add-on to the engine, as a user's handler package is: it imports
    ``tooldeck`` by name. mypy checks it against a copy of engine/ laid out as installed."""
    shutil.copytree(
        ROOT / "engine", tmp_path / "tooldeck", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(
        ROOT / "handlers",
        tmp_path / "tooldeck" / "handlers",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    done = run(
        str(BIN / "mypy"),
        "--config-file",
        "pyproject.toml",
        str(tmp_path / "tooldeck" / "handlers"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
