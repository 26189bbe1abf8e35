"""Values shared by the readers of annotations and classes (``lint --static``).

Markers stand for names static reading recognises but never imports
(``pydantic.BaseModel``), or for forms it rebuilds itself (``TypedDict``,
``NamedTuple``, ``NewType``); :class:`Unknown` says why a part could not be
rebuilt. :func:`clip` and :func:`small` keep the work on one expression
bounded, however large the pull request makes it.
"""

from __future__ import annotations

import ast

__all__ = [
    "NAMEDTUPLE",
    "NEWTYPE",
    "PYDANTIC_FIELD",
    "PYDANTIC_MODEL",
    "RUNTIME",
    "TYPEDDICT",
    "Unknown",
    "clip",
    "small",
]

_SHOWN_NODES = 200
"""Expressions with more nodes than this are named, not quoted, in messages."""


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


def small(node: ast.AST, most: int) -> bool:
    """Whether ``node`` has at most ``most`` nodes (counting stops there: bounded time)."""
    count, stack = 0, [node]
    while stack:
        count += 1
        for child in ast.iter_child_nodes(stack.pop()):  # a generator: stops with the count
            stack.append(child)
            if count + len(stack) > most:
                return False
    return True


def clip(node: ast.AST, limit: int = 60) -> str:
    """Up to ``limit`` characters of ``node``'s source text, for a message, in bounded time.

    ``ast.unparse`` takes time in the whole expression, which a pull request
    can make a megabyte long and name in every parameter of every tool; a
    large one is described instead.
    """
    line = getattr(node, "lineno", "?")
    if small(node, _SHOWN_NODES):
        try:
            return ast.unparse(node)[:limit]
        except (RecursionError, ValueError):
            pass
    return f"<a large {type(node).__name__} expression, line {line}>"
