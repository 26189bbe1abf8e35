"""Descriptor-verified changes inside the project directory, for the write tools.

The tools themselves are in ``tooldeck.handlers.files_write``; the read side is
:mod:`tooldeck.handlers._confined`, whose checks this module reuses.

A write tool never acts on a path. It acts on a *name inside a verified folder*, a :class:`Slot`:

* the model's path is split into its folder and its final name; the folder is resolved by name
  (following symlinks that stay inside, like the read tools; the advisory check, for a clear
  message), then opened again one component at a time from the project root's descriptor with
  ``O_NOFOLLOW`` (a symlink swapped in after the check fails with ``ELOOP``), creating missing
  folders on the way when asked, and the descriptor reached is verified to be inside the project
  (``/proc/self/fd`` / ``F_GETPATH``);
* the final name is then only ever used relative to that descriptor (``dir_fd=``), and never
  followed: its ``lstat`` says what it is; a regular file is read through an ``O_PATH |
  O_NOFOLLOW`` probe reopened through ``/proc/self/fd``; writes go to a temporary file created
  with ``O_CREAT | O_EXCL | O_NOFOLLOW`` in the same folder and renamed over the name (a rename
  replaces a name, it never follows it); deletes and moves are ``unlinkat``, ``rmdir`` and
  ``renameat`` on the name, so a symlink is removed or moved as a link;
* just before each change the folder's descriptor is verified again, so a folder moved out of the
  project while the tool was running is refused instead of written into.

Folders are removed through descriptors too (:func:`remove_tree`), entering sub-folders with
``O_NOFOLLOW``; what a folder holds is counted and checked first (:func:`census`) so a refusal
(a ``.git`` folder, a protected path, too deep, too big) happens before anything is deleted.
"""

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from ._confined import (
    _LINK_ERRNOS,
    _PROBE_FLAGS,
    _READ_FLAGS,
    MAX_DEPTH,
    Project,
    _is_within,
    _open_no_link,
    _outside,
    _rel,
    _reopen,
    _resolve_inside,
)

__all__ = [
    "MAX_TREE_ENTRIES",
    "Census",
    "Rules",
    "Slot",
    "census",
    "kind_of",
    "make_folder",
    "read_regular",
    "remove_tree",
    "rename",
    "slot",
    "write_replacing",
]

MAX_TREE_ENTRIES = 100_000
"""A folder holding more entries than this is not deleted or moved whole by one call."""
_NEW_FILE_MODE = 0o644  # the kernel applies the umask to it
# getattr: the module must import where these flags do not exist (Windows); Project refuses there
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CREATE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
)  # a fresh file only, never an existing one or a link's target
_SUBDIR_FLAGS = _READ_FLAGS | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW


# --- what may be written ---------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """The operator's limits on where the write tools may act (from the application config)."""

    protect: tuple[str, ...] = ()
    """fnmatch globs over project-relative paths; a path matches if it or a parent folder does."""

    def check(self, rel: str, said: str) -> None:
        """Refuse ``rel`` (project-relative, POSIX) if it is inside ``.git`` or protected."""
        if rel in {"", "."}:
            return
        parts = rel.split("/")
        if any(part.casefold() == ".git" for part in parts):
            raise PermissionError(
                f"{said!r} is inside a .git folder, which the file tools never change (a written "
                "hook or config would run code in the next git command); use git itself"
            )
        for end in range(len(parts), 0, -1):
            prefix = "/".join(parts[:end])
            for glob in self.protect:
                if fnmatchcase(prefix, glob):
                    raise PermissionError(
                        f"{said!r} is protected by the operator's setting tooldeck.files.protect "
                        f"(glob {glob!r}); the file tools may not change it, so leave it as it is"
                    )


# --- a name in a verified folder ---------------------------------------------------------------


@dataclass
class Slot:
    """The final name of a path, in its verified folder (``parent`` None: folders are missing)."""

    project: Project
    parent: int | None
    name: str
    rel: str
    """The name's project-relative path: its folder resolved, the name itself not followed."""
    lstat: os.stat_result | None = None
    """What the name is now, without following it; None if nothing has that name."""
    missing: list[str] = field(default_factory=list)
    """Folders on the way that did not exist (created, unless this is a dry run)."""

    def verify(self) -> int:
        """The folder's descriptor, verified (again) to be inside the project: call before a
        change, so a folder moved out since it was opened is not written into."""
        if self.parent is None or not self.project.confined(self.parent):
            raise PermissionError(
                f"the folder of {self.rel!r} was moved out of the project directory while the tool "
                "ran; nothing was changed"
            )
        return self.parent

    def refresh(self) -> None:
        """Take the name's ``lstat`` again (None if it is gone)."""
        self.lstat = None
        if self.parent is not None:
            with suppress(FileNotFoundError):
                self.lstat = os.stat(self.name, dir_fd=self.parent, follow_symlinks=False)


