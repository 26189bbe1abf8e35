"""Images, audio and files a handler returns: :class:`Image`, :class:`Audio`, :class:`File`.

A handler returns one of them, or a list/tuple mixing them with text, and the
result carries them as content blocks (:attr:`tooldeck.ToolResult.content`):
``tooldeck serve`` sends MCP image, audio and embedded-resource content, the
model loop the shapes the OpenAI API accepts, and :attr:`ToolResult.text
<tooldeck.ToolResult.text>` holds a short notice in their place
(``[image: image/png, 12.3 KB]``) so everything that reads text keeps working.

Mistakes of the handler's author (``data`` that is not bytes, both or neither
of ``data`` and ``path``, an ``Image`` whose type is not ``image/*``) raise
here, at construction, where the traceback points at the handler's line. What
depends on the registry (the file behind ``path``, the size cap) is judged when
the result is shaped, and fails that call with words for the model
(:mod:`tooldeck._mediaresult`). Pure data: no provider or MCP import.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar, Final

__all__ = [
    "DEFAULT_MAX_MEDIA_BYTES",
    "Audio",
    "File",
    "Image",
    "Media",
    "guess_mime",
    "human_size",
    "is_textual",
    "redact_content",
    "sniff_mime",
]

DEFAULT_MAX_MEDIA_BYTES: Final = 10 * 1024 * 1024
"""10 MiB, the default ``ToolRegistry(max_media_bytes=...)``: a screenshot, a chart, a few
PDF pages or a minute of speech fit, while one result cannot balloon a server's memory or
a transcript the model loop sends again on every turn (base64 adds a third: 10 MiB is
~13.3 MiB of JSON). Providers cap lower per image anyway (Anthropic: 5 MB)."""

_SUFFIXES: Final = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".bmp": "image/bmp",
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".aac": "audio/aac",
    ".pdf": "application/pdf",
    ".json": "application/json",
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".html": "text/html",
    ".xml": "application/xml",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".zip": "application/zip",
}
"""The common suffixes, answered the same on every machine (``mimetypes`` reads the
system's tables, which differ); anything else falls back to ``mimetypes``."""

_MAGIC: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"fLaC", "audio/flac"),
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
    (b"\xff\xfb", "audio/mpeg"),
    (b"\xff\xf3", "audio/mpeg"),
    (b"\xff\xf2", "audio/mpeg"),
)


def sniff_mime(data: bytes) -> str | None:
    """The type the first bytes of ``data`` announce, for the common formats; None if unknown."""
    if data[:4] == b"RIFF" and data[8:12] in {b"WEBP", b"WAVE"}:
        return "image/webp" if data[8:12] == b"WEBP" else "audio/wav"
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    return None


def guess_mime(name: str) -> str | None:
    """The type a file name's suffix suggests; None if it suggests none."""
    suffix = os.path.splitext(name)[1].lower()
    if not suffix:
        return None
    known = _SUFFIXES.get(suffix)
    if known is not None:
        return known
    import mimetypes

    return mimetypes.guess_type(name, strict=True)[0]


def is_textual(mime: str) -> bool:
    """Whether content of type ``mime`` is text: ``text/*``, JSON, XML and YAML."""
    main, _, sub = mime.partition(";")[0].strip().lower().partition("/")
    return (
        main == "text"
        or sub in {"json", "xml", "yaml", "x-yaml"}
        or sub.endswith(("+json", "+xml"))
    )


def _check_mime(mime: Any) -> str:
    if not isinstance(mime, str):
        raise TypeError(f"mime_type must be a str like 'image/png', not {type(mime).__name__}")
    main, slash, sub = mime.partition("/")
    if not (slash and main.strip() and sub.strip()) or any(c.isspace() for c in mime.strip()):
        raise ValueError(f"mime_type {mime!r} is not a MIME type like 'image/png'")
    return mime.strip().lower()


def human_size(size: int) -> str:
    """``512 B``, ``12.3 KB``, ``4.0 MB`` (decimal units, as the words say)."""
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.1f} KB"
    return f"{size / 1_000_000:.1f} MB"


