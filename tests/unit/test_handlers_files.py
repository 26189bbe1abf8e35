"""Tests for the read-only, project-confined file handlers in ``tooldeck.handlers.files``."""

import os
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from tooldeck.handlers import files
from tooldeck.handlers.files import file_info, list_dir, read_file, search_text


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "README.md").write_text("# Demo\nhello world\n")
    (root / "src" / "app.py").write_text("import os\n\ndef main():\n    return 'hello'\n")
    (root / "src" / "pkg" / "util.py").write_text("def helper():\n    return 42  # hello\n")
    (root / "docs" / "guide.txt").write_text("Hello there\nsay hello\n")
    (root / "data.bin").write_bytes(b"hello\x00\x01\x02binary")
    for skipped in (".git", ".venv", "node_modules", "__pycache__", ".hidden"):
        (root / skipped).mkdir()
        (root / skipped / "inner.py").write_text("hello from a skipped dir\n")
    (root / ".env").write_text("hello=secret\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    other = tmp_path / "outside"
    other.mkdir()
    (other / "secret.txt").write_text("top secret hello\n")
    return other


def numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


# --- read_file -------------------------------------------------------------------------------


def test_read_file_returns_plain_text(project: Path) -> None:
    assert read_file("README.md", project) == "# Demo\nhello world"


def test_read_file_accepts_absolute_path_inside_project(project: Path) -> None:
    assert read_file(str(project / "src" / "app.py"), project).startswith("import os\n")


def test_read_file_pages_with_continuation_marker(project: Path) -> None:
    (project / "long.txt").write_text(numbered(10))
    first = read_file("long.txt", project, max_lines=4)
    assert first.splitlines() == [
        "line 1",
        "line 2",
        "line 3",
        "line 4",
        "[... 6 more lines; call again with start_line=5]",
    ]
    second = read_file("long.txt", project, start_line=5, max_lines=4)
    assert second.splitlines()[0] == "line 5"
    assert second.splitlines()[-1] == "[... 2 more lines; call again with start_line=9]"
    last = read_file("long.txt", project, start_line=9, max_lines=4)
    assert last == "line 9\nline 10"


def test_read_file_exact_window_has_no_marker(project: Path) -> None:
    (project / "five.txt").write_text(numbered(5))
    assert read_file("five.txt", project, max_lines=5).splitlines()[-1] == "line 5"


def test_read_file_counts_unterminated_last_line(project: Path) -> None:
    (project / "tail.txt").write_text("a\nb\nc")
    assert read_file("tail.txt", project, max_lines=1).endswith(
        "[... 2 more lines; call again with start_line=2]"
    )


def test_read_file_handles_crlf_and_invalid_utf8(project: Path) -> None:
    (project / "mixed.txt").write_bytes(b"one\r\ntwo \xff\r\n")
    assert read_file("mixed.txt", project) == "one\ntwo \ufffd"


def test_read_file_empty_file(project: Path) -> None:
    (project / "empty.txt").write_text("")
    assert read_file("empty.txt", project) == ""


def test_read_file_start_line_past_end(project: Path) -> None:
    with pytest.raises(ValueError, match=r"start_line=9 is past the end of 'README.md'.*2 lines"):
        read_file("README.md", project, start_line=9)


def test_read_file_cuts_very_long_lines(project: Path) -> None:
    (project / "wide.txt").write_text("x" * (files.MAX_LINE_BYTES * 3) + "\nnext\n")
    lines = read_file("wide.txt", project).splitlines()
    assert lines[0] == "x" * files.MAX_LINE_BYTES + " [... line truncated]"
    assert lines[1:] == ["next"]


def test_read_file_caps_window_size(project: Path) -> None:
    width = files.MAX_LINE_BYTES - 1000
    (project / "big.txt").write_text(f"{'z' * width}\n" * 50)
    *window, marker = read_file("big.txt", project).splitlines()
    assert 1 < len(window) < 50
    assert sum(len(line) + 1 for line in window) <= files.MAX_WINDOW_CHARS
    rest, next_line = 50 - len(window), len(window) + 1
    assert marker == f"[... {rest} more lines; call again with start_line={next_line}]"


def test_read_file_refuses_binary(project: Path) -> None:
    with pytest.raises(ValueError, match=r"'data.bin' is a binary file"):
        read_file("data.bin", project)


def test_read_file_refuses_directory(project: Path) -> None:
    with pytest.raises(IsADirectoryError, match="use list_dir"):
        read_file("src", project)


def test_read_file_missing_names_relative_path(project: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"'src/nope.py' does not exist") as info:
        read_file("src/nope.py", project)
    assert str(project) not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "name"), [({"start_line": 0}, "start_line"), ({"max_lines": 0}, "max_lines")]
)
def test_read_file_validates_numbers(project: Path, kwargs: dict[str, int], name: str) -> None:
    with pytest.raises(ValueError, match=f"{name} must be at least 1"):
        read_file("README.md", project, **kwargs)


