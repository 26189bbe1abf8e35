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
* **search_text does bounded work**: RE2 regular expressions through :mod:`engine.regex` (linear
  time, whatever the pattern) or plain substring tests, and a cap on entries examined, bytes read
  and seconds spent.

Files are streamed line by line with bounded memory. Nothing in this module writes.
"""

import errno
import fcntl
import io
import os
import stat
import sys
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, BinaryIO

from engine.regex import PatternError, compile_pattern

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

MAX_WINDOW_CHARS = 2 * 1024 * 1024  # at most this much text is returned by one read_file call
MAX_LINE_BYTES = 64 * 1024  # longer lines are cut, so a huge one-line file never sits in memory
SNIFF_BYTES = 8 * 1024  # a NUL byte in this prefix marks a file as binary
MAX_TEXT_CHARS = 200  # search_text result lines are cut to this length
MAX_DEPTH = 64
"""Folders nested deeper than this below the listed or searched folder are not entered: each level
holds one open descriptor, and a hostile tree must not exhaust them."""
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

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
"""Every open that may read: O_NONBLOCK so opening a FIFO with no writer returns at once,
O_NOCTTY so a terminal never becomes the controlling one, O_CLOEXEC so no child inherits it."""
_PROC_FD = hasattr(os, "O_PATH") and os.path.isdir("/proc/self/fd")
"""Linux with /proc: paths are opened with O_PATH, located through /proc/self/fd and reopened
through it for reading."""
_PROBE_FLAGS = os.O_PATH | os.O_CLOEXEC if _PROC_FD else _READ_FLAGS
"""How a path is first opened, before anything is known about what it is."""
_F_GETPATH: int | None = getattr(fcntl, "F_GETPATH", None)  # macOS and other BSD-derived systems
_MAXPATHLEN = 1024  # the buffer F_GETPATH fills (MAXPATHLEN on macOS)
_LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK})  # O_NOFOLLOW met a symlink (EMLINK: BSD)


# --- paths and verified descriptors ----------------------------------------------------------


def _outside(path: str) -> PermissionError:
    return PermissionError(
        f"path {path!r} is outside the project directory; use a path relative to it"
    )


def _missing(rel: str) -> FileNotFoundError:
    return FileNotFoundError(
        f"{rel!r} does not exist in the project directory; use list_dir to see what is there"
    )


def _resolve_inside(root: Path, path: str) -> Path:
    """Resolve ``path`` against ``root`` (following symlinks) and refuse escapes.

    This is the by-name check: it turns mistakes into clear messages before anything is opened.
    It cannot stop a name from being redirected afterwards; the descriptor check does that.
    """
    if "\0" in path:
        raise ValueError(f"path {path!r} contains a NUL character; send a plain relative path")
    if path.startswith("~"):
        raise _outside(path)
    try:
        resolved = (root / (path or ".")).resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # RuntimeError: symlink loop
        raise ValueError(f"path {path!r} cannot be resolved ({exc}); send another path") from exc
    if not resolved.is_relative_to(root):
        raise _outside(path)
    return resolved


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _fd_path(fd: int) -> str | None:
    """Where an open descriptor really is, as the kernel knows it, or None if the OS cannot tell.

    Unlike a name, a descriptor cannot be redirected once open, so checking its real location
    leaves no window between check and use.
    """
    if _PROC_FD:
        return os.readlink(f"/proc/self/fd/{fd}")
    if _F_GETPATH is not None:
        buffer = fcntl.fcntl(fd, _F_GETPATH, bytes(_MAXPATHLEN))
        return os.fsdecode(buffer.split(b"\0", 1)[0])
    return None


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _open_no_link(name: str, flags: int, dir_fd: int) -> int:
    """Open ``name`` in the folder ``dir_fd`` unless it is a symlink (then ELOOP).

    With O_DIRECTORY, Linux reports a symlink as ENOTDIR; it is told apart from a plain file here
    so that a symlink swapped in is refused as outside rather than reported missing.
    """
    try:
        return os.open(name, flags | os.O_NOFOLLOW, dir_fd=dir_fd)
    except NotADirectoryError:
        if stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP)) from None
        raise


def _open_beneath(root_fd: int, parts: tuple[str, ...], flags: int) -> int:
    """Open ``parts`` below the folder ``root_fd`` one component at a time, following no symlink.

    The fallback where a descriptor's location cannot be asked: each step is relative to the
    folder opened before it and refuses symlinks (ELOOP), so the result cannot be outside.
    """
    if not parts:
        return os.open(".", flags, dir_fd=root_fd)
    current = root_fd
    try:
        for part in parts[:-1]:
            step = _open_no_link(part, _READ_FLAGS | os.O_DIRECTORY, current)
            if current != root_fd:
                os.close(current)
            current = step
        return _open_no_link(parts[-1], flags, current)
    finally:
        if current != root_fd:
            os.close(current)


def _reopen(fd: int, directory: bool = False) -> int:
    """A new descriptor open for reading on the same file as the verified ``fd``.

    With /proc, ``fd`` is an O_PATH descriptor: opening its /proc/self/fd link reaches that very
    file without resolving any name again. Elsewhere ``fd`` is readable already and is duplicated.
    """
    if _PROC_FD:
        flags = _READ_FLAGS | (os.O_DIRECTORY if directory else 0)
        return os.open(f"/proc/self/fd/{fd}", flags)
    return os.dup(fd)


class _Project:
    """The project directory during one call: turns names into verified descriptors.

    Holds the root open for the call, and the root's real location (``None`` where the OS cannot
    tell a descriptor's location; paths are then opened by :func:`_open_beneath`).
    """

    def __init__(self, project_dir: Path) -> None:
        self.root = project_dir.resolve()
        try:
            self.fd = os.open(self.root, _PROBE_FLAGS | os.O_DIRECTORY)
        except OSError as exc:
            raise FileNotFoundError(
                f"the project directory cannot be opened ({exc.strerror}); check --project-dir"
            ) from None
        try:
            self.real = _fd_path(self.fd)
        except BaseException:
            os.close(self.fd)
            raise

    def __enter__(self) -> "_Project":
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        os.close(self.fd)

    def confined(self, fd: int) -> bool:
        """Whether ``fd`` is inside the project (assumed where locations cannot be asked: then
        every descriptor comes from walking down without following symlinks)."""
        if self.real is None:
            return True
        where = _fd_path(fd)
        return where is not None and _is_within(where, self.real)

    @contextmanager
    def opened(self, path: str) -> Iterator[tuple[int, os.stat_result, str]]:
        """Open ``path`` (following symlinks) and yield (descriptor, its stat, relative name).

        The descriptor is verified to be inside the project; with /proc it is an O_PATH one, so
        use :func:`_reopen` (or :meth:`reader`) to read from it.
        """
        target = _resolve_inside(self.root, path)
        rel = _rel(self.root, target)
        fd = self._open(target, path, rel)
        try:
            if not self.confined(fd):
                raise _outside(path)
            yield fd, os.fstat(fd), rel
        finally:
            os.close(fd)

    def stat(self, path: str) -> os.stat_result:
        """The stat of what ``path`` names, taken from its verified descriptor."""
        with self.opened(path) as (_, st, _):
            return st

    def _open(self, target: Path, path: str, rel: str) -> int:
        """Open the resolved ``target``, turning OS errors into messages for the model."""
        try:
            if self.real is None:
                return _open_beneath(self.fd, target.relative_to(self.root).parts, _PROBE_FLAGS)
            return os.open(target, _PROBE_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            raise _missing(rel) from None
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS:  # a symlink appeared after the by-name check
                raise _outside(path) from None
            raise ValueError(f"{rel!r} cannot be opened ({exc.strerror})") from None

    @staticmethod
    def reader(fd: int, rel: str) -> io.BufferedReader:
        """A binary stream over the verified regular file ``fd``; the caller closes it."""
        try:
            readable = _reopen(fd)
        except OSError as exc:
            raise ValueError(f"{rel!r} cannot be read ({exc.strerror})") from None
        os.set_blocking(readable, True)  # it is a regular file: no reason left to be non-blocking
        return os.fdopen(readable, "rb")


# --- walking folders -------------------------------------------------------------------------


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


@dataclass(frozen=True)
class _Entry:
    """A visible file or folder met while walking (for a symlink: what it points to).

    ``parent_fd`` is the folder's descriptor, valid only while the walk is paused at this entry.
    """

    rel: str
    name: str
    parent_fd: int
    link: bool
    is_dir: bool
    size: int


def _visible(name: str) -> bool:
    return not (name.startswith(".") or name in SKIP_NAMES or name.endswith(".egg-info"))


def _describe(project: _Project, dir_fd: int, rel: str, item: os.DirEntry[str]) -> _Entry | None:
    """What a directory entry is; None for anything but a file or folder inside the project.

    A symlink is opened by name like a model's path, so one that points out is left out.
    """
    try:
        link = item.is_symlink()
        st = project.stat(rel) if link else item.stat(follow_symlinks=False)
    except (OSError, ValueError):  # gone, pointing out, a loop: leave it out
        return None
    is_dir = stat.S_ISDIR(st.st_mode)
    if not (is_dir or stat.S_ISREG(st.st_mode)):
        return None  # FIFOs, sockets and devices are never listed or searched
    return _Entry(rel, item.name, dir_fd, link, is_dir, st.st_size)


def _scan(project: _Project, dir_fd: int, dir_rel: str, budget: _Budget) -> list[_Entry]:
    """The visible entries of the verified folder ``dir_fd``, in path order."""
    found = []
    with os.scandir(dir_fd) as items:
        for item in items:
            if not budget.take_entry():
                break
            if _visible(item.name):
                rel = item.name if dir_rel == "." else f"{dir_rel}/{item.name}"
                if (entry := _describe(project, dir_fd, rel, item)) is not None:
                    found.append(entry)
    # "a/" sorts like the paths below it, so the walk yields paths in plain string order
    return sorted(found, key=lambda e: e.name + "/" if e.is_dir and not e.link else e.name)


def _open_child(project: _Project, dir_fd: int, name: str, *, directory: bool) -> int | None:
    """A readable descriptor on ``name`` in a verified folder; None if it changed or escaped.

    The name is opened without following a symlink (one swapped in since the listing fails with
    ELOOP), checked to still be a file or folder inside the project, and only then reopened for
    reading, so nothing else is ever opened for real.
    """
    wanted = stat.S_ISDIR if directory else stat.S_ISREG
    try:
        probe = os.open(name, _PROBE_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        if not (wanted(os.fstat(probe).st_mode) and project.confined(probe)):
            return None  # swapped for a FIFO or device, or moved out of the project
        return _reopen(probe, directory)
    except OSError:
        return None
    finally:
        os.close(probe)


def _walk(
    project: _Project,
    dir_fd: int,
    dir_rel: str,
    *,
    recursive: bool,
    budget: _Budget,
    depth: int = 0,
) -> Generator[_Entry, None, None]:
    """Yield the visible files and folders below the verified, readable folder ``dir_fd``.

    Sub-folders are entered through their descriptors; symlinked folders are listed but never
    entered. Entries come in path order.
    """
    for entry in _scan(project, dir_fd, dir_rel, budget):
        if budget.stopped:
            return
        yield entry
        if not (recursive and entry.is_dir and not entry.link):
            continue
        if depth >= MAX_DEPTH:
            budget.skip(f"folders nested more than {MAX_DEPTH} deep were not entered")
            continue
        child = _open_child(project, dir_fd, entry.name, directory=True)
        if child is not None:
            try:
                yield from _walk(
                    project, child, entry.rel, recursive=True, budget=budget, depth=depth + 1
                )
            finally:
                os.close(child)


@contextmanager
def _walking(
    project: _Project, fd: int, rel: str, recursive: bool, budget: _Budget
) -> Iterator[Iterator[_Entry]]:
    """Walk the verified folder ``fd`` through a readable descriptor closed afterwards."""
    readable = _reopen(fd, directory=True)
    walk = _walk(project, readable, rel, recursive=recursive, budget=budget)
    try:
        yield walk
    finally:
        walk.close()  # closes the descriptors of the folders it is inside
        os.close(readable)


def _open_entry(project: _Project, entry: _Entry) -> io.BufferedReader | None:
    """A stream over a regular file met while walking; None if it changed or escaped since."""
    if entry.link:  # opened by name like a model's path, and verified the same way
        try:
            with project.opened(entry.rel) as (fd, st, rel):
                return project.reader(fd, rel) if stat.S_ISREG(st.st_mode) else None
        except (OSError, ValueError):
            return None
    readable = _open_child(project, entry.parent_fd, entry.name, directory=False)
    if readable is None:
        return None
    os.set_blocking(readable, True)
    return os.fdopen(readable, "rb")


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
            f"start_line={start_line} is past the end of {rel!r}, which has {lineno} lines; "
            f"use a start_line from 1 to {max(lineno, 1)}"
        )
    text = "\n".join(window)
    if remaining:
        next_line = start_line + len(window)
        text += f"\n[... {remaining} more lines; call again with start_line={next_line}]"
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
    with _Project(project_dir) as project, project.opened(path) as (fd, st, rel):
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
    with _Project(project_dir) as project, project.opened(path) as (fd, st, rel):
        if stat.S_ISREG(st.st_mode):
            raise NotADirectoryError(
                f"{rel!r} is a file, not a directory; use read_file or file_info"
            )
        if not stat.S_ISDIR(st.st_mode):
            raise NotADirectoryError(f"{rel!r} is not a directory; use file_info to see what it is")
        with _walking(project, fd, rel, recursive, _Budget.unlimited()) as entries:
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
    project: _Project, fd: int, st: os.stat_result, rel: str, *, glob: str, budget: _Budget
) -> Generator[tuple[str, io.BufferedReader], None, None]:
    """Yield (relative path, stream) for each file search_text looks into, in path order."""
    if stat.S_ISREG(st.st_mode):
        yield rel, project.reader(fd, rel)
    elif stat.S_ISDIR(st.st_mode):
        with _walking(project, fd, rel, True, budget) as entries:
            for entry in entries:
                if entry.is_dir or not fnmatchcase(entry.name, glob):
                    continue
                if (f := _open_entry(project, entry)) is not None:
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
        _Project(project_dir) as project,
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
    with _Project(project_dir) as project, project.opened(path) as (fd, st, rel):
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
