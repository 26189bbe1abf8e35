"""Read-only file tools confined to the project directory.

Each function receives ``project_dir`` from the engine (the model never sees it). Everything the
model sends is untrusted, and so are the project's files: another process may change them while a
tool runs. The guarantees:

* **What is read is inside the project.** A path is first resolved and refused if it leaves the
  project (``..``, absolute paths elsewhere, ``~``, symlinks that point out); that check gives a
  clear message but is only advisory, as the name may be redirected right after it. What counts is
  the descriptor: every file and folder is opened first and then verified - the kernel is asked
  where the open descriptor really is (``/proc/self/fd`` on Linux, ``F_GETPATH`` on macOS) and it
  must be inside the project. Where the OS cannot tell, the path is opened one component at a time
  from the project root, refusing symlinks. Folders are read through their descriptors and entered
  with ``O_NOFOLLOW``, never by name again.
* **Opening never blocks.** On Linux a path is opened with ``O_PATH`` (which opens nothing: no
  FIFO wait, no device driver) and reopened for reading through its ``/proc/self/fd`` link only
  once it is known to be a regular file or a folder; elsewhere opens use ``O_NONBLOCK |
  O_NOCTTY``. Only regular files are ever read; FIFOs, sockets and devices are never listed or
  searched.
* **search_text does bounded work**: RE2 regular expressions through :mod:`tooldeck._regex` (linear
  time, whatever the pattern) or plain substring tests, and a cap on entries examined, bytes read
  and seconds spent.

Files are streamed line by line with bounded memory. Nothing in this module writes.

The descriptor machinery behind the first two guarantees (resolving, opening and verifying, walking
folders through descriptors) lives in :mod:`tooldeck.handlers._confined`; this module holds the
four tools and what they do with the files. The tools must stay *defined* here: a manifest's
handler reference resolves only to callables whose ``__module__`` is an allowed module
(``tooldeck.handlers.files:read_file``).
"""

import io
import os
import stat
import sys
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from tooldeck._regex import PatternError, compile_pattern

from ._confined import Project, open_entry, walking

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

MAX_WINDOW_CHARS = 2 * 1024 * 1024  # at most this much text is returned by one read_file call
MAX_LINE_BYTES = 64 * 1024  # longer lines are cut, so a huge one-line file never sits in memory
SNIFF_BYTES = 8 * 1024  # a NUL byte in this prefix marks a file as binary
MAX_TEXT_CHARS = 200  # search_text result lines are cut to this length
MAX_SEARCH_ENTRIES = 50_000
"""search_text stops after examining this many directory entries (files, folders, skipped names)."""
MAX_SEARCH_BYTES = 64 * 1024 * 1024
"""search_text stops after reading this many bytes of file content."""
MAX_SEARCH_SECONDS = 5.0
"""search_text stops after this long: half the bundled manifest's timeout, so partial results
arrive instead of a timeout error."""
SKIP_NAMES = frozenset({"__pycache__", ".git", ".venv", "node_modules", "build", "dist"})
"""Folders of generated or vendored files: listing and searching them only adds noise."""
_CUT_MARKER = " [... line truncated]"
_RE2_SYNTAX = "regex=true takes RE2 syntax: no lookaround or backreferences, repeats up to {1000}"


# --- the work one call may do, and the names it shows ----------------------------------------


@dataclass
class _Budget:
    """The work one call may still do, and why it fell short if it did."""

    entries: int
    bytes: int
    deadline: float
    shortfall: str = ""  # set once something was left out
    stopped: bool = False  # set when the call must end now

    @classmethod
    def for_search(cls) -> "_Budget":
        deadline = time.monotonic() + MAX_SEARCH_SECONDS
        return cls(MAX_SEARCH_ENTRIES, MAX_SEARCH_BYTES, deadline)

    @classmethod
    def unlimited(cls) -> "_Budget":
        return cls(entries=sys.maxsize, bytes=sys.maxsize, deadline=float("inf"))

    def skip(self, reason: str) -> None:
        self.shortfall = self.shortfall or reason

    def stop(self, reason: str) -> None:
        self.skip(reason)
        self.stopped = True

    def take_entry(self) -> bool:
        """Count one directory entry; False (and stop) once the allowance or time is spent."""
        if self.out_of_time():
            return False
        if self.entries <= 0:
            self.stop(f"examined {MAX_SEARCH_ENTRIES:,} directory entries, the most one call may")
            return False
        self.entries -= 1
        return True

    def out_of_time(self) -> bool:
        if time.monotonic() > self.deadline:
            self.stop(f"searched for {MAX_SEARCH_SECONDS:g} s, the longest one call may")
        return self.stopped


