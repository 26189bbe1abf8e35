"""What the tool packs' tests share: the context the engine injects into a pack's handler, and
git run for real with an identity of the test's own."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tooldeck import ToolContext


def ctx(config: Mapping[str, Any]) -> ToolContext:
    """The ``ToolContext`` a registry injects, carrying the application config ``config``."""
    return ToolContext(tool_name="test", call_id="c1", project_dir=None, config=config)


def git(cwd: Path, *args: str) -> str:
    """Plain git, as a user runs it (what the tools must do better than)."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout


@pytest.fixture(autouse=True)
def git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HOME and XDG_CONFIG_HOME in tmp_path (the user's global config is never read), and the
    identity from GIT_AUTHOR_* / GIT_COMMITTER_*: for every test of a module that imports it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test Person")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.com")
