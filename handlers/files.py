"""Read-only file tools confined to the project directory.

Each function receives ``project_dir`` from the engine (the model never sees it) and refuses any
path that resolves outside it: ``..`` traversal, absolute paths elsewhere, ``~`` and symlinks that
point out. Files are streamed line by line with bounded memory. Nothing in this module writes.
"""

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import BinaryIO

MAX_WINDOW_CHARS = 2 * 1024 * 1024  # at most this much text is returned by one read_file call
MAX_LINE_BYTES = 64 * 1024  # longer lines are cut, so a huge one-line file never sits in memory
SNIFF_BYTES = 8 * 1024  # a NUL byte in this prefix marks a file as binary
MAX_TEXT_CHARS = 200  # search_text result lines are cut to this length
SKIP_NAMES = frozenset({"__pycache__", ".git", ".venv", "node_modules", "build", "dist"})
"""Folders of generated or vendored files: listing and searching them only adds noise."""
_CUT_MARKER = " [... line truncated]"


def _resolve_inside(project_dir: Path, path: str) -> Path:
    """Resolve ``path`` against ``project_dir`` (following symlinks) and refuse escapes."""
    if "\0" in path:
        raise ValueError(f"path {path!r} contains a NUL character; send a plain relative path")
    outside = f"path {path!r} is outside the project directory; use a path relative to it"
    if path.startswith("~"):
        raise PermissionError(outside)
    root = project_dir.resolve()
    try:
        resolved = (root / (path or ".")).resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # RuntimeError: symlink loop
        raise ValueError(f"path {path!r} cannot be resolved ({exc}); send another path") from exc
    if not resolved.is_relative_to(root):
        raise PermissionError(outside)
    return resolved


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _existing(project_dir: Path, path: str) -> tuple[Path, Path, str]:
    """Return (resolved root, resolved target, target relative to root); target must exist."""
    root, target = project_dir.resolve(), _resolve_inside(project_dir, path)
    rel = _rel(root, target)
    if not target.exists():
        raise FileNotFoundError(
            f"{rel!r} does not exist in the project directory; use list_dir to see what is there"
        )
    return root, target, rel


def _check_positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}; send a positive integer")


def _is_binary(path: Path) -> bool:
    with path.open("rb") as f:
        return b"\0" in f.read(SNIFF_BYTES)


def _iter_lines(f: BinaryIO, cut_marker: str = "") -> Iterator[str]:
    """Yield decoded lines without terminators; lines over MAX_LINE_BYTES are cut."""
    while raw := f.readline(MAX_LINE_BYTES):
        if len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while (rest := f.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                pass  # skip the remainder of the long line
            yield raw.decode("utf-8", errors="replace") + cut_marker
        else:
            yield raw.rstrip(b"\r\n").decode("utf-8", errors="replace")


def _count_lines(f: BinaryIO) -> int:
    """Count the lines from the current position to the end (a final unterminated one counts)."""
    count, last = 0, b"\n"
    while chunk := f.read(1024 * 1024):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (last != b"\n")


def _walk(root: Path, base: Path, recursive: bool) -> Iterator[tuple[Path, bool]]:
    """Yield (path, is_dir) for visible files and dirs under ``base`` that stay inside ``root``."""
    try:
        with os.scandir(base) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if (
            entry.name.startswith(".")
            or entry.name in SKIP_NAMES
            or entry.name.endswith(".egg-info")
        ):
            continue
        path = Path(entry.path)
        try:
            link = entry.is_symlink()
            if link and not path.resolve().is_relative_to(root):
                continue
            is_dir, is_file = entry.is_dir(), entry.is_file()
        except (OSError, RuntimeError):
            continue
        if is_dir or is_file:
            yield path, is_dir
        if is_dir and recursive and not link:  # symlinked dirs are listed but never entered
            yield from _walk(root, path, recursive)


def read_file(path: str, project_dir: Path, start_line: int = 1, max_lines: int = 400) -> str:
    """Read part of a text file in the project, as plain text lines.

    If the file goes on past the returned lines, the last line is a marker such as
    "[... 120 more lines; call again with start_line=401]".

    Args:
        path: File path relative to the project directory, e.g. "src/app.py".
        start_line: First line to return, counting from 1.
        max_lines: Maximum number of lines to return.
    """
    _check_positive(start_line=start_line, max_lines=max_lines)
    _, target, rel = _existing(project_dir, path)
    if target.is_dir():
        raise IsADirectoryError(f"{rel!r} is a directory; use list_dir to see its contents")
    if not target.is_file():
        raise ValueError(f"{rel!r} is not a regular file; only regular text files can be read")
    if _is_binary(target):
        raise ValueError(
            f"{rel!r} is a binary file (it contains NUL bytes) and cannot be shown as text; "
            "use file_info for its size and modification time"
        )
    window: list[str] = []
    chars = lineno = remaining = 0
    with target.open("rb") as f:
        for lineno, line in enumerate(_iter_lines(f, _CUT_MARKER), start=1):
            if lineno < start_line:
                continue
            if len(window) == max_lines or (window and chars + len(line) > MAX_WINDOW_CHARS):
                remaining = 1 + _count_lines(f)
                break
            window.append(line)
            chars += len(line) + 1
    if not window and (lineno > 0 or start_line > 1):
        raise ValueError(
            f"start_line={start_line} is past the end of {rel!r}, which has {lineno} lines; "
            f"use a start_line from 1 to {max(lineno, 1)}"
        )
    text = "\n".join(window)
    if remaining:
        next_line = start_line + len(window)
        text += f"\n[... {remaining} more lines; call again with start_line={next_line}]"
    return text


def list_dir(
    project_dir: Path,
    path: str = ".",
    pattern: str = "*",
    recursive: bool = False,
    max_entries: int = 200,
) -> list[dict[str, object]]:
    """List files and directories in the project, sorted by path.

    Hidden entries, __pycache__ and node_modules are skipped. Each entry has "path", "type"
    ("file" or "dir") and, for files, "size" in bytes. If entries were left out, the last
    element is {"truncated": true, "omitted": N}.

    Args:
        path: Directory relative to the project directory; "." is the project root.
        pattern: Shell-style pattern matched against entry names, e.g. "*.py".
        recursive: Whether to include entries in all subdirectories.
        max_entries: Maximum number of entries to return.
    """
    _check_positive(max_entries=max_entries)
    root, base, rel = _existing(project_dir, path)
    if not base.is_dir():
        raise NotADirectoryError(f"{rel!r} is a file, not a directory; use read_file or file_info")
    found = sorted(
        (_rel(root, p), p, is_dir)
        for p, is_dir in _walk(root, base, recursive)
        if fnmatchcase(p.name, pattern)
    )
    entries: list[dict[str, object]] = []
    for entry_path, p, is_dir in found[:max_entries]:
        entry: dict[str, object] = {"path": entry_path, "type": "dir" if is_dir else "file"}
        if not is_dir:
            entry["size"] = p.stat().st_size
        entries.append(entry)
    if len(found) > max_entries:
        entries.append({"truncated": True, "omitted": len(found) - max_entries})
    return entries


def search_text(  # noqa: PLR0917 - positional order mirrors the tool's parameters
    pattern: str,
    project_dir: Path,
    path: str = ".",
    glob: str = "*",
    regex: bool = False,
    max_results: int = 50,
) -> list[dict[str, object]]:
    """Search text files in the project for lines containing a pattern (case-sensitive).

    Binary and hidden files, hidden dirs, __pycache__ and node_modules are skipped. Each result
    has "path", "line" (from 1) and "text" (the stripped line, cut to 200 characters), in path
    then line order. Exactly max_results results means there may be more.

    Args:
        pattern: Text to look for, or a Python regular expression when regex is true.
        path: File or directory to search, relative to the project directory.
        glob: Shell-style pattern that file names must match, e.g. "*.py".
        regex: Treat pattern as a Python regular expression instead of literal text.
        max_results: Maximum number of matching lines to return.
    """
    _check_positive(max_results=max_results)
    if not pattern:
        raise ValueError("pattern is empty; send the text to search for")
    try:
        matcher = re.compile(pattern if regex else re.escape(pattern))
    except re.error as exc:
        raise ValueError(
            f"invalid regular expression {pattern!r}: {exc}; "
            "fix it, or send regex=false to search for the literal text"
        ) from exc
    root, base, rel = _existing(project_dir, path)
    if base.is_dir():
        files = sorted(
            (_rel(root, p), p)
            for p, is_dir in _walk(root, base, recursive=True)
            if not is_dir and fnmatchcase(p.name, glob)
        )
    else:
        files = [(rel, base)] if base.is_file() else []
    results: list[dict[str, object]] = []
    for file_rel, file in files:
        try:
            if _is_binary(file):
                continue
            with file.open("rb") as f:
                for lineno, line in enumerate(_iter_lines(f), start=1):
                    if matcher.search(line):
                        text = line.strip()[:MAX_TEXT_CHARS]
                        results.append({"path": file_rel, "line": lineno, "text": text})
                        if len(results) >= max_results:
                            return results
        except OSError:  # unreadable file: skip it rather than fail the whole search
            continue
    return results


def file_info(path: str, project_dir: Path) -> dict[str, object]:
    """Describe a file or directory in the project.

    Returns "path", "type" ("file", "dir" or "other"), "size" in bytes (as the filesystem
    reports it, for directories too), "modified" (ISO-8601, UTC) and, for text files only,
    "lines".

    Args:
        path: File or directory path relative to the project directory.
    """
    _, target, rel = _existing(project_dir, path)
    st = target.stat()
    kind = "dir" if target.is_dir() else "file" if target.is_file() else "other"
    info: dict[str, object] = {
        "path": rel,
        "type": kind,
        "size": st.st_size,
        "modified": datetime.fromtimestamp(st.st_mtime, tz=UTC).isoformat(timespec="seconds"),
    }
    if kind == "file" and not _is_binary(target):
        with target.open("rb") as f:
            info["lines"] = _count_lines(f)
    return info