def _visible(name: str) -> bool:
    """Whether list_dir and search_text show a name (hidden, generated and vendored ones: no)."""
    return not (name.startswith(".") or name in SKIP_NAMES or name.endswith(".egg-info"))


# --- reading ---------------------------------------------------------------------------------


def _check_positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}; send a positive integer")


def _is_binary(f: BinaryIO) -> bool:
    """Whether the file has a NUL byte near its start; the stream is rewound afterwards."""
    binary = b"\0" in f.read(SNIFF_BYTES)
    f.seek(0)
    return binary


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


def _lines(count: int, more: str = "") -> str:
    """``1 line``, ``2 more lines``: a count of lines with its noun agreeing."""
    return f"{count} {more}line" + ("" if count == 1 else "s")


def _window(f: BinaryIO, rel: str, start_line: int, max_lines: int) -> str:
    """The lines read_file returns, with a continuation marker if the file goes on."""
    window: list[str] = []
    chars = lineno = remaining = 0
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
            f"start_line={start_line} is past the end of {rel!r}, which has {_lines(lineno)}; "
            f"use a start_line from 1 to {max(lineno, 1)}"
        )
    text = "\n".join(window)
    if remaining:
        next_line = start_line + len(window)
        text += f"\n[... {_lines(remaining, 'more ')}; call again with start_line={next_line}]"
    return text


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
    with Project(project_dir) as project, project.opened(path) as (fd, st, rel):
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(f"{rel!r} is a directory; use list_dir to see its contents")
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{rel!r} is not a regular file; only regular text files can be read")
        with project.reader(fd, rel) as f:
            if _is_binary(f):
                raise ValueError(
                    f"{rel!r} is a binary file (it contains NUL bytes) and cannot be shown as "
                    "text; use file_info for its size and modification time"
                )
            return _window(f, rel, start_line, max_lines)


def list_dir(
    project_dir: Path,
    path: str = ".",
    pattern: str = "*",
    recursive: bool = False,
    max_entries: int = 200,
) -> list[dict[str, object]]:
    """List files and directories in the project, sorted by path.

    Hidden entries, __pycache__ and node_modules are skipped, and so are FIFOs, sockets and
    devices. Each entry has "path", "type" ("file" or "dir") and, for files, "size" in bytes. If
    entries were left out, the last element is {"truncated": true, "omitted": N}.

    Args:
        path: Directory relative to the project directory; "." is the project root.
        pattern: Shell-style pattern matched against entry names, e.g. "*.py".
        recursive: Whether to include entries in all subdirectories.
        max_entries: Maximum number of entries to return.
    """
    _check_positive(max_entries=max_entries)
    with Project(project_dir) as project, project.opened(path) as (fd, st, rel):
        if stat.S_ISREG(st.st_mode):
            raise NotADirectoryError(
                f"{rel!r} is a file, not a directory; use read_file or file_info"
            )
        if not stat.S_ISDIR(st.st_mode):
            raise NotADirectoryError(f"{rel!r} is not a directory; use file_info to see what it is")
        budget = _Budget.unlimited()
        with walking(
            project, fd, rel, recursive=recursive, budget=budget, visible=_visible
        ) as entries:
            found = sorted(
                (e.rel, e.is_dir, e.size) for e in entries if fnmatchcase(e.name, pattern)
            )
    listed: list[dict[str, object]] = []
    for entry_path, is_dir, size in found[:max_entries]:
        entry: dict[str, object] = {"path": entry_path, "type": "dir" if is_dir else "file"}
        if not is_dir:
            entry["size"] = size
        listed.append(entry)
    if len(found) > max_entries:
        listed.append({"truncated": True, "omitted": len(found) - max_entries})
    return listed


# --- searching -------------------------------------------------------------------------------


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _matcher(pattern: str, regex: bool) -> Callable[[str], bool]:
    """The test applied to each line.

    Literal text is a plain substring test (linear, no regex engine at all). A regular expression
    goes through the engine's RE2 module: matching time is linear in the line whatever the
    pattern (Python's re backtracks for hours on patterns such as (a+)+$), the match runs with the
    GIL released, and patterns whose repetitions would make RE2's compiler itself slow are
    refused before compiling.
    """
    if not regex:
        return lambda line: pattern in line
    try:
        return compile_pattern(pattern).search
    except PatternError as exc:
        raise ValueError(
            f"invalid regular expression {_clip(pattern)!r}: {_clip(exc.reason, 200)}; "
            f"{_RE2_SYNTAX}; fix it, or send regex=false to search for the literal text"
        ) from None


