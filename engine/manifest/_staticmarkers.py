"""Values shared by the readers of annotations and classes (``lint --static``).

Markers stand for names static reading recognises but never imports
(``pydantic.BaseModel``), or for forms it rebuilds itself (``TypedDict``,
``NamedTuple``, ``NewType``); :class:`Unknown` says why a part could not be
rebuilt.
"""

from __future__ import annotations

__all__ = [
    "NAMEDTUPLE",
    "NEWTYPE",
    "PYDANTIC_FIELD",
    "PYDANTIC_MODEL",
    "RUNTIME",
    "TYPEDDICT",
    "Unknown",
]


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


PYDANTIC_MODEL = _Marker("pydantic.BaseModel")
"""Stands for ``pydantic.BaseModel`` (never imported here)."""
PYDANTIC_FIELD = _Marker("pydantic.Field")
TYPEDDICT = _Marker("typing.TypedDict")
NAMEDTUPLE = _Marker("typing.NamedTuple")
NEWTYPE = _Marker("typing.NewType")
RUNTIME = _Marker("computed at run time")
"""A default only running the module gives: optional, with no value shown."""


class Unknown(Exception):
    """An annotation part static reading cannot rebuild; the message says which."""
