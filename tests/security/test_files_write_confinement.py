"""The file-changing tools never change anything outside the project, in .git or protected.

Every tool (move_path as source and as destination) is tried on each escape route: ``..``,
absolute paths, ``~``, symlinks as the final name and as a parent (pointing out and in), a
folder swapped for a symlink between the check and the change, a folder moved out of the
project while the tool runs, FIFOs and devices. The ``outside`` fixture snapshots the project's
sibling folder and fails any test after which it differs.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.security.test_file_tools import Flipper
from tests.write_tools import (
    INSIDE,
    SECRET,
    TOOLS,
    enabled,
    outside,
    project,
    refused,
    run,
    snapshot,
)
from tooldeck import ToolFailed
from tooldeck.handlers import _confined_write

__all__ = ["outside", "project"]  # fixtures, used by name

PROMPT = 10.0  # seconds within which a call on a FIFO must return (else: it would never)
ALL = sorted(TOOLS)

ROUTES = [
    "../outside/secret.txt",
    "../outside/new.txt",
    "sub/../../outside/secret.txt",
    "{outside}/secret.txt",
    "{outside}/sub",
    "/etc/passwd",
    "~",
    "~/new.txt",
]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("tool", ALL)
def test_traversal_is_refused(project: Path, outside: Path, tool: str, route: str) -> None:
    path = route.format(outside=outside)
    failure = refused(tool, path, project)
    assert failure.kind == "not_permitted"
    assert failure.message == (
        f"path {path!r} is outside the project directory; use a path relative to it"
    )


@pytest.mark.parametrize("tool", ALL)
def test_nul_is_refused(project: Path, tool: str) -> None:
    failure = refused(tool, "sub/x\0y", project)
    assert failure.kind == "invalid_arguments"
    assert "NUL" in failure.message


# --- symlinks ----------------------------------------------------------------------------------


@pytest.fixture
def linked(project: Path, outside: Path) -> Path:
    (project / "link_out.txt").symlink_to(outside / "secret.txt")
    (project / "dir_out").symlink_to(outside, target_is_directory=True)
    (project / "alias.txt").symlink_to("notes.txt")
    (project / "alias_dir").symlink_to("sub", target_is_directory=True)
    return project


@pytest.mark.parametrize("tool", ["write_file", "append_file", "edit_file"])
def test_writing_through_a_link_out_is_refused_as_outside(linked: Path, tool: str) -> None:
    failure = refused(tool, "link_out.txt", linked)
    assert (failure.kind, failure.message) == (
        "not_permitted",
        "path 'link_out.txt' is outside the project directory; use a path relative to it",
    )


@pytest.mark.parametrize("tool", ["write_file", "append_file", "edit_file"])
def test_writing_through_a_link_inside_is_refused_too(linked: Path, tool: str) -> None:
    failure = refused(tool, "alias.txt", linked)
    assert failure.kind == "not_permitted"
    assert failure.message == "'alias.txt' is a symbolic link; edit its target path instead"
    assert (linked / "notes.txt").read_text() == "hello\nworld\n"


def test_delete_and_move_act_on_the_link_itself(linked: Path, outside: Path) -> None:
    assert run("delete_path", "link_out.txt", linked)["type"] == "symbolic link"
    assert not os.path.lexists(linked / "link_out.txt")
    assert run("move_path(source)", "dir_out", linked)["type"] == "symbolic link"
    assert (linked / "moved-here").is_symlink()
    assert run("move_path(destination)", "alias.txt", linked)["action"] == "replaced"
    assert not (linked / "alias.txt").is_symlink()  # the link was replaced, not followed
    assert (outside / "secret.txt").read_text() == SECRET


def test_make_dir_on_a_link_is_refused(linked: Path) -> None:
    failure = refused("make_dir", "dir_out", linked)
    assert failure.kind == "invalid_arguments"
    assert "symbolic link" in failure.message


@pytest.mark.parametrize("path", ["dir_out/new.txt", "dir_out/secret.txt", "dir_out/sub"])
@pytest.mark.parametrize("tool", ALL)
def test_a_parent_linking_out_is_refused(linked: Path, tool: str, path: str) -> None:
    assert refused(tool, path, linked).kind == "not_permitted"


def test_a_parent_linking_inside_is_followed(linked: Path) -> None:
    answer = run("write_file", "alias_dir/data.txt", linked)
    assert (answer["path"], answer["action"]) == ("sub/data.txt", "replaced")
    assert (linked / "sub" / "data.txt").read_text() == "new\n"


# --- races ------------------------------------------------------------------------------------

RACED = {
    "write_file": "sub/data.txt",
    "append_file": "sub/data.txt",
    "edit_file": "sub/data.txt",
    "move_path(source)": "sub/data.txt",
    "move_path(destination)": "sub/new.txt",
    "make_dir": "sub/newdir",
    "delete_path": "sub/data.txt",
}


def _swap_for_link(project: Path, outside: Path) -> None:
    (project / "sub").rename(project / "sub_old")
    (project / "sub").symlink_to(outside, target_is_directory=True)


LANDED: dict[str, Callable[[Path], bool]] = {
    "write_file": lambda old: (old / "data.txt").read_text() == "new\n",
    "append_file": lambda old: (old / "data.txt").read_text() == INSIDE + "more\n",
    "edit_file": lambda old: (old / "data.txt").read_text() == "inside CHANGED\n",
    "move_path(source)": lambda old: not (old / "data.txt").exists(),
    "move_path(destination)": lambda old: (old / "new.txt").read_text() == "hello\nworld\n",
    "make_dir": lambda old: (old / "newdir").is_dir(),
    "delete_path": lambda old: not (old / "data.txt").exists(),
}
"""Whether the tool's change landed in the folder its descriptor held (renamed sub_old)."""