class Media:
    """What :class:`Image`, :class:`Audio` and :class:`File` share: bytes, or a project path.

    Immutable. ``data`` is the content (``None`` for a path not read yet);
    ``path`` is relative to the registry's ``project_dir`` and read, confined
    to it, when the result is shaped; ``mime_type`` is the one given or guessed
    (``None`` while a path's type is still to be read from its first bytes).
    """

    __slots__ = ("data", "mime_type", "name", "path")
    kind: ClassVar[str] = "file"
    family: ClassVar[str | None] = None
    """The main type every ``mime_type`` must have (``"image"``), or None for any."""

    data: bytes | None
    path: str | None
    mime_type: str | None
    name: str | None

    def __init__(
        self,
        data: bytes | bytearray | memoryview | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        if (data is None) == (path is None):
            raise ValueError(
                f"{type(self).__name__} takes either data= (bytes) or path= (a file in the "
                f"project directory), {'not both' if data is not None else 'and got neither'}"
            )
        if data is not None and not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(
                f"{type(self).__name__}(data=...) takes bytes, not {type(data).__name__}; "
                "for a file on disk use path=..."
            )
        if path is not None and not isinstance(path, str | os.PathLike):
            raise TypeError(f"path must be a str or a path, not {type(path).__name__}")
        if name is not None and (not isinstance(name, str) or not name):
            raise TypeError("name must be a non-empty str")
        content = bytes(data) if data is not None else None
        where = os.fspath(path) if path is not None else None
        if mime_type is not None:
            mime: str | None = _check_mime(mime_type)
        elif content is not None:
            mime = sniff_mime(content) or (guess_mime(name) if name else None)
        else:
            mime = guess_mime(where or "")
        self._settle(content, where, mime, name)

    def _settle(
        self, data: bytes | None, path: str | None, mime: str | None, name: str | None
    ) -> None:
        family = self.family
        if mime is None and data is not None:
            if family is not None:
                raise ValueError(
                    f"cannot tell the {self.kind} type of these bytes; pass "
                    f"mime_type='{family}/...'"
                )
            mime = "application/octet-stream"
        if family is not None and mime is not None and not mime.startswith(family + "/"):
            raise ValueError(
                f"{type(self).__name__} takes only {family}/* types, not {mime!r}"
                + (f" (guessed from {path!r})" if path is not None else "")
                + "; use File for other content"
            )
        if name is None and path is not None and self.family is None:
            name = os.path.basename(path) or None
        setter = object.__setattr__
        setter(self, "data", data)
        setter(self, "path", path)
        setter(self, "mime_type", mime)
        setter(self, "name", name)

    def loaded(self, data: bytes) -> Media:
        """This object with its ``path``'s content: ``data`` set, the type read if unknown."""
        copy = object.__new__(type(self))
        mime = self.mime_type or sniff_mime(data)
        if mime is None and self.family is not None:
            raise ValueError(
                f"cannot tell the {self.kind} type of {self.path!r} from its name or "
                f"content; pass mime_type='{self.family}/...'"
            )
        copy._settle(data, self.path, mime, self.name)
        return copy

    @property
    def size(self) -> int:
        """The content's length in bytes (0 while a path is not read)."""
        return len(self.data) if self.data is not None else 0

    def notice(self) -> str:
        """The text a model reads in this object's place: ``[image: image/png, 12.3 KB]``."""
        named = f"{self.name}, " if self.name else ""
        return f"[{self.kind}: {named}{self.mime_type}, {human_size(self.size)}]"

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Media)
        return (self.data, self.path, self.mime_type, self.name) == (
            other.data,
            other.path,
            other.mime_type,
            other.name,
        )

    def __hash__(self) -> int:
        return hash((type(self), self.data, self.path, self.mime_type, self.name))

    def __repr__(self) -> str:
        where = f"path={self.path!r}" if self.path is not None else f"data=<{self.size} bytes>"
        named = f", name={self.name!r}" if self.name is not None and self.family is None else ""
        return f"{type(self).__name__}({where}, mime_type={self.mime_type!r}{named})"


class Image(Media):
    """An image a handler returns: ``Image(data=png_bytes)`` or ``Image(path="chart.png")``.

    The type (``image/*``) is taken from ``mime_type``, else from the bytes or
    the suffix. Sent as MCP image content and as an ``input_image`` to the
    OpenAI Responses API; a model that cannot see it reads its notice.
    """

    __slots__ = ()
    kind = "image"
    family = "image"

    def __init__(
        self,
        data: bytes | bytearray | memoryview | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        mime_type: str | None = None,
    ) -> None:
        super().__init__(data, path=path, mime_type=mime_type)


class Audio(Media):
    """Audio a handler returns: ``Audio(data=wav_bytes)`` or ``Audio(path="note.mp3")``.

    Sent as MCP audio content; the OpenAI API takes no audio in a tool's output,
    so the model loop sends its notice instead.
    """

    __slots__ = ()
    kind = "audio"
    family = "audio"

    def __init__(
        self,
        data: bytes | bytearray | memoryview | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        mime_type: str | None = None,
    ) -> None:
        super().__init__(data, path=path, mime_type=mime_type)


class File(Media):
    """Any file a handler returns, with an optional ``name`` (default: the path's).

    The type is ``mime_type``, else guessed from the bytes or the name, else
    ``application/octet-stream``. Sent as an MCP embedded resource (text for
    ``text/*`` and JSON, a base64 blob otherwise) and as an ``input_file`` to
    the OpenAI Responses API.
    """

    __slots__ = ()


def redact_content(
    content: tuple[str | Media, ...], redact: Callable[[str], str]
) -> tuple[str | Media, ...]:
    """``content`` with ``redact`` applied to its text: the text parts and textual files.

    A text file's content reaches a model as text too (an MCP text resource),
    so a secret in it is masked like one in a text part. Images, audio and
    binary files are sent as they are.
    """
    out: list[str | Media] = []
    for part in content:
        if isinstance(part, str):
            out.append(redact(part))
        elif part.data is not None and part.mime_type and is_textual(part.mime_type):
            try:
                text = part.data.decode("utf-8")
            except UnicodeDecodeError:
                out.append(part)
                continue
            masked = redact(text)
            out.append(part if masked == text else part.loaded(masked.encode("utf-8")))
        else:
            out.append(part)
    return tuple(out)
