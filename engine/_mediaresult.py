"""A result holding images, audio or files: its content blocks, read and capped.

:func:`shape_media` runs when the JSON encoder met a :class:`~tooldeck.Image`,
:class:`~tooldeck.Audio` or :class:`~tooldeck.File` in a handler's value
(:class:`~tooldeck._results.MediaFound`), so plain results never come here. It
turns the value into content blocks, in order: text parts (``str`` items as
they are, other items as a whole result would be: ``select``, ``format``) and
media with their bytes. Every text part is cut to ``max_chars``; JMESPath
``select`` applies to data items only, since a caption or an image has no JSON
to select from. The model-facing text is the parts joined by newlines, each
media object as its notice (``[image: image/png, 12.3 KB]``).

Caps. A result's media together may hold at most the registry's
``max_media_bytes`` (:data:`~tooldeck._media.DEFAULT_MAX_MEDIA_BYTES`): more fails the call with
``result_too_large``. A path is never read past what is left of that budget.

Paths are read inside the project directory exactly as the built-in file tools
read: :class:`tooldeck.handlers._confined.Project` (no escape by ``..`` or a
symlink, regular files only, never blocking on a FIFO). It is imported by name
when a path is first read, not moved here: the mechanism is security-critical,
reviewed and tested in one place (with its platform fallbacks), and the core
reaches it only on this rare route, so ``import tooldeck`` and plain calls
never load it.
"""

from __future__ import annotations

import importlib
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import ToolFailed
from ._media import Media, human_size
from ._results import MediaFound, to_text

if TYPE_CHECKING:
    from ._results import ResultShaper

__all__ = ["MediaRefused", "shape_media"]

_CONFINED = ".handlers._confined"
"""The file tools' confinement module, relative to the package (see the module docstring)."""


class MediaRefused(Exception):
    """The value's media cannot be sent; ``kind`` and ``message`` make the failed result."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def shape_media(
    value: Any, shaper: ResultShaper | None, project_dir: Path | None, cap: int
) -> tuple[str, tuple[str | Media, ...]]:
    """``(text, content)`` for a value holding media; :class:`MediaRefused` if it cannot be sent."""
    if isinstance(value, Media):
        items: Any = (value,)
    elif type(value) in {list, tuple}:
        items = value
    else:
        raise MediaRefused(
            "execution_error",
            f"the tool returned an Image, Audio or File inside a {type(value).__name__}; "
            "return it by itself or as an item of a list (with text items around it)",
        )
    budget = cap
    content: list[str | Media] = []
    for item in items:
        if isinstance(item, Media):
            loaded = _load(item, project_dir, budget, cap)
            budget -= loaded.size
            content.append(loaded)
        elif isinstance(item, str):
            content.append(item if shaper is None else shaper.cut(item))
        else:
            try:
                content.append(to_text(item) if shaper is None else shaper(item))
            except MediaFound:
                raise MediaRefused(
                    "execution_error",
                    "the tool returned an Image, Audio or File nested inside an item; "
                    "put it directly in the returned list",
                ) from None
    text = "\n".join(part if isinstance(part, str) else part.notice() for part in content)
    return text, tuple(content)


def _too_large(media: Media, size: str, cap: int, more: bool) -> MediaRefused:
    """``result_too_large``: ``size`` is the object's (``"12.0 MB"``, ``"over 10.0 MB"``)."""
    what = f"{media.kind} {media.path!r}" if media.path is not None else f"the {media.kind}"
    also = " together with the result's other media" if more else ""
    return MediaRefused(
        "result_too_large",
        f"the tool's result is too large: {what} ({size}){also} is over the limit of "
        f"{human_size(cap)} for a result's media (max_media_bytes); ask for something smaller",
    )


def _load(media: Media, project_dir: Path | None, budget: int, cap: int) -> Media:
    """``media`` with its bytes, within ``budget``: read from its path, or as given."""
    if media.data is not None:
        if len(media.data) > budget:
            raise _too_large(media, human_size(len(media.data)), cap, budget < cap)
        return media
    assert media.path is not None
    data = _read(media, media.path, project_dir, budget, cap)
    try:
        return media.loaded(data)
    except ValueError as exc:
        raise MediaRefused("execution_error", str(exc)) from None


def _read(media: Media, path: str, project_dir: Path | None, budget: int, cap: int) -> bytes:
    """The bytes of ``path`` inside the project, at most ``budget`` of them (never more read)."""
    what = f"the tool's {media.kind} {path!r}"
    if project_dir is None:
        raise MediaRefused(
            "execution_error",
            f"{what} cannot be read: paths are read inside the project directory and this "
            "registry has none (ToolRegistry(project_dir=...) or --project-dir); "
            "the tool may return data=... instead",
        )
    confined: Any = importlib.import_module(_CONFINED, __package__)
    try:
        with confined.Project(project_dir) as project, project.opened(path) as (fd, st, rel):
            if not stat.S_ISREG(st.st_mode):
                raise MediaRefused("execution_error", f"{what} is not a regular file")
            if st.st_size > budget:
                raise _too_large(media, human_size(st.st_size), cap, budget < cap)
            with project.reader(fd, rel) as stream:
                data: bytes = stream.read(budget + 1)
    except PermissionError:
        raise MediaRefused(
            "execution_error", f"{what} is outside the project directory; it was not read"
        ) from None
    except FileNotFoundError:
        raise MediaRefused(
            "execution_error", f"{what} does not exist in the project directory"
        ) from None
    except (OSError, ValueError) as exc:
        raise MediaRefused("execution_error", f"{what} cannot be read: {exc}") from None
    except ToolFailed as exc:  # a system without the descriptor API the confinement needs
        raise MediaRefused(exc.kind, f"{what} cannot be read: {exc.message}") from None
    if len(data) > budget:  # it grew since it was measured
        raise _too_large(media, f"over {human_size(budget)}", cap, budget < cap)
    return data
