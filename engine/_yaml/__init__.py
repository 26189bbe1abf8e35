"""The YAML reader every file tooldeck reads goes through: manifests, configuration, project
and lint settings, importers.

Hardened PyYAML (``loader``: safe loader, memoised resolver; ``depth``: a nesting bound
proved before composing; ``convert``: nodes -> JSON-like values under caps), positions kept
for every node (``document``: :class:`YamlDocument`, ``locate``), syntax errors in words
(``hints``), and ``source``: one file read whole, safely.
"""

import typing

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .source import (
        MAX_BYTES,
        MAX_DEPTH,
        MAX_INTEGER,
        MIN_INTEGER,
        YamlDocument,
        parse_yaml_text,
        read_yaml,
    )

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_INTEGER",
    "MIN_INTEGER",
    "YamlDocument",
    "parse_yaml_text",
    "read_yaml",
]

_EXPORTS: dict[str, str] = {
    "MAX_BYTES": ".source",
    "MAX_DEPTH": ".source",
    "MAX_INTEGER": ".source",
    "MIN_INTEGER": ".source",
    "YamlDocument": ".source",
    "parse_yaml_text": ".source",
    "read_yaml": ".source",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
