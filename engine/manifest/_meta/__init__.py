"""The manifest meta-schema (``schemas/manifest.schema.json``) applied to documents.

``check``: check a document and locate what breaks; ``compiler``: the fast checker, a
JSON Schema subset compiled into Python functions; ``explain``: what is wrong, and where.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .check import check_document, manifest_schema

__all__ = [
    "check_document",
    "manifest_schema",
]

_EXPORTS: dict[str, str] = {
    "check_document": ".check",
    "manifest_schema": ".check",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
