"""Read a file the project names, whole: never blocking, never past a cap, regular files only.

Every file tooldeck reads because a project points at it (manifests, the
configuration and its ``.properties``, ``pyproject.toml`` and ``tooldeck.yaml``
settings, lint settings, the input of ``tooldeck import``) is untrusted: a
teammate or a pull request can replace it with anything a path can name. So
every one of them is read by :func:`read_bounded`, in three steps, each for a
failure seen in practice:

1. **Opening never blocks.** ``open()`` of a FIFO waits for a writer, forever:
   a hot-reload thread stuck there ignores every later save. On Linux the path
   is opened with ``O_PATH``, which opens nothing (no FIFO wait, and no device
   driver runs: opening a watchdog or a tape drive has effects), and is
   reopened for reading through ``/proc/self/fd`` only once that descriptor is
   known to be a regular file. Elsewhere a ``stat`` first refuses what is
   plainly not a regular file, and the open uses ``O_NONBLOCK | O_NOCTTY``.
   Where the OS has no ``O_NONBLOCK`` (Windows, which has no FIFOs among its
   files) the ``stat`` and the descriptor check below are what is left.
2. **The opened descriptor is judged, not the name.** The path can be swapped
   (for a symlink to ``/dev/zero``, say) between any check by name and the
   open; ``os.fstat`` of the descriptor decides: a regular file, no larger
   than the cap.
3. **The read bounds itself.** At most ``limit + 1`` bytes are read from that
   descriptor, whatever its size said a moment ago, so a file that grows
   after the check is refused too instead of being read until memory runs out.

Symlinks are followed (a symlinked manifest is legitimate); what they lead to
is what is checked. Problems come back as an :class:`Unreadable` value, and
each reader words it under its own diagnostic code (TD200/TD201 for
manifests, TD230 for the configuration, TD240 for project settings, TD400 for
lint settings, TD500 for import input).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Literal

from ._words import plural

__all__ = [
    "DEFAULT_LIMIT",
    "Unreadable",
    "read_bounded",
    "read_descriptor",
    "read_text_lines",
]

DEFAULT_LIMIT = 2 * 1024 * 1024
"""The cap for settings and configuration files, as for manifests (2 MiB)."""

_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO with no writer: the open returns at once
    | getattr(os, "O_NOCTTY", 0)  # a terminal never becomes the controlling one
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)  # Windows: no newline translation
    | getattr(os, "O_NOINHERIT", 0)
)
_PROC_FD = hasattr(os, "O_PATH") and os.path.isdir("/proc/self/fd")
"""Linux with /proc: probe with O_PATH, reopen through /proc/self/fd once judged."""
_CHUNK = 1024 * 1024

Reason = Literal["missing", "not_regular", "too_large", "error"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Unreadable:
    """Why a file was not read; each reader turns it into its own located diagnostic."""

    reason: Reason
    """``missing``; ``not_regular`` (a FIFO, device, socket or folder); ``too_large``;
    ``error`` (any other refusal of the OS: permissions, a symlink loop ...)."""
    detail: str
    """The words for it: the OS's message, or the kind of file found."""
    size: int | None = None
    """``too_large``: the size the descriptor reported; None when the file grew past
    the cap while it was read."""
    limit: int | None = None
    """``too_large``: the cap it was held to."""

    def __str__(self) -> str:
        if self.reason == "not_regular":
            return f"it is {self.detail}, not a regular file"
        if self.reason == "too_large":
            if self.size is None:
                return f"it grew past {self.limit} bytes while being read"
            return f"it is {plural(self.size, 'byte')}; at most {self.limit} are read"
        return self.detail


def read_bounded(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT) -> bytes | Unreadable:
    """The bytes of the regular file at ``path`` (symlinks followed), at most ``limit``.

    Never blocks on what the path names and never reads more than
    ``limit + 1`` bytes; anything else is an :class:`Unreadable`, never an
    exception.
    """
    try:
        opened = _open_regular(os.fspath(path), limit)
    except OSError as exc:
        return _os_problem(exc)
    except ValueError as exc:  # a NUL byte in the name
        return Unreadable(reason="error", detail=str(exc))
    if isinstance(opened, Unreadable):
        return opened
    try:
        return _read_capped(opened, limit)
    finally:
        os.close(opened)


def read_descriptor(fd: int, limit: int = DEFAULT_LIMIT) -> bytes | Unreadable:
    """What is left to read from ``fd`` if it is a regular file, at most ``limit`` bytes.

    For a caller that opened the file itself (to write to it after reading,
    through the same descriptor); the descriptor is judged as
    :func:`read_bounded` judges it, and stays open.
    """
    try:
        refused = _judge(os.fstat(fd), limit)
    except OSError as exc:
        return _os_problem(exc)
    return refused if refused is not None else _read_capped(fd, limit)


def _read_capped(fd: int, limit: int) -> bytes | Unreadable:
    try:
        data = _read_at_most(fd, limit + 1)
    except OSError as exc:
        return _os_problem(exc)
    if len(data) > limit:
        return Unreadable(reason="too_large", detail="too large", size=None, limit=limit)
    return data


def read_text_lines(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT) -> list[str]:
    """The lines of ``path`` decoded leniently, or none: for locating a key after the fact."""
    data = read_bounded(path, limit)
    if isinstance(data, Unreadable):
        return []
    return data.decode("utf-8", errors="replace").splitlines()


def _open_regular(path: str, limit: int) -> int | Unreadable:
    """A readable descriptor of the regular file at ``path``, or why not."""
    if _PROC_FD:
        probe = os.open(path, os.O_PATH | os.O_CLOEXEC)  # opens nothing: cannot block
        try:
            refused = _judge(os.fstat(probe), limit)
            if refused is not None:
                return refused
            fd = _reopen(probe, path)
        finally:
            os.close(probe)
    else:
        refused = _judge(os.stat(path), limit)  # plainly not a file: never opened
        if refused is not None:
            return refused
        fd = os.open(path, _READ_FLAGS)
    try:
        refused = _judge(os.fstat(fd), limit)  # the descriptor decides, not the name
    except OSError:
        os.close(fd)
        raise
    if refused is not None:
        os.close(fd)
        return refused
    return fd


def _reopen(probe: int, path: str) -> int:
    """A readable descriptor of the file ``probe`` (O_PATH) holds: that very file.

    Should /proc answer oddly (a sandbox's own procfs), the path is opened
    again without blocking; the descriptor check that follows still decides.
    """
    try:
        return os.open(f"/proc/self/fd/{probe}", _READ_FLAGS)
    except FileNotFoundError:
        return os.open(path, _READ_FLAGS)


def _judge(info: os.stat_result, limit: int) -> Unreadable | None:
    if not stat.S_ISREG(info.st_mode):
        return Unreadable(reason="not_regular", detail=_kind(info.st_mode))
    if info.st_size > limit:
        return Unreadable(reason="too_large", detail="too large", size=info.st_size, limit=limit)
    return None


def _read_at_most(fd: int, most: int) -> bytes:
    chunks: list[bytes] = []
    left = most
    while left > 0:
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _os_problem(exc: OSError) -> Unreadable:
    detail = exc.strerror or str(exc) or type(exc).__name__
    if isinstance(exc, FileNotFoundError):
        return Unreadable(reason="missing", detail=detail)
    if isinstance(exc, IsADirectoryError):
        return Unreadable(reason="not_regular", detail="a directory")
    return Unreadable(reason="error", detail=detail)
