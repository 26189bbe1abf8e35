"""A validated manifest document -> the specs of one :class:`Bundle`, every problem located.

``builder``: :func:`build_bundle`, one file's entries (tools and prompts with handlers
resolved and each prepared once, MCP servers, web search) and whether the file is active;
``params``: parameter entries -> descriptors, a mistake located by its field path;
``use``: ``use: SERVER/TOOL`` entries; ``resources``: ``resources:`` entries, prepared.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .builder import Bundle, build_bundle
    from .params import param_entry
    from .resources import key_path
    from .use import not_attached

__all__ = [
    "Bundle",
    "build_bundle",
    "key_path",
    "not_attached",
    "param_entry",
]

_EXPORTS: dict[str, str] = {
    "Bundle": ".builder",
    "build_bundle": ".builder",
    "key_path": ".resources",
    "not_attached": ".use",
    "param_entry": ".params",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
