"""The steps the write tools share: the operator's settings, refusals, diffs and answers.

Kept apart from :mod:`tooldeck.handlers.files_write` so that module holds just the tools (a
manifest references them there); nothing here is a tool.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from tooldeck import ToolFailed

from ._confined import _resolve_inside
from ._confined_write import Rules, Slot, kind_of, read_regular
from ._diff import diff_text
from ._settings import pack_settings

__all__ = [
    "DEFAULT_MAX_WRITE_BYTES",
    "WHAT",
    "answer",
    "decoded",
    "encoded",
    "existing",
    "file_diff",
    "refusals",
    "settings",
    "too_large",
    "writable",
]

DEFAULT_MAX_WRITE_BYTES = 5 * 1024 * 1024
"""The largest file the tools write, unless the operator sets tooldeck.files.max_write_bytes."""
_NOT_ENABLED = (
    "the file-changing tools are turned off. The operator turns them on with "
    "`tooldeck: {files: {write: true}}` in the application config (--config FILE); you cannot "
    "change that setting, so tell the user what you would have changed instead"
)
_WOULD = {
    "created": "would create",
    "replaced": "would replace",
    "appended": "would append",
    "edited": "would edit",
    "unchanged": "unchanged",
    "moved": "would move",
    "deleted": "would delete",
    "exists": "exists",
}
WHAT = {"file": "file", "dir": "folder", "link": "symbolic link"}


# --- the operator's settings -----------------------------------------------------------------


def settings(context: object) -> tuple[int, Rules]:
    """The size cap and rules, after the gate: refuses unless tooldeck.files.write is true.

    The config comes from the engine's ``ToolContext`` only (:mod:`._settings`), so a model
    cannot turn the tools on by sending a config of its own.
    """
    files = pack_settings(context, "files")
    write = files.get("write", False)
    if not isinstance(write, bool):
        raise ToolFailed(
            f"the config key tooldeck.files.write must be true or false, got {write!r}, so the "
            "file-changing tools stay off; tell the user to fix the application config",
            kind="not_enabled",
        )
    if not write:
        raise ToolFailed(_NOT_ENABLED, kind="not_enabled")
    cap = files.get("max_write_bytes", DEFAULT_MAX_WRITE_BYTES)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise ToolFailed(
            "the config key tooldeck.files.max_write_bytes must be a whole number of bytes "
            f"(0 or more), got {cap!r}; tell the user to fix the application config",
            kind="invalid_config",
        )
    protect = files.get("protect", [])
    if not isinstance(protect, list | tuple) or not all(isinstance(g, str) for g in protect):
        raise ToolFailed(
            "the config key tooldeck.files.protect must be a list of glob strings, got "
            f"{protect!r}; tell the user to fix the application config",
            kind="invalid_config",
        )
    return cap, Rules(tuple(protect))


@contextmanager
def refusals() -> Iterator[None]:
    """Turn what the confinement code raises into ToolFailed with a kind the model can act on."""
    try:
        yield
    except ToolFailed:
        raise
    except PermissionError as exc:
        raise ToolFailed(_words(exc), kind="not_permitted") from None
    except FileNotFoundError as exc:
        raise ToolFailed(_words(exc), kind="not_found") from None
    except (ValueError, IsADirectoryError, NotADirectoryError, FileExistsError) as exc:
        raise ToolFailed(_words(exc), kind="invalid_arguments") from None
    except OSError as exc:
        raise ToolFailed(f"the change failed: {_words(exc)}", kind="execution_error") from None


def _words(exc: Exception) -> str:
    """Our own messages as they are; an OS error as its text and the name it is about."""
    if isinstance(exc, OSError) and exc.strerror:
        name = exc.filename
        return f"{exc.strerror} ({name})" if name is not None else exc.strerror
    return str(exc)


def too_large(rel: str, size: int, cap: int) -> ToolFailed:
    return ToolFailed(
        f"{rel!r} would be {size:,} bytes, over the {cap:,}-byte limit on files the tools write "
        "(the operator's tooldeck.files.max_write_bytes); nothing was written: write less",
        kind="too_large",
    )


# --- shared steps ----------------------------------------------------------------------------


def writable(place: Slot, allow_missing: bool = True) -> str:
    """What the name is, refusing anything but a regular file (or nothing, if allowed)."""
    kind = kind_of(place.lstat)
    if kind == "link":
        _resolve_inside(place.project.root, place.rel)  # a link pointing out: "is outside"
        raise PermissionError(f"{place.rel!r} is a symbolic link; edit its target path instead")
    if kind == "dir":
        raise IsADirectoryError(f"{place.rel!r} is a folder; name a file inside it")
    if kind == "special":
        raise ValueError(
            f"{place.rel!r} is a FIFO, socket or device, not a regular file; the file tools "
            "only change regular files"
        )
    if kind == "missing" and not allow_missing:
        raise FileNotFoundError(f"{place.rel!r} does not exist; use write_file to create it")
    return kind


def existing(place: Slot, cap: int, *, text: bool) -> tuple[bytes, int]:
    """The regular file's content and mode; over the cap is too_large, non-UTF-8 refused if
    ``text``."""
    data, mode = read_regular(place, cap)
    if len(data) > cap:
        raise too_large(place.rel, len(data), cap) from None
    if text and decoded(data) is None:
        raise ValueError(
            f"{place.rel!r} is not UTF-8 text (it is binary or in another encoding); only "
            "write_file can change it, by replacing it whole"
        )
    return data, mode


def decoded(data: bytes) -> str | None:
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def encoded(content: str, name: str) -> bytes:
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailed(
            f"{name} holds characters that are not valid Unicode text; send plain text",
            kind="invalid_arguments",
        ) from None


def file_diff(rel: str, old: bytes | None, new: bytes) -> str:
    """The unified diff of a change, or why there is none (binary or non-UTF-8 content)."""
    before = "" if old is None else decoded(old)
    after = decoded(new)
    if before is None or after is None:
        return "binary file, no diff"
    return diff_text(rel, before, after)


def answer(place: Slot, action: str, dry_run: bool, **more: object) -> dict[str, object]:
    """A tool's small answer: the path, what happened (or would), folders created, more."""
    said: dict[str, object] = {"path": place.rel, "action": _WOULD[action] if dry_run else action}
    said.update(more)
    if place.missing:
        said["created_folders" if not dry_run else "would_create_folders"] = place.missing
    if dry_run:
        said["dry_run"] = "nothing was changed"
    return said
