"""What the tests of the file-changing tools share: a project, its outside, snapshots, the tools.

``project`` is ``tmp_path/project``; ``outside`` is the sibling ``tmp_path/outside`` holding a
secret file, and it is snapshotted before each test and compared after it (no test may change
anything there, whatever it asserts about the tool's answer).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from tooldeck import ToolContext, ToolFailed
from tooldeck.handlers.files_write import (
    append_file,
    delete_path,
    edit_file,
    make_dir,
    move_path,
    write_file,
)

SECRET = "TOP-SECRET-4711\n"
INSIDE = "inside TOP\n"


def enabled(**files: object) -> Mapping[str, Any]:
    """The config that turns the tools on, with more tooldeck.files keys, read-only as the
    registry injects it."""
    return MappingProxyType({"tooldeck": {"files": {"write": True, **files}}})


class Forged(dict[str, Any]):
    """A config passed to a tool as its ``context`` as it is, the way a model's JSON would
    arrive through a manifest that declares ``context`` as a parameter."""


def as_context(root: Path, config: Mapping[str, Any]) -> Any:
    """The ``ToolContext`` the engine injects, carrying ``config`` (a Forged one unwrapped)."""
    if isinstance(config, Forged):
        return dict(config)
    return ToolContext(tool_name="test", call_id="c1", project_dir=root, config=config)


ENABLED = enabled()


def snapshot(root: Path) -> dict[str, tuple[object, ...]]:
    """Everything below ``root`` without following a link: type, mode and content or target."""
    seen: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            st = path.lstat()
            kind = stat.S_IFMT(st.st_mode)
            if stat.S_ISREG(st.st_mode):
                detail: object = path.read_bytes()
            elif stat.S_ISLNK(st.st_mode):
                detail = os.readlink(path)
            else:
                detail = None
            seen[path.relative_to(root).as_posix()] = (kind, stat.S_IMODE(st.st_mode), detail)
    return seen


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """The project's sibling; whatever a test does, it must be exactly as it was afterwards."""
    other = tmp_path / "outside"
    (other / "sub").mkdir(parents=True)
    (other / "secret.txt").write_text(SECRET)
    (other / "sub" / "data.txt").write_text(SECRET)
    before = snapshot(other)
    yield other
    assert snapshot(other) == before, "something outside the project was changed"


@pytest.fixture
def project(tmp_path: Path, outside: Path) -> Path:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "data.txt").write_text(INSIDE)
    (root / "notes.txt").write_text("hello\nworld\n")
    return root


Tool = Callable[..., dict[str, object]]
TOOLS: dict[str, Callable[[str, Path, Mapping[str, Any], bool], dict[str, object]]] = {
    "write_file": lambda p, root, cfg, dry: write_file(
        p, "new\n", dry, project_dir=root, context=as_context(root, cfg)
    ),
    "append_file": lambda p, root, cfg, dry: append_file(
        p, "more\n", dry, project_dir=root, context=as_context(root, cfg)
    ),
    "edit_file": lambda p, root, cfg, dry: edit_file(
        p, "TOP", "CHANGED", dry, project_dir=root, context=as_context(root, cfg)
    ),
    "move_path(source)": lambda p, root, cfg, dry: move_path(
        p, "moved-here", dry_run=dry, project_dir=root, context=as_context(root, cfg)
    ),
    "move_path(destination)": lambda p, root, cfg, dry: move_path(
        "notes.txt", p, overwrite=True, dry_run=dry, project_dir=root, context=as_context(root, cfg)
    ),
    "make_dir": lambda p, root, cfg, dry: make_dir(
        p, dry, project_dir=root, context=as_context(root, cfg)
    ),
    "delete_path": lambda p, root, cfg, dry: delete_path(
        p, recursive=True, dry_run=dry, project_dir=root, context=as_context(root, cfg)
    ),
}
"""Every tool, acting on one path (move_path in both roles); edit_file looks for "TOP"."""


def run(
    tool: str, path: str, root: Path, config: Mapping[str, Any] = ENABLED, dry_run: bool = False
) -> dict[str, object]:
    return TOOLS[tool](path, root, config, dry_run)


def refused(
    tool: str, path: str, root: Path, config: Mapping[str, Any] = ENABLED, dry_run: bool = False
) -> ToolFailed:
    """The ToolFailed the tool raises on ``path`` (fails the test if it succeeds)."""
    with pytest.raises(ToolFailed) as info:
        run(tool, path, root, config, dry_run)
    assert "Traceback" not in info.value.message
    return info.value
