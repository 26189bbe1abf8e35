"""A validated manifest document -> the specs of one :class:`Bundle`, every problem located.

``document``: :func:`build_bundle`, one file's entries in order, and whether the file is
active; ``builder``: tools and prompts, handlers resolved, each prepared once; ``use``:
``use: SERVER/TOOL`` entries; ``servers``: MCP servers and web search; ``params``:
parameter entries -> descriptors, and where a nested one is written; ``bundle``: the result.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .bundle import Bundle
    from .document import build_bundle
    from .params import param_descriptor
    from .use import not_attached

__all__ = [
    "Bundle",
    "build_bundle",
    "not_attached",
    "param_descriptor",
]

_EXPORTS: dict[str, str] = {
    "Bundle": ".bundle",
    "build_bundle": ".document",
    "not_attached": ".use",
    "param_descriptor": ".params",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