# --- confinement -----------------------------------------------------------------------------


ESCAPE_ROUTES = [
    "..",
    "../outside/secret.txt",
    "src/../../outside/secret.txt",
    "{outside}/secret.txt",
    "{outside}",
    "/etc/passwd",
    "~",
    "~/secret.txt",
    "link_out.txt",
    "dir_out",
    "dir_out/secret.txt",
    "src/link_up",
]

HANDLERS: dict[str, Callable[[str, Path], object]] = {
    "read_file": read_file,
    "file_info": file_info,
    "list_dir": lambda path, root: list_dir(root, path=path),
    "search_text": lambda path, root: search_text("secret", root, path=path),
}


@pytest.fixture
def linked(project: Path, outside: Path) -> Path:
    """The project with symlinks that point outside it (a file, a dir and a parent)."""
    (project / "link_out.txt").symlink_to(outside / "secret.txt")
    (project / "dir_out").symlink_to(outside, target_is_directory=True)
    (project / "src" / "link_up").symlink_to("../..", target_is_directory=True)
    return project


@pytest.mark.parametrize("route", ESCAPE_ROUTES)
@pytest.mark.parametrize("handler", sorted(HANDLERS))
def test_escape_route_is_refused(linked: Path, outside: Path, handler: str, route: str) -> None:
    path = route.format(outside=outside)
    with pytest.raises(PermissionError, match=re.escape(f"path {path!r} is outside")):
        HANDLERS[handler](path, linked)


def test_refusal_message_is_actionable(project: Path) -> None:
    with pytest.raises(PermissionError) as info:
        read_file("../x", project)
    assert str(info.value) == (
        "path '../x' is outside the project directory; use a path relative to it"
    )


def test_missing_path_outside_is_refused_not_reported_missing(project: Path) -> None:
    with pytest.raises(PermissionError):
        file_info("../does-not-exist", project)


def test_symlink_inside_project_is_allowed(project: Path) -> None:
    (project / "alias.md").symlink_to(project / "README.md")
    assert read_file("alias.md", project) == "# Demo\nhello world"


