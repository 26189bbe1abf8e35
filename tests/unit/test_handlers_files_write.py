"""The file-changing tools in ``tooldeck.handlers.files_write``: what each does, the gate, the size
cap, dry runs and diffs. (Confinement: tests/security/test_files_write_confinement.py.)"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.write_tools import (
    ENABLED,
    INSIDE,
    TOOLS,
    Forged,
    as_context,
    enabled,
    outside,
    project,
    refused,
    run,
    snapshot,
)
from tooldeck import ToolFailed
from tooldeck.handlers import _confined, _confined_write
from tooldeck.handlers._diff import MAX_DIFF_CHARS
from tooldeck.handlers.files_write import (
    append_file,
    delete_path,
    edit_file,
    make_dir,
    move_path,
    write_file,
)

__all__ = ["outside", "project"]  # fixtures, used by name

ALL = sorted(TOOLS)
TARGETS = {
    "write_file": "sub/new.txt",
    "append_file": "sub/data.txt",
    "edit_file": "sub/data.txt",
    "move_path(source)": "sub/data.txt",
    "move_path(destination)": "sub/new.txt",
    "make_dir": "a/b/c",
    "delete_path": "sub",
}
"""A path on which each tool would succeed."""


def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def tool_args(project: Path, **config: Any) -> dict[str, Any]:
    return {
        "project_dir": project,
        "context": as_context(project, enabled(**config) if config else ENABLED),
    }


# --- the gate --------------------------------------------------------------------------------

OFF: list[Any] = [
    {},
    {"tooldeck": None},
    {"tooldeck": "files"},
    {"tooldeck": {"files": ["write"]}},
    {"tooldeck": {"files": {}}},
    {"tooldeck": {"files": {"write": False}}},
    {"tooldeck": {"http": {"allow_hosts": ["x"]}}},
]


@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("config", OFF, ids=range(len(OFF)))
@pytest.mark.parametrize("tool", ALL)
def test_every_tool_is_off_unless_enabled(
    project: Path, tool: str, config: Any, dry_run: bool
) -> None:
    before = snapshot(project)
    failure = refused(tool, TARGETS[tool], project, config, dry_run)
    assert failure.kind == "not_enabled"
    assert "`tooldeck: {files: {write: true}}`" in failure.message
    assert "you cannot change that setting" in failure.message
    assert snapshot(project) == before


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_a_wrong_type_of_write_names_the_key(project: Path, value: object) -> None:
    failure = refused("write_file", "x.txt", project, {"tooldeck": {"files": {"write": value}}})
    assert failure.kind == "not_enabled"
    assert f"tooldeck.files.write must be true or false, got {value!r}" in failure.message
    assert not (project / "x.txt").exists()


@pytest.mark.parametrize("tool", ALL)
def test_a_config_the_model_could_have_sent_is_refused(project: Path, tool: str) -> None:
    """Only the engine makes a ToolContext; JSON data in its place may be a model's argument."""
    before = snapshot(project)
    failure = refused(
        tool, TARGETS[tool], project, Forged({"tooldeck": {"files": {"write": True}}})
    )
    assert failure.kind == "not_enabled"
    assert "a parameter named 'context' that a model could fill" in failure.message
    assert snapshot(project) == before


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("max_write_bytes", "5MB"),
        ("max_write_bytes", -1),
        ("max_write_bytes", True),
        ("protect", "*.pem"),
        ("protect", [1]),
    ],
)
def test_a_wrong_setting_names_the_key(project: Path, key: str, value: object) -> None:
    failure = refused("make_dir", "x", project, enabled(**{key: value}))
    assert failure.kind == "invalid_config"
    assert f"tooldeck.files.{key} must be" in failure.message