def kind_of(st: os.stat_result | None) -> str:
    """``missing``, ``file``, ``dir``, ``link`` or ``special`` (FIFO, socket, device)."""
    if st is None:
        return "missing"
    if stat.S_ISLNK(st.st_mode):
        return "link"
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    return "file" if stat.S_ISREG(st.st_mode) else "special"


def _split(root: Path, path: str) -> tuple[str, str]:
    """The folder part and final name of the model's path, refusing the root and ``..`` names."""
    if "\0" in path:
        raise ValueError(f"path {path!r} contains a NUL character; send a plain relative path")
    if path.startswith("~"):
        raise _outside(path)
    if os.path.normpath(os.path.join(root, path)) == str(root):
        raise PermissionError(
            f"{path!r} is the project directory itself, which the file tools never change; "
            "name a file or folder inside it"
        )
    pure = PurePosixPath(path)
    if not pure.name or pure.name == "..":
        raise ValueError(f"path {path!r} does not end in a file or folder name; send one that does")
    return str(pure.parent), pure.name


def _descend(
    project: Project, parts: tuple[str, ...], said: str, *, create: bool
) -> tuple[int | None, list[str]]:
    """Open the folder ``parts`` below the project root without following any symlink.

    Missing folders are created (``mkdirat``) when ``create``; otherwise the walk stops there and
    returns None with the folders that are missing.
    """
    current = os.open(".", _PROBE_FLAGS | os.O_DIRECTORY, dir_fd=project.fd)
    missing: list[str] = []
    try:
        for index, part in enumerate(parts):
            so_far = "/".join(parts[: index + 1])
            try:
                step = _open_no_link(part, _PROBE_FLAGS | os.O_DIRECTORY, current)
            except FileNotFoundError:
                if not create:
                    missing = ["/".join(parts[: i + 1]) for i in range(index, len(parts))]
                    os.close(current)
                    return None, missing
                with suppress(FileExistsError):
                    os.mkdir(part, dir_fd=current)
                missing.append(so_far)
                step = _open_no_link(part, _PROBE_FLAGS | os.O_DIRECTORY, current)
            except NotADirectoryError:
                raise NotADirectoryError(
                    f"{so_far!r} is not a folder, so nothing can be put inside it"
                ) from None
            os.close(current)
            current = step
    except OSError as exc:
        os.close(current)
        if exc.errno in _LINK_ERRNOS:  # a symlink appeared after the by-name check
            raise _outside(said) from None
        raise
    return current, missing


@contextmanager
def slot(
    project: Project, path: str, rules: Rules, *, create_parents: bool = False
) -> Iterator[Slot]:
    """The :class:`Slot` for ``path``; with ``create_parents`` missing folders are created.

    The path is refused if it leaves the project, names the root, or (literally or once its
    folder is resolved) lies in ``.git`` or under a protected glob.
    """
    root = project.root
    folder, name = _split(root, path)
    literal = os.path.normpath(os.path.join(root, path))
    if _is_within(literal, str(root)):
        rules.check(Path(literal).relative_to(root).as_posix(), path)
    try:
        resolved = _resolve_inside(root, folder)
    except PermissionError:
        raise _outside(path) from None
    folder_rel = _rel(root, resolved)
    rel = name if folder_rel == "." else f"{folder_rel}/{name}"
    rules.check(rel, path)
    parts = resolved.relative_to(root).parts
    parent, missing = _descend(project, parts, path, create=create_parents)
    try:
        place = Slot(project, parent, name, rel, missing=missing)
        if parent is not None:
            place.verify()
            place.refresh()
        yield place
    finally:
        if parent is not None:
            os.close(parent)


# --- files -----------------------------------------------------------------------------------


def read_regular(place: Slot, cap: int) -> tuple[bytes, int]:
    """The content (at most ``cap`` + 1 bytes) and permission bits of the regular file there.

    Opened with ``O_PATH | O_NOFOLLOW`` and checked to be a regular file before it is reopened
    for reading, so a symlink, FIFO or device swapped in is never opened for real.
    """
    parent = place.verify()
    try:
        probe = os.open(place.name, _PROBE_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            raise PermissionError(
                f"{place.rel!r} became a symbolic link; nothing was changed"
            ) from None
        raise
    try:
        st = os.fstat(probe)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{place.rel!r} is no longer a regular file; nothing was changed")
        readable = _reopen(probe)
    finally:
        os.close(probe)
    os.set_blocking(readable, True)
    with os.fdopen(readable, "rb") as f:
        return f.read(cap + 1), stat.S_IMODE(st.st_mode) & 0o777


def write_replacing(place: Slot, data: bytes, mode: int | None) -> None:
    """Put ``data`` at the name atomically: a temporary file in the same folder, renamed over it.

    The temporary is created with ``O_EXCL | O_NOFOLLOW`` (a fresh file, never an existing one
    or a link's target), takes ``mode`` (that of the file replaced) or 0o644 less the umask, is
    fsynced, and is removed if anything fails. Readers see the old content or the new, never a
    torn file, and a hard link elsewhere to the old file keeps the old content.
    """
    parent = place.verify()
    temporary = f".tooldeck-{secrets.token_hex(8)}.tmp"
    fd = os.open(temporary, _CREATE_FLAGS, _NEW_FILE_MODE, dir_fd=parent)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, place.name, src_dir_fd=place.verify(), dst_dir_fd=parent)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=parent)
        raise
    _sync_folder(parent)