def test_project_dir_given_through_a_symlink(project: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(project, target_is_directory=True)
    assert read_file("README.md", alias).startswith("# Demo")
    assert read_file(str(alias / "README.md"), alias).startswith("# Demo")


def test_nul_in_path_is_rejected(project: Path) -> None:
    with pytest.raises(ValueError, match="NUL character"):
        read_file("README.md\0", project)


def test_listing_and_search_never_follow_links_out(linked: Path) -> None:
    listed = {str(e["path"]) for e in list_dir(linked, recursive=True)}
    assert "src/app.py" in listed
    assert not listed & {"link_out.txt", "dir_out", "src/link_up"}
    assert not any(p.startswith("dir_out/") for p in listed)
    assert search_text("top secret", linked) == []


# --- list_dir --------------------------------------------------------------------------------


def test_list_dir_top_level(project: Path) -> None:
    assert list_dir(project) == [
        {"path": "README.md", "type": "file", "size": len("# Demo\nhello world\n")},
        {"path": "data.bin", "type": "file", "size": 14},
        {"path": "docs", "type": "dir"},
        {"path": "src", "type": "dir"},
    ]


def test_list_dir_subdir_paths_are_relative_to_project(project: Path) -> None:
    assert [e["path"] for e in list_dir(project, path="src")] == ["src/app.py", "src/pkg"]


def test_list_dir_recursive_with_pattern_skips_hidden_and_junk(project: Path) -> None:
    entries = list_dir(project, pattern="*.py", recursive=True)
    assert [e["path"] for e in entries] == ["src/app.py", "src/pkg/util.py"]


def test_list_dir_recursive_includes_dirs(project: Path) -> None:
    paths = [str(e["path"]) for e in list_dir(project, recursive=True)]
    assert paths == sorted(paths)
    assert "src/pkg" in paths
    assert not any(
        part.startswith(".") or part in {"node_modules", "__pycache__"}
        for p in paths
        for part in p.split("/")
    )


def test_list_dir_truncation_marker(project: Path) -> None:
    for i in range(5):
        (project / "docs" / f"f{i}.txt").write_text("x")
    entries = list_dir(project, path="docs", max_entries=2)
    assert entries == [
        {"path": "docs/f0.txt", "type": "file", "size": 1},
        {"path": "docs/f1.txt", "type": "file", "size": 1},
        {"truncated": True, "omitted": 4},
    ]


def test_list_dir_on_file_is_refused(project: Path) -> None:
    with pytest.raises(NotADirectoryError, match=r"'README\.md' is a file"):
        list_dir(project, path="README.md")


def test_list_dir_missing(project: Path) -> None:
    with pytest.raises(FileNotFoundError, match="'nope' does not exist"):
        list_dir(project, path="nope")


def test_list_dir_validates_max_entries(project: Path) -> None:
    with pytest.raises(ValueError, match="max_entries must be at least 1"):
        list_dir(project, max_entries=0)


def test_list_dir_skips_special_files(project: Path) -> None:
    os.mkfifo(project / "docs" / "pipe")
    assert [e["path"] for e in list_dir(project, path="docs")] == ["docs/guide.txt"]


# --- search_text -----------------------------------------------------------------------------


def test_search_text_substring_in_path_then_line_order(project: Path) -> None:
    assert search_text("hello", project) == [
        {"path": "README.md", "line": 2, "text": "hello world"},
        {"path": "docs/guide.txt", "line": 2, "text": "say hello"},
        {"path": "src/app.py", "line": 4, "text": "return 'hello'"},
        {"path": "src/pkg/util.py", "line": 2, "text": "return 42  # hello"},
    ]


def test_search_text_is_case_sensitive(project: Path) -> None:
    assert [r["path"] for r in search_text("Hello", project)] == ["docs/guide.txt"]


def test_search_text_literal_by_default(project: Path) -> None:
    assert search_text("main()", project) == [
        {"path": "src/app.py", "line": 3, "text": "def main():"}
    ]


def test_search_text_regex(project: Path) -> None:
    results = search_text(r"^def \w+\(", project, regex=True)
    assert [(r["path"], r["line"]) for r in results] == [("src/app.py", 3), ("src/pkg/util.py", 1)]


def test_search_text_glob_and_path(project: Path) -> None:
    assert [r["path"] for r in search_text("hello", project, glob="*.py")] == [
        "src/app.py",
        "src/pkg/util.py",
    ]
    assert [r["path"] for r in search_text("hello", project, path="src/pkg")] == ["src/pkg/util.py"]
    assert [r["line"] for r in search_text("hello", project, path="docs/guide.txt")] == [2]


def test_search_text_max_results(project: Path) -> None:
    assert len(search_text("hello", project, max_results=2)) == 2


def test_search_text_cuts_long_lines(project: Path) -> None:
    (project / "docs" / "wide.txt").write_text("  needle " + "y" * 500 + "\n")
    [result] = search_text("needle", project, path="docs/wide.txt")
    assert result["text"] == ("needle " + "y" * 500)[:200]


def test_search_text_invalid_regex(project: Path) -> None:
    with pytest.raises(ValueError, match=r"invalid regular expression '\(unclosed'.*regex=false"):
        search_text("(unclosed", project, regex=True)


def test_search_text_empty_pattern(project: Path) -> None:
    with pytest.raises(ValueError, match="pattern is empty"):
        search_text("", project)


def test_search_text_validates_max_results(project: Path) -> None:
    with pytest.raises(ValueError, match="max_results must be at least 1"):
        search_text("hello", project, max_results=0)


# --- file_info -------------------------------------------------------------------------------


def test_file_info_text_file(project: Path) -> None:
    target = project / "src" / "app.py"
    os.utime(target, (0, 1_700_000_000))
    assert file_info("src/app.py", project) == {
        "path": "src/app.py",
        "type": "file",
        "size": target.stat().st_size,
        "modified": "2023-11-14T22:13:20+00:00",
        "lines": 4,
    }


def test_file_info_binary_file_has_no_lines(project: Path) -> None:
    info = file_info("data.bin", project)
    assert info["type"] == "file"
    assert info["size"] == 14
    assert "lines" not in info


def test_file_info_directory(project: Path) -> None:
    info = file_info("src", project)
    assert info["path"] == "src"
    assert info["type"] == "dir"
    assert isinstance(info["size"], int)
    assert "lines" not in info
    modified = datetime.fromisoformat(str(info["modified"]))
    assert modified.utcoffset() is not None
    assert modified.utcoffset().total_seconds() == 0  # type: ignore[union-attr]


def test_file_info_project_root(project: Path) -> None:
    assert file_info(".", project)["path"] == "."
    assert file_info("", project)["type"] == "dir"


def test_file_info_missing(project: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"'missing\.txt' does not exist"):
        file_info("missing.txt", project)


# --- read-only -------------------------------------------------------------------------------


def test_handlers_never_modify_the_project(project: Path) -> None:
    def snapshot() -> dict[str, tuple[int, int]]:
        return {
            str(p): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in project.rglob("*")
            if not p.is_symlink()
        }

    before = snapshot()
    read_file("README.md", project)
    list_dir(project, recursive=True)
    search_text("hello", project)
    file_info("src/app.py", project)
    assert snapshot() == before


def test_symlinked_dir_inside_is_listed_not_entered(project: Path) -> None:
    (project / "alias").symlink_to(project / "src", target_is_directory=True)
    paths = [e["path"] for e in list_dir(project, recursive=True)]
    assert "alias" in paths
    assert "alias/app.py" not in paths
    assert read_file("alias/app.py", project).startswith("import os")


def test_symlink_loop_is_reported_not_hung(project: Path) -> None:
    (project / "loop").symlink_to(project / "loop")
    with pytest.raises(ValueError, match="cannot be resolved"):
        read_file("loop", project)
    assert "loop" not in [e["path"] for e in list_dir(project)]


def test_special_files_are_not_opened(project: Path) -> None:
    os.mkfifo(project / "pipe")
    with pytest.raises(ValueError, match="'pipe' is not a regular file"):
        read_file("pipe", project)
    assert file_info("pipe", project)["type"] == "other"
    assert search_text("hello", project, path="pipe") == []


def test_build_output_folders_are_skipped(tmp_path: Path) -> None:
    for folder in ("build/lib", "dist", "pkg.egg-info", "src"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "mod.py").write_text("needle\n", encoding="utf-8")
    found = files.search_text("needle", tmp_path)
    assert [hit["path"] for hit in found] == ["src/mod.py"]
    listed = [entry["path"] for entry in files.list_dir(tmp_path, recursive=True)]
    assert listed == ["src", "src/mod.py"]
