"""The file behind a file-backed resource (``resources: [{file: README.md}]``), read confined.

A file resource names its file in the manifest, not the client, but the file
itself is untrusted all the same: a pull request or another process can make
it a symlink out of the project, a FIFO, or something huge. It is read exactly
as the file tools read (:mod:`tooldeck.handlers._confined`): the opened
descriptor must be inside the project and a regular file, opening never
blocks, and at most ``max_bytes`` are read.
"""

import stat
from pathlib import Path

from ._confined import Project

__all__ = ["probe_project_file", "read_project_file"]


def read_project_file(path: str, project_dir: Path, max_bytes: int) -> bytes:
    """The bytes of ``path`` (relative to ``project_dir``), at most ``max_bytes`` of them.

    Raises FileNotFoundError, PermissionError (outside the project) or ValueError
    (not a regular file, larger than ``max_bytes``) with words for the client.
    """
    with Project(project_dir) as project, project.opened(path) as (fd, st, rel):
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{rel!r} is not a regular file; a resource file must be one")
        if st.st_size > max_bytes:
            raise ValueError(_too_large(rel, max_bytes))
        with project.reader(fd, rel) as f:
            data = f.read(max_bytes + 1)  # never past the cap, however the file grew
        if len(data) > max_bytes:
            raise ValueError(_too_large(rel, max_bytes))
        return data


def file_stamp(path: str, project_dir: Path) -> tuple[int, int, int] | None:
    """(device, inode, mtime_ns + size) of ``path`` inside the project, or None if it cannot be
    seen: what a subscription compares to tell that a file-backed resource changed."""
    try:
        with Project(project_dir) as project, project.opened(path) as (_, st, _):
            return (st.st_dev, st.st_ino, st.st_mtime_ns ^ (st.st_size << 1))
    except (OSError, ValueError):
        return None


def probe_project_file(path: str, project_dir: Path, max_bytes: int) -> tuple[str, str] | None:
    """Why ``path`` could not be served now, or None when it could (what ``tooldeck lint`` asks).

    ``("missing", why)`` when nothing is there; ``("unreadable", why)`` when something is but a
    read would be refused: a symlink out of the project, not a regular file (a FIFO, a device,
    a folder), larger than ``max_bytes``. Opened as a read would open it (never blocking, the
    descriptor checked to be inside the project), and nothing is read.
    """
    try:
        with Project(project_dir) as project, project.opened(path) as (_, st, rel):
            if not stat.S_ISREG(st.st_mode):
                return ("unreadable", f"{rel!r} is {_kind_of(st.st_mode)}, not a regular file")
            if st.st_size > max_bytes:
                return ("unreadable", _too_large(rel, max_bytes))
            return None
    except FileNotFoundError:
        return ("missing", f"{path!r} does not exist in the project directory")
    except PermissionError:
        return ("unreadable", f"{path!r} leads outside the project directory (a symlink?)")
    except (OSError, ValueError) as exc:
        return ("unreadable", str(exc))


def _kind_of(mode: int) -> str:
    for test, words in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return words
    return "a special file"


def _too_large(rel: str, limit: int) -> str:
    return f"{rel!r} is larger than {limit:,} bytes, the most a resource may hold"