class _Metered(io.RawIOBase):
    """A file's bytes as far as the search's budget allows.

    It sits under a buffered reader, so only buffer refills (64 KiB each) pass through here and
    lines are still split at C speed; each refill is charged to the budget and checks the clock,
    which bounds a slow pattern's overrun to one buffer's worth of matching.
    """

    def __init__(self, f: io.BufferedReader, budget: _Budget) -> None:
        super().__init__()
        self._f, self._budget = f, budget

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "WriteableBuffer") -> int:
        budget = self._budget
        if budget.out_of_time():
            return 0
        if budget.bytes <= 0:
            if self._f.read(1):  # more was there: say the search was cut short
                budget.stop(f"read {MAX_SEARCH_BYTES:,} bytes, the most one call may")
            return 0
        with memoryview(buffer) as view:
            count = self._f.readinto(view[: budget.bytes])
        budget.bytes -= count
        return count


def _texts(
    project: Project, fd: int, st: os.stat_result, rel: str, *, glob: str, budget: _Budget
) -> Generator[tuple[str, io.BufferedReader], None, None]:
    """Yield (relative path, stream) for each file search_text looks into, in path order."""
    if stat.S_ISREG(st.st_mode):
        yield rel, project.reader(fd, rel)
    elif stat.S_ISDIR(st.st_mode):
        with walking(project, fd, rel, recursive=True, budget=budget, visible=_visible) as entries:
            for entry in entries:
                if entry.is_dir or not fnmatchcase(entry.name, glob):
                    continue
                if (f := open_entry(project, entry)) is not None:
                    yield entry.rel, f


def _hits(
    f: io.BufferedReader, rel: str, matches: Callable[[str], bool], budget: _Budget
) -> Iterator[dict[str, object]]:
    """The matching lines of one text file, until it or the budget ends (binary files: none)."""
    metered = io.BufferedReader(_Metered(f, budget), MAX_LINE_BYTES)
    if b"\0" in metered.peek(SNIFF_BYTES)[:SNIFF_BYTES]:
        return
    for lineno, line in enumerate(_iter_lines(metered), start=1):
        if matches(line):
            yield {"path": rel, "line": lineno, "text": line.strip()[:MAX_TEXT_CHARS]}


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
    then line order. Exactly max_results results means there may be more. One call examines at
    most 50,000 entries, reads at most 64 MiB and runs at most 5 s; if it stopped early, the last
    element is {"truncated": true, "reason": "..."}.

    Args:
        pattern: Text to look for, or an RE2 regular expression when regex is true.
        path: File or directory to search, relative to the project directory.
        glob: Shell-style pattern that file names must match, e.g. "*.py".
        regex: Treat pattern as an RE2 regular expression (Python-like syntax without
            lookaround or backreferences) instead of literal text.
        max_results: Maximum number of matching lines to return.
    """
    _check_positive(max_results=max_results)
    if not pattern:
        raise ValueError("pattern is empty; send the text to search for")
    matches = _matcher(pattern, regex)
    budget = _Budget.for_search()
    results: list[dict[str, object]] = []
    with (
        Project(project_dir) as project,
        project.opened(path) as (fd, st, rel),
        closing(_texts(project, fd, st, rel, glob=glob, budget=budget)) as texts,
    ):
        for file_rel, f in texts:
            with f:
                try:
                    for hit in _hits(f, file_rel, matches, budget):
                        results.append(hit)
                        if len(results) >= max_results:
                            return results
                except OSError:  # unreadable file: skip it rather than fail the whole search
                    pass
            if budget.stopped or budget.out_of_time():
                break
    if budget.shortfall:
        reason = f"{budget.shortfall}; narrow path or glob to search the rest"
        results.append({"truncated": True, "reason": reason})
    return results


def file_info(path: str, project_dir: Path) -> dict[str, object]:
    """Describe a file or directory in the project.

    Returns "path", "type" ("file", "dir" or "other"), "size" in bytes (as the filesystem
    reports it, for directories too), "modified" (ISO-8601, UTC) and, for text files only,
    "lines".

    Args:
        path: File or directory path relative to the project directory.
    """
    with Project(project_dir) as project, project.opened(path) as (fd, st, rel):
        is_file = stat.S_ISREG(st.st_mode)
        kind = "dir" if stat.S_ISDIR(st.st_mode) else "file" if is_file else "other"
        info: dict[str, object] = {
            "path": rel,
            "type": kind,
            "size": st.st_size,
            "modified": datetime.fromtimestamp(st.st_mtime, tz=UTC).isoformat(timespec="seconds"),
        }
        if is_file:
            with project.reader(fd, rel) as f:
                if not _is_binary(f):
                    info["lines"] = _count_lines(f)
    return info