@pytest.mark.parametrize("tool", ALL)
def test_without_posix_every_tool_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    monkeypatch.setattr(_confined, "UNSUPPORTED", "the file tools need a POSIX system")
    failure = refused(tool, TARGETS[tool], project)
    assert (failure.kind, failure.message) == (
        "unsupported_platform",
        "the file tools need a POSIX system",
    )


# --- size cap and dry runs -------------------------------------------------------------------


def test_size_cap(project: Path) -> None:
    args = tool_args(project, max_write_bytes=10)
    assert write_file("ten.txt", "0123456789", **args)["bytes"] == 10
    for call in (
        lambda: write_file("eleven.txt", "0123456789A", **args),
        lambda: append_file("ten.txt", "A", **args),
        lambda: edit_file("ten.txt", "9", "9A", **args),
    ):
        with pytest.raises(ToolFailed) as info:
            call()
        assert info.value.kind == "too_large"
        assert "over the 10-byte limit" in info.value.message
        assert "tooldeck.files.max_write_bytes" in info.value.message
    assert not (project / "eleven.txt").exists()
    assert (project / "ten.txt").read_text() == "0123456789"


def test_an_existing_file_over_the_cap_is_not_edited(project: Path) -> None:
    (project / "big.txt").write_text("x" * 11)
    with pytest.raises(ToolFailed, match="over the 10-byte limit") as info:
        edit_file("big.txt", "x" * 11, "y", **tool_args(project, max_write_bytes=10))
    assert info.value.kind == "too_large"


def test_the_default_cap_is_5_mib(project: Path) -> None:
    with pytest.raises(ToolFailed, match="5,242,880-byte limit"):
        write_file("huge.txt", "x" * (5 * 1024 * 1024 + 1), **tool_args(project))
    assert not (project / "huge.txt").exists()


@pytest.mark.parametrize("tool", ALL)
def test_a_dry_run_changes_nothing(project: Path, tool: str) -> None:
    before = snapshot(project)
    answer = run(tool, TARGETS[tool], project, dry_run=True)
    assert snapshot(project) == before
    assert answer["dry_run"] == "nothing was changed"
    assert str(answer["action"]).startswith("would ")


def test_a_dry_run_shows_the_diff_and_the_folders_it_would_create(project: Path) -> None:
    answer = write_file("x/y/z.txt", "one\n", True, **tool_args(project))
    assert answer["would_create_folders"] == ["x", "x/y"]
    assert answer["diff"] == "--- a/x/y/z.txt\n+++ b/x/y/z.txt\n@@ -0,0 +1 @@\n+one\n"
    assert not (project / "x").exists()


# --- write_file ------------------------------------------------------------------------------


def test_write_file_creates_then_replaces(project: Path) -> None:
    created = write_file("src/app.py", "a\nb\n", **tool_args(project))
    assert created == {
        "path": "src/app.py",
        "action": "created",
        "bytes": 4,
        "diff": "--- a/src/app.py\n+++ b/src/app.py\n@@ -0,0 +1,2 @@\n+a\n+b\n",
        "created_folders": ["src"],
    }
    assert stat.S_IMODE((project / "src/app.py").stat().st_mode) == 0o644 & ~umask()
    (project / "src/app.py").chmod(0o750)
    replaced = write_file("src/app.py", "a\nc", **tool_args(project))
    assert replaced["action"] == "replaced"
    assert replaced["diff"].endswith("-b\n+c\n\\ No newline at end of file\n")
    assert (project / "src/app.py").read_text() == "a\nc"
    assert stat.S_IMODE((project / "src/app.py").stat().st_mode) == 0o750


def test_binary_content_has_no_diff(project: Path) -> None:
    (project / "blob").write_bytes(b"\xff\xfe\x00")
    assert write_file("blob", "text\n", **tool_args(project))["diff"] == "binary file, no diff"


def test_a_long_diff_is_cut_with_a_marker(project: Path) -> None:
    content = "".join(f"line {i}\n" for i in range(20_000))
    diff = str(write_file("long.txt", content, **tool_args(project))["diff"])
    assert diff.endswith(f"[... diff cut at {MAX_DIFF_CHARS:,} characters]\n")
    assert len(diff) < MAX_DIFF_CHARS + 100


