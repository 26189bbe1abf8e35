"""Descriptor-verified access to the project directory, for the file tools.

The tools themselves are in ``tooldeck.handlers.files``.

The file tools promise that what they read is inside the project even while another process
renames, swaps or links things under them. This module keeps that promise, so the tools never
touch a path themselves:

* :class:`Project` resolves a model's path inside the project (the advisory, by-name check, for a
  clear message), then opens it and verifies the opened descriptor: the kernel is asked where it
  really is (``/proc/self/fd`` on Linux, ``F_GETPATH`` on macOS), and where the OS cannot tell,
  the path is opened one component at a time from the project root with ``O_NOFOLLOW``.
* Opening never blocks: on Linux with ``O_PATH`` (reopened for reading through ``/proc/self/fd``
  only once it is known to be a regular file or a folder), elsewhere with ``O_NONBLOCK |
  O_NOCTTY``. FIFOs, sockets and devices are never listed, entered or read.
* :func:`walking` iterates folders through their descriptors, entering sub-folders with
  ``O_NOFOLLOW`` and never by name again, at most :data:`MAX_DEPTH` levels down;
  :func:`open_entry` opens a file met on the way, verified the same way.

Why a module of its own: this is the security-critical mechanism, and it is easier to review
apart from what the tools do with the files. It is private (``_confined``) because nothing here is
a tool: manifests reference the tools defined in ``tooldeck.handlers.files``.

Where the POSIX descriptor API is missing (Windows: no ``fcntl``, no ``O_NOFOLLOW``, no
``dir_fd``), none of this can be promised. The module still imports, so ``import tooldeck`` and
every command work there, but :class:`Project` refuses to open anything and says, in words for the
model, that the file tools need a POSIX system (:data:`tooldeck.handlers._posix.UNSUPPORTED`).
"""

import errno
import io
import os
import stat
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Protocol

from tooldeck import ToolFailed

from ._posix import FCNTL, UNSUPPORTED

__all__ = ["MAX_DEPTH", "Budget", "Entry", "Project", "open_entry", "walking"]

MAX_DEPTH = 64
"""Folders nested deeper than this below the listed or searched folder are not entered: each level
holds one open descriptor, and a hostile tree must not exhaust them."""
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
"""Every open that may read: O_NONBLOCK so opening a FIFO with no writer returns at once,
O_NOCTTY so a terminal never becomes the controlling one, O_CLOEXEC so no child inherits it."""
_PROC_FD = hasattr(os, "O_PATH") and os.path.isdir("/proc/self/fd")
"""Linux with /proc: paths are opened with O_PATH, located through /proc/self/fd and reopened
through it for reading."""
_PROBE_FLAGS = os.O_PATH | os.O_CLOEXEC if _PROC_FD else _READ_FLAGS
"""How a path is first opened, before anything is known about what it is."""
_F_GETPATH: int | None = getattr(FCNTL, "F_GETPATH", None)  # macOS and other BSD-derived systems
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
    if FCNTL is not None and _F_GETPATH is not None:
        buffer = FCNTL.fcntl(fd, _F_GETPATH, bytes(_MAXPATHLEN))
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


class Project:
    """The project directory during one call: turns names into verified descriptors.

    Holds the root open for the call, and the root's real location (``None`` where the OS cannot
    tell a descriptor's location; paths are then opened by :func:`_open_beneath`).
    """

    def __init__(self, project_dir: Path) -> None:
        if UNSUPPORTED is not None:  # before anything is opened: no promise can be kept here
            raise ToolFailed(UNSUPPORTED, kind="unsupported_platform")
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

    def __enter__(self) -> "Project":
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


class Budget(Protocol):
    """The work a walk may still do (the file tools keep the allowance and its limits)."""

    stopped: bool
    """Set when the walk must end now."""

    def take_entry(self) -> bool:
        """Count one directory entry; False once the walk must stop."""
        ...

    def skip(self, reason: str) -> None:
        """Note that something was left out, and why."""
        ...


@dataclass(frozen=True)
class Entry:
    """A visible file or folder met while walking (for a symlink: what it points to).

    ``parent_fd`` is the folder's descriptor, valid only while the walk is paused at this entry.
    """

    rel: str
    name: str
    parent_fd: int
    link: bool
    is_dir: bool
    size: int


def _describe(project: Project, dir_fd: int, rel: str, item: os.DirEntry[str]) -> Entry | None:
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
    return Entry(rel, item.name, dir_fd, link, is_dir, st.st_size)


def _scan(
    project: Project, dir_fd: int, dir_rel: str, budget: Budget, visible: Callable[[str], bool]
) -> list[Entry]:
    """The visible entries of the verified folder ``dir_fd``, in path order."""
    found = []
    with os.scandir(dir_fd) as items:
        for item in items:
            if not budget.take_entry():
                break
            if visible(item.name):
                rel = item.name if dir_rel == "." else f"{dir_rel}/{item.name}"
                if (entry := _describe(project, dir_fd, rel, item)) is not None:
                    found.append(entry)
    # "a/" sorts like the paths below it, so the walk yields paths in plain string order
    return sorted(found, key=lambda e: e.name + "/" if e.is_dir and not e.link else e.name)


def _open_child(project: Project, dir_fd: int, name: str, *, directory: bool) -> int | None:
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
    project: Project,
    dir_fd: int,
    dir_rel: str,
    *,
    recursive: bool,
    budget: Budget,
    visible: Callable[[str], bool],
    depth: int = 0,
) -> Generator[Entry, None, None]:
    """Yield the visible files and folders below the verified, readable folder ``dir_fd``.

    Sub-folders are entered through their descriptors; symlinked folders are listed but never
    entered. Entries come in path order.
    """
    for entry in _scan(project, dir_fd, dir_rel, budget, visible):
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
                    project,
                    child,
                    entry.rel,
                    recursive=True,
                    budget=budget,
                    visible=visible,
                    depth=depth + 1,
                )
            finally:
                os.close(child)


@contextmanager
def walking(
    project: Project,
    fd: int,
    rel: str,
    *,
    recursive: bool,
    budget: Budget,
    visible: Callable[[str], bool],
) -> Iterator[Iterator[Entry]]:
    """Walk the verified folder ``fd`` through a readable descriptor closed afterwards.

    Only names ``visible`` accepts are yielded (and entered); ``budget`` is charged one entry
    for every name met.
    """
    readable = _reopen(fd, directory=True)
    walk = _walk(project, readable, rel, recursive=recursive, budget=budget, visible=visible)
    try:
        yield walk
    finally:
        walk.close()  # closes the descriptors of the folders it is inside
        os.close(readable)


def open_entry(project: Project, entry: Entry) -> io.BufferedReader | None:
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
