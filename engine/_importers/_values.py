"""Values a manifest cannot hold, found before anything is written.

JSON allows what the manifest reader refuses (it is strict so that every
consumer reads a manifest the same way): integers outside the signed 64-bit
range (TD214 when loading), numbers that are not finite, and strings with
lone UTF-16 surrogates, which UTF-8 cannot encode. A definition holding one
is skipped with a clear reason instead of producing a file that does not load.
"""

from __future__ import annotations

import math
from typing import Any

from .._yaml import MAX_INTEGER, MIN_INTEGER

__all__ = ["unwritable"]


def unwritable(value: Any) -> str | None:
    """Why ``value`` (any JSON-like data) cannot be written to a manifest, or None."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, bool) or node is None:
            continue
        if isinstance(node, int):
            if not MIN_INTEGER <= node <= MAX_INTEGER:
                return f"the integer {str(node)[:30]}... is outside the 64-bit range manifests hold"
        elif isinstance(node, float):
            if not math.isfinite(node):
                return f"the number {node} is not finite"
        elif isinstance(node, str):
            if not node.isascii() and not _encodable(node):
                return "a string holds a lone UTF-16 surrogate, which UTF-8 cannot encode"
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
