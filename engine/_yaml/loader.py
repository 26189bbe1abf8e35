"""The loader manifests are composed with: PyYAML's safe loader with a memoised resolver.

libyaml composes in C but asks the Python resolver for the tag of every node;
:class:`_Loader` answers from its own copy of PyYAML's implicit resolvers and
remembers the tag of short plain scalars. This module also names the tags
(``_STR``, ``_MAP``, ``_MERGE`` ...) the nodes it composes carry.

Separate because it is the one place that knows how PyYAML resolves tags:
the depth scan (:mod:`tooldeck._yaml.depth`), the conversion
(:mod:`tooldeck._yaml.convert`) and the node lookups of
:mod:`tooldeck._yaml.document` all read nodes it composed. The names
keep the underscore they had in :mod:`tooldeck._yaml.source`: they are
internals of the YAML reader, not an API.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

__all__ = [
    "_BOOL",
    "_FLOAT",
    "_INT",
    "_MAP",
    "_MERGE",
    "_NULL",
    "_SEQ",
    "_STR",
    "_TIMESTAMP",
    "_BaseLoader",
    "_Loader",
]

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_TAG + t for t in ("str", "int", "float", "bool", "null"))
_SEQ, _MAP, _TIMESTAMP = _TAG + "seq", _TAG + "map", _TAG + "timestamp"
_MERGE = _TAG + "merge"

_RESOLVERS: dict[Any, list[tuple[str, re.Pattern[str]]]] = {
    first: list(entries) for first, entries in _BaseLoader.yaml_implicit_resolvers.items()
}
"""PyYAML's implicit resolvers (YAML 1.1 ``yes``/``1_000``/``~``...), copied at import."""
_PLAIN_TAGS: dict[str, str] = {}
"""Plain scalar text -> its resolved tag, for short texts (keys, types, numbers) seen before."""
_PLAIN_MEMO_CHARS = 64
_PLAIN_MEMO_SIZE = 20_000


def _plain_tag(value: str) -> str:
    """What PyYAML's ``BaseResolver.resolve`` gives a plain (unquoted) scalar."""
    tag = _PLAIN_TAGS.get(value)
    if tag is not None:
        return tag
    tag = _STR
    candidates = _RESOLVERS.get(value[:1], [])
    for resolved, pattern in candidates + _RESOLVERS.get(None, []):
        if pattern.match(value):
            tag = resolved
            break
    if len(value) <= _PLAIN_MEMO_CHARS and len(_PLAIN_TAGS) < _PLAIN_MEMO_SIZE:
        _PLAIN_TAGS[value] = tag
    return tag


class _Loader(_BaseLoader):  # type: ignore[misc]
    """The safe loader with a memoised resolver: every node gets the tag PyYAML's gives.

    libyaml composes in C but asks the Python resolver for the tag of every
    node; PyYAML's resolver tries its regular expressions on each plain
    scalar again (a 1,000-tool catalogue has ~30,000, mostly the same few
    hundred keys and values), about a fifth of the compose time. Here the tag of
    a short plain scalar is remembered, and the resolver tables are this
    class's own copies (no path resolvers, the implicit ones copied at
    import), so a library registering resolvers on PyYAML's shared loader
    classes changes neither manifests nor the memo.
    """

    yaml_implicit_resolvers = _RESOLVERS
    yaml_path_resolvers: dict[Any, Any] = {}  # noqa: RUF012 - PyYAML's class-level table

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            return _plain_tag(value) if implicit[0] else _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP
