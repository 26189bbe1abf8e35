"""The exported definitions of a registry, kept while the registry does not change.

The model loop exports the registry's tools each time ``run``/``arun``
starts (:func:`~tooldeck.providers._loop.conversation.build_toolbox`), and a web
application starts one ``run`` per user message: exporting compiles every
schema again (strict mode, redaction), a few hundred microseconds a tool,
for the same output. :func:`cached_export` keeps the output of
:func:`~tooldeck.providers.export_tools` and its warnings.

**Where it lives.** Here, in a :class:`weakref.WeakKeyDictionary` keyed by the
registry, one small table per registry: the registry stays free of what the
exporters produce (the core does not know about providers), and a registry
that is collected takes its table with it.

**What the key holds.** Everything the output depends on:
:attr:`~tooldeck.ToolRegistry.generation` (it grows with every change of the
entries, whoever makes it: code, a manifest reload, an attached MCP server
publishing a new listing, and with every secret added), the provider,
``strict``, ``include_hosted``, the selection (tools, bundles, tags, as
given), ``send_credentials`` and ``redact`` (the callable itself: the
registry's ``secrets.redact`` compares equal from one run to the next). The
stale sources are refreshed first, as listing would, so a lazy server's
listing is in the registry before the generation is read; an export that
raced with a change is stored under the generation read before it, which no
later lookup asks for. A new generation never meets an old entry, so a
change can never serve a stale definition.

**Bounded.** At most :data:`MAX_ENTRIES` selections per registry, the least
recently used dropped first; entries of older generations are dropped as soon
as a new one is stored.

**Never shared.** Each caller gets its own copy of the definitions (dicts,
lists and tuples copied, strings and numbers shared): a caller may change what
it got without changing what the next run sends. The copy costs about a tenth
of an export (``benchmarks/loop.py`` measures the loop with it).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any

from . import ExportWarning, export_tools

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = ["MAX_ENTRIES", "cached_export"]

MAX_ENTRIES = 16
"""Selections kept per registry (an application offers a handful of toolsets)."""

_Entry = tuple[int, list[dict[str, Any]], tuple[ExportWarning, ...]]
"""``(generation, definitions, warnings)``."""

_tables: weakref.WeakKeyDictionary[ToolRegistry, OrderedDict[Hashable, _Entry]] = (
    weakref.WeakKeyDictionary()
)
_lock = threading.Lock()


def cached_export(
    registry: ToolRegistry,
    provider: str,
    *,
    strict: bool | None = None,
    include_hosted: bool = True,
    redact: Callable[[str], str] | None = None,
    bundles: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    names: Iterable[str] | None = None,
    send_credentials: bool = False,
) -> tuple[list[dict[str, Any]], tuple[ExportWarning, ...]]:
    """:func:`~tooldeck.providers.export_tools`'s definitions and warnings, from the cache if
    nothing changed; the definitions are the caller's own copy.

    Raises what ``export_tools`` raises (an :class:`~tooldeck.ExportError` is never cached).
    """
    registry.refresh_sources()  # a stale source publishes first: the generation includes it
    generation = registry.generation
    bundles, tags, names = _given(bundles), _given(tags), _given(names)
    key: Hashable | None = (
        provider,
        strict,
        include_hosted,
        redact,
        bundles,
        tags,
        names,
        send_credentials,
    )
    try:
        hash(key)
    except TypeError:  # something unhashable in a selection: export_tools says what
        key = None
    if key is not None:
        with _lock:
            table = _tables.get(registry)
            found = table.get(key) if table is not None else None
            if found is not None and found[0] == generation:
                table.move_to_end(key)  # type: ignore[union-attr]
                return _copied(found[1]), found[2]
    warnings: list[ExportWarning] = []
    definitions = export_tools(
        registry,
        provider,
        strict=strict,
        include_hosted=include_hosted,
        redact=redact,
        bundles=bundles,
        tags=tags,
        names=names,
        warnings=warnings,
        send_credentials=send_credentials,
    )
    kept = tuple(warnings)
    if key is not None:
        _store(registry, key, (generation, definitions, kept))
        definitions = _copied(definitions)
    return definitions, kept


def _store(registry: ToolRegistry, key: Hashable, entry: _Entry) -> None:
    with _lock:
        table = _tables.get(registry)
        if table is None:
            table = _tables[registry] = OrderedDict()
        for old in [k for k, (generation, _, _) in table.items() if generation < entry[0]]:
            del table[old]  # from before a change: never asked for again
        table[key] = entry
        table.move_to_end(key)
        while len(table) > MAX_ENTRIES:
            table.popitem(last=False)


def _given(values: Iterable[str] | None) -> str | tuple[Any, ...] | None:
    """A selection as given, made hashable; a string stays one name (not its characters)."""
    if values is None or isinstance(values, str):
        return values
    return tuple(values)


def _copied(value: Any) -> Any:
    """A copy of JSON-like data: its dicts, lists and tuples new, its leaves shared."""
    kind = type(value)
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    if kind is tuple:
        return tuple(_copied(item) for item in value)
    return value