def test_a_failed_write_leaves_no_temporary_and_the_old_file(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(ToolFailed, match="No space left on device") as info:
        write_file("notes.txt", "new\n", **tool_args(project))
    assert info.value.kind == "execution_error"
    assert sorted(p.name for p in project.iterdir()) == ["notes.txt", "sub"]
    assert (project / "notes.txt").read_text() == "hello\nworld\n"


def test_a_hard_link_to_a_file_outside_is_not_written_through(project: Path, outside: Path) -> None:
    os.link(outside / "secret.txt", project / "linked.txt")
    assert write_file("linked.txt", "new\n", **tool_args(project))["action"] == "replaced"
    assert (project / "linked.txt").read_text() == "new\n"  # the outside fixture checks the rest


@pytest.mark.parametrize(
    ("path", "says"),
    [("sub", "'sub' is a folder; name a file inside it"), ("notes.txt/x", "is not a folder")],
)
def test_write_file_needs_a_file_name(project: Path, path: str, says: str) -> None:
    failure = refused("write_file", path, project)
    assert failure.kind == "invalid_arguments"
    assert says in failure.message


# --- append_file and edit_file ---------------------------------------------------------------


def test_append_file_appends_or_creates(project: Path) -> None:
    appended = append_file("notes.txt", "again\n", **tool_args(project))
    assert (appended["action"], appended["bytes"]) == ("appended", 6)
    assert appended["diff"].endswith(" world\n+again\n")
    assert (project / "notes.txt").read_text() == "hello\nworld\nagain\n"
    assert append_file("log/new.txt", "first\n", **tool_args(project))["action"] == "created"
    assert (project / "log" / "new.txt").read_text() == "first\n"


@pytest.mark.parametrize("tool", ["append_file", "edit_file"])
def test_non_utf8_files_are_refused(project: Path, tool: str) -> None:
    (project / "sub" / "data.txt").write_bytes(b"TOP \xff\n")
    failure = refused(tool, "sub/data.txt", project)
    assert failure.kind == "invalid_arguments"
    assert "is not UTF-8 text" in failure.message


def test_edit_file_replaces_the_one_occurrence(project: Path) -> None:
    edited = edit_file("notes.txt", "world", "there", **tool_args(project))
    assert edited["action"] == "edited"
    assert edited["diff"] == (
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n"
    )
    assert (project / "notes.txt").read_text() == "hello\nthere\n"


@pytest.mark.parametrize(
    ("content", "old", "kind", "says"),
    [
        ("a\n", "b", "not_found", "old_text was not found in 'f.txt'; read the file again"),
        ("x\r\ny\r\n", "x\ny", "not_found", "the file has CRLF line endings"),
        ("ab ab ab", "ab", "invalid_arguments", "old_text occurs 3 times in 'f.txt'; include"),
        ("aaa", "aa", "invalid_arguments", "occurs more than once (overlapping)"),
        ("a", "", "invalid_arguments", "old_text is empty"),
    ],
)
def test_edit_file_refusals(project: Path, content: str, old: str, kind: str, says: str) -> None:
    (project / "f.txt").write_bytes(content.encode())
    with pytest.raises(ToolFailed) as info:
        edit_file("f.txt", old, "z", **tool_args(project))
    assert info.value.kind == kind
    assert says in info.value.message
    assert (project / "f.txt").read_bytes() == content.encode()


def test_edit_file_of_a_missing_file(project: Path) -> None:
    failure = refused("edit_file", "nope.txt", project)
    assert (failure.kind, failure.message) == (
        "not_found",
        "'nope.txt' does not exist; use write_file to create it",
    )


# --- make_dir, delete_path, move_path --------------------------------------------------------


def test_make_dir(project: Path) -> None:
    made = make_dir("a/b", **tool_args(project))
    assert made == {"path": "a/b", "action": "created", "created_folders": ["a", "a/b"]}
    assert make_dir("a/b", **tool_args(project)) == {"path": "a/b", "action": "exists"}
    assert "exists and is a file" in refused("make_dir", "notes.txt", project).message


def test_delete_path(project: Path, outside: Path) -> None:
    (project / "empty").mkdir()
    (project / "sub" / "deep").mkdir()
    (project / "sub" / "deep" / "out").symlink_to(outside, target_is_directory=True)
    assert delete_path("notes.txt", **tool_args(project))["type"] == "file"
    assert delete_path("empty", **tool_args(project))["type"] == "folder"
    with pytest.raises(ToolFailed, match="holding 2 files and 1 folders; send recursive=true"):
        delete_path("sub", **tool_args(project))
    gone = delete_path("sub", recursive=True, **tool_args(project))
    assert (gone["files"], gone["folders"]) == (2, 1)  # the link counts as a file, not entered
    assert sorted(os.listdir(project)) == []
    assert refused("delete_path", "sub", project).kind == "not_found"


def test_move_path(project: Path) -> None:
    args = tool_args(project)
    moved = move_path("notes.txt", "docs/notes.md", **args)
    assert moved == {
        "action": "moved",
        "source": "notes.txt",
        "destination": "docs/notes.md",
        "type": "file",
        "created_folders": ["docs"],
    }
    (project / "other.txt").write_text("other\n")
    with pytest.raises(ToolFailed, match="already exists; send overwrite=true"):
        move_path("other.txt", "docs/notes.md", **args)
    assert move_path("other.txt", "docs/notes.md", True, **args)["action"] == "replaced"
    assert (project / "docs" / "notes.md").read_text() == "other\n"
    assert move_path("sub", "sub2", **args)["type"] == "folder"
    assert (project / "sub2" / "data.txt").read_text() == INSIDE


@pytest.mark.parametrize(
    ("source", "destination", "says"),
    [
        ("notes.txt", "sub", "a folder is never replaced by a file"),
        ("sub", "notes.txt", "a folder is never replaced by a file"),
        ("sub", "full", "is a folder that is not empty"),
        ("sub", "sub/inner", "cannot be moved into itself"),
        ("notes.txt", "./notes.txt", "source and destination are both 'notes.txt'"),
        ("missing.txt", "x.txt", "'missing.txt' does not exist"),
    ],
)
def test_move_path_refusals(project: Path, source: str, destination: str, says: str) -> None:
    (project / "full").mkdir()
    (project / "full" / "keep.txt").write_text("keep\n")
    before = snapshot(project)
    with pytest.raises(ToolFailed, match=says.replace("(", r"\(")):
        move_path(source, destination, True, **tool_args(project))
    assert snapshot(project) == before


def test_move_path_replaces_an_empty_folder(project: Path) -> None:
    (project / "empty").mkdir()
    assert move_path("sub", "empty", True, **tool_args(project))["action"] == "replaced"
    assert (project / "empty" / "data.txt").read_text() == INSIDE


@pytest.mark.parametrize("tool", ["delete_path", "move_path(source)"])
def test_a_tree_too_big_or_too_deep_is_refused_before_anything_changes(
    project: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    (project / "sub" / "a" / "b" / "c").mkdir(parents=True)
    before = snapshot(project)
    monkeypatch.setattr(_confined_write, "MAX_TREE_ENTRIES", 2)
    assert "more than 2 entries" in refused(tool, "sub", project).message
    monkeypatch.setattr(_confined_write, "MAX_TREE_ENTRIES", 100)
    monkeypatch.setattr(_confined_write, "MAX_DEPTH", 2)
    assert "nested more than 2 deep" in refused(tool, "sub", project).message
    assert snapshot(project) == before
