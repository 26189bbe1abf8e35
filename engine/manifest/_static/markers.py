"""Values shared by the readers of annotations and classes (``lint --static``).

Markers stand for names static reading recognises but never imports
(``pydantic.BaseModel``), or for forms it rebuilds itself (``TypedDict``,
``NamedTuple``, ``NewType``); :class:`Unknown` says why a part could not be
rebuilt; :func:`known` maps the standard library's typing vocabulary to the
real objects. :func:`clip` and :func:`small` keep the work on one
expression bounded, however large the pull request makes it.
"""

from __future__ import annotations

import ast
import importlib

__all__ = [
    "NAMEDTUPLE",
    "NEWTYPE",
    "PYDANTIC_FIELD",
    "PYDANTIC_MODEL",
    "RUNTIME",
    "STDLIB",
    "TYPEDDICT",
    "Unknown",
    "clip",
    "known",
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


STDLIB = {
    "typing": (
        "Any Optional Union List Dict Tuple Set FrozenSet Sequence MutableSequence Mapping "
        "MutableMapping Iterable Collection AbstractSet Literal Annotated Required NotRequired "
        "ClassVar Final"
    ),
    "collections.abc": (
        "Sequence MutableSequence Mapping MutableMapping Iterable Collection Set MutableSet"
    ),
    "datetime": "date datetime time timedelta",
    "uuid": "UUID",
    "decimal": "Decimal",
    "pathlib": "Path PurePath PosixPath PurePosixPath WindowsPath PureWindowsPath",
    "enum": "Enum IntEnum StrEnum Flag IntFlag auto",
    "dataclasses": "dataclass field",
    "builtins": "int float str bool bytes bytearray complex list dict tuple set frozenset object",
}
_MARKERS: dict[tuple[str, str], object] = {
    ("pydantic", "BaseModel"): PYDANTIC_MODEL,
    ("pydantic.main", "BaseModel"): PYDANTIC_MODEL,
    ("pydantic", "Field"): PYDANTIC_FIELD,
    ("pydantic.fields", "Field"): PYDANTIC_FIELD,
    ("typing", "TypedDict"): TYPEDDICT,
    ("typing", "NamedTuple"): NAMEDTUPLE,
    ("typing", "NewType"): NEWTYPE,
}


def known(module: str, name: str) -> object | None:
    """The object a standard-library (or typing_extensions) name stands for, if known."""
    if module == "typing_extensions":
        module = "typing"
    marker = _MARKERS.get((module, name))
    if marker is not None:
        return marker
    if module in ("tooldeck", "tooldeck._calltypes") and name == "ToolContext":
        from ..._calltypes import ToolContext

        return ToolContext
    if module == "builtins" and name == "None":
        return None
    names = STDLIB.get(module)
    if names is None or name not in names.split():
        return None
    found: object = getattr(importlib.import_module(module), name)
    return found
