"""Small helpers for reading handler signatures and type hints.

Shared by inference (hints -> descriptors) and conversion (JSON -> hinted
Python values) so both read ``Annotated``/``Optional`` the same way.
"""

from __future__ import annotations

import contextlib
import inspect
import types
import typing
import weakref
from collections.abc import Callable
from typing import Any, Union

__all__ = [
    "is_abc_origin",
    "is_context_annotation",
    "signature_of",
    "split_optional",
    "unwrap_annotated",
]


def signature_of(handler: Callable[..., Any]) -> inspect.Signature | None:
    """The handler's signature with string annotations evaluated where possible.

    Cached per handler: a catalogue often points many tools at a few handlers.
    """
    try:
        return _SIGNATURES[handler]
    except (KeyError, TypeError):
        pass
    signature = _signature(handler)
    with contextlib.suppress(TypeError):  # not weak-referenceable or hashable: not cached
        _SIGNATURES[handler] = signature
    return signature


_SIGNATURES: weakref.WeakKeyDictionary[Any, inspect.Signature | None] = weakref.WeakKeyDictionary()


def _signature(handler: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(handler, eval_str=True)
    except (NameError, TypeError, SyntaxError):
        try:
            return inspect.signature(handler)
        except (TypeError, ValueError):
            return None
    except ValueError:
        return None


def unwrap_annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """``Annotated[T, a, b]`` -> ``(T, (a, b))``; anything else -> ``(annotation, ())``."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *metadata = typing.get_args(annotation)
        return base, tuple(metadata)
    return annotation, ()


def split_optional(annotation: Any) -> tuple[Any, bool]:
    """``Optional[T]`` -> ``(T, True)``; ``A | B | None`` -> ``(A | B, True)``."""
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        args = typing.get_args(annotation)
        rest = tuple(a for a in args if a is not type(None))
        if len(rest) < len(args):
            if len(rest) == 1:
                return rest[0], True
            return Union[rest], True  # noqa: UP007 - rebuilding a runtime union
    return annotation, False


def is_context_annotation(annotation: Any) -> bool:
    """True when a parameter asks for the call's :class:`tooldeck.ToolContext`."""
    from ._calltypes import ToolContext

    base, _ = unwrap_annotated(annotation)
    base, _ = split_optional(base)
    return base is ToolContext or base == "ToolContext"


def is_abc_origin(origin: Any, *names: str) -> bool:
    """Whether ``origin`` is one of the named collections.abc classes (or its Mutable twin)."""
    from collections import abc

    if origin is None:
        return False
    candidates = [getattr(abc, prefix + name, None) for name in names for prefix in ("", "Mutable")]
    return any(origin is c for c in candidates if c is not None)
