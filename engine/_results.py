"""Handler return values -> the text a model reads.

``str`` goes back as-is, ``None`` as a short success text, everything else
as JSON (dataclasses, pydantic models, paths, dates, enums, sets included).
``bytes`` are refused: a model cannot read them and silently decoding them
would hide the handler's bug. Shaping (JMESPath ``select``, ``format``,
``max_chars``) is applied here too, compiled once per tool.

An :class:`~tooldeck.Image`, :class:`~tooldeck.Audio` or :class:`~tooldeck.File`
anywhere in a value raises :class:`MediaFound` from the JSON encoder's fallback,
which only values with no JSON form reach: a plain result pays nothing for the
check, and the call's shaping step (:mod:`tooldeck._mediaresult`) takes over.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import uuid
from collections.abc import Callable, Mapping, Set
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from ._media import Media
from ._model import ResultSpec
from ._words import plural

__all__ = [
    "SUCCESS_TEXT",
    "MediaFound",
    "ResultShaper",
    "UnserializableResult",
    "to_jsonable",
    "to_text",
]

SUCCESS_TEXT = "Success."
"""What the model reads when a handler returns ``None``."""


class UnserializableResult(TypeError):
    """The handler returned something that has no text form for a model."""


class MediaFound(UnserializableResult):
    """The value holds an Image, Audio or File: a result of content blocks, not one text.

    Raised from the encoder's fallback so a plain result never pays for looking;
    where media cannot go (a prompt's text), it is an unserialisable result.
    """

    def __init__(self) -> None:
        super().__init__(
            "an Image, Audio or File can only be a tool's result (by itself or as an item of "
            "a list), not part of a text"
        )


def _default(value: Any) -> Any:
    if isinstance(value, Media):
        raise MediaFound
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, PurePath | uuid.UUID | Decimal):
        return str(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Set):
        items = list(value)
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, bytes | bytearray | memoryview):
        raise UnserializableResult(
            "the tool returned bytes, which cannot be sent to a model; "
            "return text (decoded) or a dict with base64 data instead",
        )
    raise UnserializableResult(
        f"the tool returned a {type(value).__name__}, which is not JSON-serialisable",
    )


_ENCODER = json.JSONEncoder(ensure_ascii=False, default=_default, allow_nan=False)


def _dumps(value: Any) -> str:
    try:
        return _ENCODER.encode(value)
    except ValueError as exc:  # NaN / infinity, circular references
        raise UnserializableResult(f"the tool's result is not valid JSON: {exc}") from exc


def to_text(value: Any) -> str:
    """The model-facing text for a handler's return value."""
    if isinstance(value, str):
        return value
    if value is None:
        return SUCCESS_TEXT
    if isinstance(value, bytes | bytearray | memoryview):
        _default(value)
    return _dumps(value)


def to_jsonable(value: Any) -> Any:
    """Plain JSON data (dict/list/str/...) for a return value, for JMESPath."""
    if isinstance(value, str | int | float | bool | type(None)):
        return value
    return json.loads(_dumps(value))


class ResultShaper:
    """Applies a :class:`ResultSpec` to return values; compiled once per tool."""

    def __init__(self, spec: ResultSpec) -> None:
        self.spec = spec
        self._select: Callable[[Any], Any] | None = None
        if spec.select:
            import jmespath

            expression = jmespath.compile(spec.select)
            self._select = expression.search

    def __call__(self, value: Any) -> str:
        if self._select is not None:
            value = self._select(to_jsonable(value))
        text = _dumps(value) if self.spec.format == "json" else to_text(value)
        return self.cut(text)

    def cut(self, text: str) -> str:
        """``text`` within ``max_chars``, with a marker saying how much was cut."""
        limit = self.spec.max_chars
        if limit is not None and len(text) > limit:
            # The marker starts with "\n[...": Secrets.redact (run by the registry on
            # every result) recognises a secret cut off right before it.
            cut = len(text) - limit
            text = f"{text[:limit]}\n[... truncated {plural(cut, 'character')}; ask for less]"
        return text
