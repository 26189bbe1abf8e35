"""Handler modules read as source, never imported: what ``tooldeck lint --static`` resolves.

``source`` and ``file``: find and read a module's file, bounded; ``bindings``, ``values``,
``classes``, ``mro``, ``walker``: what names in that source stand for; ``resolve``:
``module:attr.path`` references; ``types``: annotations into typing objects; ``markers``:
values the readers share.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .resolve import StaticResolver

__all__ = [
    "StaticResolver",
]

_EXPORTS: dict[str, str] = {
    "StaticResolver": ".resolve",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