@pytest.mark.parametrize("tool", ALL)
def test_a_folder_swapped_for_a_link_after_opening_is_not_followed(
    project: Path, outside: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    """The swap lands after the folder's descriptor is open: the change goes to the folder the
    descriptor holds (now named sub_old, inside), never through the new link."""
    real = _confined_write._descend

    def descend_then_swap(project_: Any, parts: tuple[str, ...], *args: Any, **kw: Any) -> Any:
        opened = real(project_, parts, *args, **kw)
        if parts[:1] == ("sub",) and not (project / "sub_old").exists():
            _swap_for_link(project, outside)
        return opened

    monkeypatch.setattr(_confined_write, "_descend", descend_then_swap)
    run(tool, RACED[tool], project)
    assert (project / "sub").is_symlink()
    assert LANDED[tool](project / "sub_old")


@pytest.mark.parametrize("tool", ALL)
def test_a_folder_swapped_for_a_link_after_the_check_is_refused(
    project: Path, outside: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    """The swap lands between the by-name check and the descriptor walk: the walk meets the
    link with O_NOFOLLOW and refuses."""
    real = _confined_write._resolve_inside

    def resolve_then_swap(root: Path, path: str) -> Path:
        resolved = real(root, path)
        if not (project / "sub_old").exists():
            _swap_for_link(project, outside)
        return resolved

    monkeypatch.setattr(_confined_write, "_resolve_inside", resolve_then_swap)
    failure = refused(tool, RACED[tool], project)
    assert failure.kind == "not_permitted"
    assert "outside the project" in failure.message
    assert (project / "sub_old" / "data.txt").read_text() == INSIDE


@pytest.mark.parametrize("tool", ALL)
def test_a_folder_moved_out_while_the_tool_runs_is_not_changed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    """The folder leaves the project after its descriptor was opened and checked: it is
    verified again right before the change, which is refused."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    before = snapshot(project / "sub")
    real = _confined_write.Slot.refresh

    def refresh_then_move_out(place: _confined_write.Slot) -> None:
        real(place)
        if place.rel.startswith("sub/") and (project / "sub").exists():
            (project / "sub").rename(elsewhere / "sub")

    monkeypatch.setattr(_confined_write.Slot, "refresh", refresh_then_move_out)
    failure = refused(tool, RACED[tool], project)
    assert failure.kind == "not_permitted"
    assert "moved out of the project directory" in failure.message
    assert snapshot(elsewhere / "sub") == before


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["write_file", "append_file", "make_dir", "delete_path"])
def test_racing_symlink_flips_never_write_outside(project: Path, outside: Path, tool: str) -> None:
    kinds: list[str] = []
    with Flipper(project, outside) as flipper:
        deadline = time.monotonic() + 0.3
        while time.monotonic() < deadline:
            try:
                run(tool, RACED[tool], project)
                kinds.append("ok")
            except ToolFailed as exc:
                kinds.append(exc.kind)
    assert set(kinds) <= {"ok", "not_permitted", "not_found", "invalid_arguments"}
    assert flipper.flips > 5
    assert len(kinds) > 5  # the outside fixture checks that nothing there changed


# --- FIFOs and devices ----------------------------------------------------------------------


def promptly(fn: Callable[[], Any], fifo: Path) -> Any:
    """Run ``fn`` in a thread; fail (after unblocking the FIFO) unless it returns in PROMPT s."""
    outcome: dict[str, Any] = {}

    def call() -> None:
        try:
            outcome["value"] = fn()
        except Exception as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(PROMPT)
    if worker.is_alive():
        with open(fifo, "rb+"):  # a reader and writer at once releases whoever waits on it
            worker.join(PROMPT)
        pytest.fail(f"the call blocked on the FIFO for more than {PROMPT} s")
    return outcome


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
@pytest.mark.parametrize("tool", ALL)
def test_a_fifo_is_refused_without_being_opened(project: Path, tool: str) -> None:
    fifo = project / "pipe"
    os.mkfifo(fifo)
    outcome = promptly(lambda: run(tool, "pipe", project), fifo)
    failure = outcome.get("error")
    assert isinstance(failure, ToolFailed), outcome
    assert failure.kind == "invalid_arguments"
    assert "FIFO" in failure.message
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("tool", ["write_file", "append_file", "edit_file"])
def test_dev_null_through_a_link_inside_is_refused_as_outside(project: Path, tool: str) -> None:
    (project / "null").symlink_to("/dev/null")
    failure = refused(tool, "null", project)
    assert failure.kind == "not_permitted"
    assert "outside the project" in failure.message


@pytest.mark.parametrize("tool", ALL)
def test_a_folder_linking_to_dev_is_refused(project: Path, tool: str) -> None:
    (project / "devices").symlink_to("/dev", target_is_directory=True)
    assert refused(tool, "devices/null", project).kind == "not_permitted"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_deleting_a_link_to_dev_null_removes_only_the_link(project: Path) -> None:
    (project / "null").symlink_to("/dev/null")
    assert run("delete_path", "null", project)["type"] == "symbolic link"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


# --- .git and protected paths ---------------------------------------------------------------

GIT_PATHS = [".git/hooks/pre-commit", ".git/config", ".GIT/config", "sub/.Git/x", ".git"]


@pytest.fixture
def repository(project: Path) -> Path:
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    (project / "git_alias").symlink_to(".git", target_is_directory=True)
    (project / "vendored" / ".git").mkdir(parents=True)
    return project


@pytest.mark.parametrize("path", [*GIT_PATHS, "git_alias/config", "git_alias/hooks/post-merge"])
@pytest.mark.parametrize("tool", ALL)
def test_git_folders_are_never_changed(repository: Path, tool: str, path: str) -> None:
    before = snapshot(repository / ".git")
    failure = refused(tool, path, repository)
    assert failure.kind == "not_permitted"
    assert "inside a .git folder" in failure.message
    assert snapshot(repository / ".git") == before


@pytest.mark.parametrize("tool", ["delete_path", "move_path(source)"])
def test_a_folder_holding_git_is_not_deleted_or_moved(repository: Path, tool: str) -> None:
    assert "inside a .git folder" in refused(tool, "vendored", repository).message
    assert (repository / "vendored" / ".git").is_dir()


PROTECT = ["secrets", "*.pem", ".env"]
PROTECTED = ["secrets/key.txt", "secrets", "deep/cert.pem", ".env", "secret_alias/key.txt"]


@pytest.fixture
def guarded(project: Path) -> Path:
    (project / "secrets").mkdir()
    (project / "secrets" / "key.txt").write_text("TOP key\n")
    (project / "secret_alias").symlink_to("secrets", target_is_directory=True)
    (project / "deep").mkdir()
    (project / "deep" / "cert.pem").write_text("TOP cert\n")
    (project / ".env").write_text("TOP=1\n")
    return project


@pytest.mark.parametrize("path", PROTECTED)
@pytest.mark.parametrize("tool", ALL)
def test_protected_paths_are_refused(guarded: Path, tool: str, path: str) -> None:
    before = snapshot(guarded)
    failure = refused(tool, path, guarded, enabled(protect=PROTECT))
    assert failure.kind == "not_permitted"
    assert "tooldeck.files.protect" in failure.message
    assert snapshot(guarded) == before


@pytest.mark.parametrize("tool", ["delete_path", "move_path(source)"])
def test_a_folder_holding_a_protected_path_is_kept(guarded: Path, tool: str) -> None:
    failure = refused(tool, "deep", guarded, enabled(protect=PROTECT))
    assert "'deep/cert.pem' is protected" in failure.message
    assert (guarded / "deep" / "cert.pem").is_file()


def test_unprotected_paths_stay_writable(guarded: Path) -> None:
    run("write_file", "deep/notes.txt", guarded, enabled(protect=PROTECT))
    assert (guarded / "deep" / "notes.txt").read_text() == "new\n"


def test_root_is_never_deleted_or_moved(project: Path) -> None:
    for path in [".", "", str(project), "sub/..", "./"]:
        for tool in ("delete_path", "move_path(source)"):
            failure = refused(tool, path, project)
            assert "is the project directory itself" in failure.message, (tool, path)
    assert (project / "notes.txt").is_file()