def _sync_folder(parent: int) -> None:
    """Make the rename durable (best effort: some filesystems cannot fsync a folder)."""
    with suppress(OSError):
        readable = _reopen(parent, directory=True)
        try:
            os.fsync(readable)
        finally:
            os.close(readable)


# --- folders ---------------------------------------------------------------------------------


def make_folder(place: Slot) -> None:
    """Create the folder named by ``place`` (``mkdirat``; its parents exist already)."""
    os.mkdir(place.name, dir_fd=place.verify())


@dataclass
class Census:
    """What a folder holds, counted before it is deleted or moved whole."""

    files: int = 0
    folders: int = 0


def _open_subfolder(dir_fd: int, name: str) -> int:
    return os.open(name, _SUBDIR_FLAGS, dir_fd=dir_fd)


def census(place: Slot, rules: Rules) -> Census:
    """Count everything below the folder ``place`` names, refusing what may not be removed.

    Refused before anything changes: a ``.git`` entry or protected path inside, folders nested
    more than :data:`MAX_DEPTH` deep, more than :data:`MAX_TREE_ENTRIES` entries.
    """
    counted = Census()
    top = _open_subfolder(place.verify(), place.name)
    try:
        _count(place.project, top, place.rel, rules, counted, depth=0)
    finally:
        os.close(top)
    return counted


def _count(
    project: Project, fd: int, rel: str, rules: Rules, counted: Census, *, depth: int
) -> None:
    if not project.confined(fd):
        raise PermissionError(f"{rel!r} was moved out of the project directory; nothing changed")
    with os.scandir(fd) as items:
        entries = [(item.name, item.is_dir(follow_symlinks=False)) for item in items]
    for name, is_dir in entries:
        child_rel = f"{rel}/{name}"
        rules.check(child_rel, child_rel)
        if counted.files + counted.folders >= MAX_TREE_ENTRIES:
            raise ValueError(
                f"{rel!r} holds more than {MAX_TREE_ENTRIES:,} entries, more than one call may "
                "remove or move; do it in parts"
            )
        if not is_dir:
            counted.files += 1
            continue
        counted.folders += 1
        if depth + 1 >= MAX_DEPTH:
            raise ValueError(
                f"{rel!r} has folders nested more than {MAX_DEPTH} deep; remove the deepest first"
            )
        child = _open_subfolder(fd, name)
        try:
            _count(project, child, child_rel, rules, counted, depth=depth + 1)
        finally:
            os.close(child)


def remove_tree(place: Slot) -> None:
    """Delete the folder ``place`` names and everything below it, never following a symlink.

    Each folder is entered through a descriptor opened with ``O_NOFOLLOW`` relative to its
    parent's; entries are removed with ``unlinkat`` / ``rmdir(dir_fd=)``, so a symlink inside is
    removed as a link and what it points to is untouched. FIFOs, sockets and devices are unlinked
    (never opened).
    """
    parent = place.verify()
    top = _open_subfolder(parent, place.name)
    try:
        _empty(top)
    finally:
        os.close(top)
    os.rmdir(place.name, dir_fd=place.verify())


def _empty(fd: int) -> None:
    with os.scandir(fd) as items:
        entries = [(item.name, item.is_dir(follow_symlinks=False)) for item in items]
    for name, is_dir in entries:
        if is_dir:
            try:
                child = _open_subfolder(fd, name)
            except OSError as exc:  # swapped for a symlink or a file since it was listed
                if exc.errno not in {*_LINK_ERRNOS, errno.ENOTDIR}:
                    raise
                os.unlink(name, dir_fd=fd)
                continue
            try:
                _empty(child)
            finally:
                os.close(child)
            os.rmdir(name, dir_fd=fd)
        else:
            os.unlink(name, dir_fd=fd)


def rename(source: Slot, destination: Slot) -> None:
    """``renameat`` the name of ``source`` to that of ``destination`` (both folders verified)."""
    os.rename(
        source.name,
        destination.name,
        src_dir_fd=source.verify(),
        dst_dir_fd=destination.verify(),
    )
