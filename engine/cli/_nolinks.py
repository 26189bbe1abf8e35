"""Create, append and replace files in a project folder without following links.

Used by ``tooldeck init`` (the starter), ``tooldeck import`` (the project's
``allow_handlers`` and its copy of the meta-schema) and ``tooldeck schema --write``.

A folder prepared by someone else may hold a symlinked ``manifests/`` (the starter would
land wherever it points) or a ``pyproject.toml`` hard-linked to a file elsewhere (appending
to it changes that file too, under its other name). Both are refused, with the rest of the
class, before anything is written:

- :func:`refusals` checks every component below the project folder with ``lstat``: a
  symlink (to a file or a folder, dangling or not), something that is not a folder where a
  folder is needed, a file that would be overwritten, and a file to append to that is not a
  regular file with exactly one link. Every problem is returned, as words.
- :class:`StarterWriter` then writes through descriptors, so a swap between that check and
  the write is refused too: folders are opened relative to their parent's descriptor with
  ``O_DIRECTORY | O_NOFOLLOW`` (created first if missing), new files are created with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` (nothing already there is ever written through), and the
  file appended to is opened with ``O_NOFOLLOW | O_NONBLOCK`` and judged again by
  ``fstat``. A file replaced (:meth:`StarterWriter.replace`) is read the same way and
  swapped whole for a new file written beside it (a crash never leaves half of it),
  only if the name still holds the file that was read. If a step fails, the files and
  folders it created are removed again.

The project folder itself is taken as the user named it (``/tmp`` is a symlink on macOS);
only what is below it is checked. Where the OS has no ``dir_fd`` or ``O_NOFOLLOW``
(Windows), the ``lstat`` checks are what is left.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path, PurePath

from .._readfile import Unreadable, read_descriptor

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType

__all__ = ["StarterWriter", "WriteRefused", "refusals"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_COMMON = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
_BY_DESCRIPTOR = os.open in os.supports_dir_fd and os.mkdir in os.supports_dir_fd
_LINK_ERRNOS = (errno.ELOOP, errno.EMLINK)
"""What ``O_NOFOLLOW`` meeting a symlink raises: ELOOP (Linux, macOS), EMLINK (FreeBSD)."""


class WriteRefused(OSError):
    """A path turned out to be a link (or unusable) at write time; what was created is undone."""


def refusals(root: Path, create: list[PurePath], append: list[PurePath]) -> list[str]:
    """Why the files ``create`` (new) and ``append`` (new or appended to) cannot be written.

    Paths are relative to ``root``; an empty list means every write may go ahead.
    """
    problems: list[str] = []
    for relative in [*create, *append]:
        problem = _refusal(root, relative, appending=relative in append)
        if problem is not None and problem not in problems:
            problems.append(problem)
    return problems


def _refusal(root: Path, relative: PurePath, *, appending: bool) -> str | None:
    path = root
    for index, part in enumerate(relative.parts):
        path = path / part
        try:
            info = os.lstat(path)
        except OSError:
            return None  # missing (created by the writer) or unreachable (the writer says why)
        last = index == len(relative.parts) - 1
        link = stat.S_ISLNK(info.st_mode)
        if last and not appending:
            return f"not overwriting {path}" + (" (a symlink)" if link else "")
        if link:
            return f"{path} is a symlink; not writing through it"
        if not last and not stat.S_ISDIR(info.st_mode):
            return f"{path} is not a folder"
        if last and not stat.S_ISREG(info.st_mode):
            return f"{path} is not a regular file; not writing to it"
        if last and info.st_nlink > 1:
            return _hard_links(path, info.st_nlink)
    return None


def _hard_links(path: Path, links: int, *, replacing: bool = False) -> str:
    if replacing:
        return f"{path} has {links} hard links; replacing it would leave the other names behind"
    return f"{path} has {links} hard links; appending to it would change the other names too"


class StarterWriter:
    """Writes below ``root`` through descriptors, never through a link; undoes on failure.

    A context manager: leaving it with an exception removes what it created.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._created: list[Path] = []
        self._root_fd: int | None = None

    def __enter__(self) -> StarterWriter:
        self.root.mkdir(parents=True, exist_ok=True)  # the folder the user named
        if _BY_DESCRIPTOR:
            self._root_fd = os.open(self.root, os.O_RDONLY | _DIRECTORY | _COMMON)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if kind is not None:
                self._undo()
        finally:
            if self._root_fd is not None:
                os.close(self._root_fd)

    def _undo(self) -> None:
        for path in reversed(self._created):
            try:
                if path.is_dir() and not path.is_symlink():
                    path.rmdir()  # only if still empty
                else:
                    path.unlink()
            except OSError:
                pass

    def create(self, relative: PurePath, text: str) -> None:
        """A new file (and its missing folders); anything already at the path is refused."""
        path = self.root.joinpath(relative)
        folder = self._folder(relative.parts[:-1])
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _COMMON
        try:
            fd = self._open(folder, relative.parts[-1], flags)
        except FileExistsError:
            raise WriteRefused(f"not overwriting {path}") from None
        finally:
            self._close(folder)
        self._created.append(path)
        try:
            _write_all(fd, text)
        finally:
            os.close(fd)

    def append(self, relative: PurePath, limit: int, edit: Callable[[str], str]) -> str:
        """Append ``edit(existing text)`` to a regular file with one link (created if absent).

        Returns the text that was there. The file is read and appended to through one
        descriptor, judged by ``fstat``, so a swap after :func:`refusals` is refused too.
        """
        path = self.root.joinpath(relative)
        folder = self._folder(relative.parts[:-1])
        flags = os.O_RDWR | os.O_APPEND | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _COMMON
        try:
            try:
                fd = self._open(folder, relative.parts[-1], flags)
            except FileNotFoundError:
                fd = self._open(folder, relative.parts[-1], flags | os.O_CREAT | os.O_EXCL)
                self._created.append(path)
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS:
                raise WriteRefused(f"{path} is a symlink; not writing through it") from None
            raise
        finally:
            self._close(folder)
        try:
            links = os.fstat(fd).st_nlink
            if links > 1:
                raise WriteRefused(_hard_links(path, links))
            existing = read_descriptor(fd, limit)
            if isinstance(existing, Unreadable):
                raise WriteRefused(f"cannot read {path}: {existing}")
            text = existing.decode("utf-8")
            _write_all(fd, edit(text))
        finally:
            os.close(fd)
        return text

    def replace(self, relative: PurePath, limit: int, edit: Callable[[str], str]) -> str:
        """Replace a regular file with one link by ``edit(its text)``; returns the old text.

        The new text is written to a fresh file beside it (``O_EXCL``, the old file's
        permissions) and renamed over it, after checking that the name still holds the
        file that was read: a link, or a file swapped in meanwhile, is refused.
        """
        path = self.root.joinpath(relative)
        folder = self._folder(relative.parts[:-1])
        name = relative.parts[-1]
        partial: str | None = None
        try:
            info, text = self._read_single(folder, name, path, limit)
            new = edit(text)
            partial = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.partial"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _COMMON
            fd = self._open(folder, partial, flags)
            try:
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, stat.S_IMODE(info.st_mode))
                _write_all(fd, new)
            finally:
                os.close(fd)
            now = _lstat(folder, name)
            same = (now.st_dev, now.st_ino, now.st_mtime_ns, now.st_size) == (
                info.st_dev,
                info.st_ino,
                info.st_mtime_ns,
                info.st_size,
            )
            if not same or stat.S_ISLNK(now.st_mode):
                raise WriteRefused(f"{path} changed while it was being edited; not replaced")
            _rename(folder, partial, name)
            partial = None
            return text
        finally:
            if partial is not None:
                with contextlib.suppress(OSError):
                    _unlink(folder, partial)
            self._close(folder)

    def _read_single(
        self, folder: int | Path, name: str, path: Path, limit: int
    ) -> tuple[os.stat_result, str]:
        """The status and text of a regular file with one link, opened without following links."""
        flags = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _COMMON
        try:
            fd = self._open(folder, name, flags)
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS:
                raise WriteRefused(f"{path} is a symlink; not writing through it") from None
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise WriteRefused(f"{path} is not a regular file; not writing to it")
            if info.st_nlink > 1:
                raise WriteRefused(_hard_links(path, info.st_nlink, replacing=True))
            existing = read_descriptor(fd, limit)
            if isinstance(existing, Unreadable):
                raise WriteRefused(f"cannot read {path}: {existing}")
            return info, existing.decode("utf-8")
        finally:
            os.close(fd)

    # ----------------------------------------------------------------- descriptors
    def _folder(self, parts: tuple[str, ...]) -> int | Path:
        """The folder ``parts`` below the root, made if missing, entered without following links."""
        if self._root_fd is None:
            return self._folder_by_path(parts)
        fd = os.dup(self._root_fd)
        path = self.root
        try:
            for part in parts:
                path = path / part
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                    self._created.append(path)
                except FileExistsError:
                    pass
                try:
                    child = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _COMMON, dir_fd=fd)
                except OSError as exc:
                    if exc.errno in (*_LINK_ERRNOS, errno.ENOTDIR):  # Linux: ENOTDIR for a link
                        raise WriteRefused(_not_a_folder(path, part, fd)) from None
                    raise
                os.close(fd)
                fd = child
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _folder_by_path(self, parts: tuple[str, ...]) -> Path:
        """Without ``dir_fd`` (Windows): folders by name, each checked not to be a link."""
        for depth in range(1, len(parts) + 1):
            step = self.root.joinpath(*parts[:depth])
            try:
                step.mkdir()
                self._created.append(step)
            except FileExistsError:
                pass
            if step.is_symlink():
                raise WriteRefused(f"{step} is a symlink; not writing through it")
        return self.root.joinpath(*parts)

    @staticmethod
    def _open(folder: int | Path, name: str, flags: int) -> int:
        if isinstance(folder, Path):
            return os.open(folder / name, flags, 0o666)
        return os.open(name, flags, 0o666, dir_fd=folder)

    @staticmethod
    def _close(folder: int | Path) -> None:
        if not isinstance(folder, Path):
            os.close(folder)


def _lstat(folder: int | Path, name: str) -> os.stat_result:
    if isinstance(folder, Path):
        return os.lstat(folder / name)
    return os.stat(name, dir_fd=folder, follow_symlinks=False)


def _rename(folder: int | Path, source: str, target: str) -> None:
    if isinstance(folder, Path):
        os.replace(folder / source, folder / target)
    else:
        os.replace(source, target, src_dir_fd=folder, dst_dir_fd=folder)


def _unlink(folder: int | Path, name: str) -> None:
    if isinstance(folder, Path):
        os.unlink(folder / name)
    else:
        os.unlink(name, dir_fd=folder)


def _not_a_folder(path: Path, name: str, dir_fd: int) -> str:
    try:
        link = stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        link = False
    return f"{path} is a symlink; not writing through it" if link else f"{path} is not a folder"


def _write_all(fd: int, text: str) -> None:
    data = text.encode("utf-8")
    while data:
        data = data[os.write(fd, data) :]
