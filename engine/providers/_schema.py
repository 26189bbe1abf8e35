"""The JSON Schema walking every provider module shares: one copy, one behaviour.

Each provider rewrites schemas its own way (OpenAI strict mode, Gemini's
OpenAPI subset), but they must agree on the basics, or the same manifest
would mean different things to different models: how a local ``$ref`` is
found, how a one-element ``allOf`` folds in, what a ``type`` list is, what
root a hand-written schema gets and how secrets are redacted from the
output. Those live here; nothing here knows about any provider.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .._errors import ExportError

__all__ = [
    "converting",
    "merge_all_of",
    "object_root",
    "redacted",
    "resolve",
    "types_of",
]


def object_root(schema: dict[str, Any]) -> dict[str, Any]:
    """Providers want an object schema at the root; hand-written ones may omit the type."""
    if "type" not in schema and not any(k in schema for k in ("$ref", "anyOf", "oneOf", "allOf")):
        return {"type": "object", **schema}
    return schema


def redacted(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` with ``redact`` applied to every string value (keys are left alone:
    interpolation never fills them)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {key: redacted(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redacted(item, redact) for item in value]
    return value


def resolve(root: Mapping[str, Any], ref: str, where: str) -> Mapping[str, Any]:
    """A local ``#/...`` JSON pointer (``$defs`` or draft-07 ``definitions``).

    Only local references: an exported definition must stand alone, since the
    provider will not fetch anything. ``where`` names the referring place in
    the error.
    """
    if not ref.startswith("#"):
        raise ExportError(f"{where}: only local $refs can be exported, not {ref!r}")
    node: Any = root
    for raw in ref[1:].split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            raise ExportError(f"{where}: $ref {ref!r} does not resolve")
        node = node[part]
    if not isinstance(node, Mapping):
        raise ExportError(f"{where}: $ref {ref!r} does not point at a schema object")
    return node


def merge_all_of(node: dict[str, Any], where: str) -> dict[str, Any]:
    """Fold a one-element ``allOf`` into its parent (the parent's own keys win).

    That is the shape generators emit to attach a description to a ``$ref``;
    a real intersection of several schemas has no faithful spelling in either
    provider dialect, so it is refused rather than approximated.
    """
    all_of = node.get("allOf")
    if all_of is None:
        return node
    if not isinstance(all_of, list) or len(all_of) != 1 or not isinstance(all_of[0], Mapping):
        raise ExportError(f"{where}: allOf with several schemas cannot be exported")
    rest = {k: v for k, v in node.items() if k != "allOf"}
    return {**all_of[0], **rest}


def types_of(node: Mapping[str, Any]) -> list[str]:
    """``type`` as a list: ``[]`` when absent, ``["string"]`` for ``"string"``."""
    declared = node.get("type")
    if declared is None:
        return []
    return [declared] if isinstance(declared, str) else list(declared)


@contextmanager
def converting() -> Iterator[None]:
    """Report a malformed schema as :class:`ExportError`, not as a crash inside a walker.

    The walkers trust the JSON Schema shapes the registry checked at
    registration; the public converters also take any mapping, and there a
    ``"type": 5`` or ``"properties": []`` would surface as a ``TypeError`` or
    ``AttributeError`` from deep inside, and a very deep schema as a
    ``RecursionError``. The original stays chained as ``__cause__``.
    """
    try:
        yield
    except RecursionError:
        raise ExportError("the schema is nested too deeply to convert") from None
    except (TypeError, AttributeError) as exc:
        raise ExportError(f"the schema is malformed ({type(exc).__name__}: {exc})") from exc
