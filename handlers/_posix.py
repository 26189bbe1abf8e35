"""Whether this system offers the POSIX descriptor API the file tools are built on.

The file tools keep every read and write inside the project by opening paths with
``O_NOFOLLOW`` below a folder descriptor (``dir_fd``, also for ``mkdir``, ``rename``, ``unlink``,
``rmdir`` and ``stat``), never blocking (``O_NONBLOCK | O_NOCTTY``), and asking the kernel
where a descriptor is (``/proc`` on Linux, ``fcntl(F_GETPATH)`` on macOS). Windows has none of
that. The check is made once, at import, without failing: ``import tooldeck`` and every command
that does not call a file tool must work there. A file tool called on such a system answers with
:data:`UNSUPPORTED`, which tells the model not to try again.
"""

import os
from types import ModuleType

__all__ = ["FCNTL", "UNSUPPORTED"]


def _import_fcntl() -> ModuleType | None:
    """``fcntl``, or None where it does not exist (Windows)."""
    try:
        import fcntl
    except ImportError:
        return None
    return fcntl


def _missing_posix_api(fcntl: ModuleType | None) -> list[str]:
    """The pieces of the POSIX descriptor API this system lacks (none on Linux, macOS, BSD)."""
    missing = [] if fcntl is not None else ["the fcntl module"]
    needed_flags = ("O_NOFOLLOW", "O_DIRECTORY", "O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC")
    missing += [f"os.{name}" for name in needed_flags if not hasattr(os, name)]
    for call in (os.open, os.stat, os.mkdir, os.rename, os.unlink, os.rmdir):
        if call not in os.supports_dir_fd:
            missing.append(f"os.{call.__name__}(dir_fd=...)")
    if os.scandir not in os.supports_fd:
        missing.append("os.scandir(fd)")
    return missing


FCNTL = _import_fcntl()
"""The ``fcntl`` module, or None where there is none."""
_MISSING = _missing_posix_api(FCNTL)
UNSUPPORTED: str | None = (
    "the file tools (read_file, list_dir, search_text, file_info, write_file, append_file, "
    "edit_file, move_path, make_dir, delete_path) need a POSIX system (Linux, macOS, BSD or WSL) "
    "to keep every read and write inside the project, and this one lacks "
    f"{', '.join(_MISSING)}; they cannot run here, so do not call them again: answer without "
    "the project's files, or ask the user to run tooldeck on a POSIX system"
    if _MISSING
    else None
)
"""Why the file tools cannot run on this system, in words for the model; None where they can."""
