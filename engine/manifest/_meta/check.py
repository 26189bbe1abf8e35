"""Check manifests against ``schemas/manifest.schema.json`` and say where they break.

Python ``jsonschema`` over a 1,000-tool document costs about as much as
parsing it, so the common case (a valid file) takes a fast path: the
meta-schema's subset of keywords compiled once into plain Python functions
(:func:`compile_schema`, one function per subschema, ~1 ms per process).
Only a document that fails it goes through full ``jsonschema`` (imported
then) to collect every violation, each mapped back to its YAML node's line
and column.

The work is split by job: this module loads the schema and checks a
document (the fast path first, then full ``jsonschema`` on failure);
:mod:`~tooldeck.manifest._meta.compiler` generates the fast checker and
:mod:`~tooldeck.manifest._meta.explain` turns each violation into a located
diagnostic:

=====  ==========================================================
TD210  unknown key (with the closest allowed key suggested)
TD211  missing required key
TD212  wrong type (with a hint when YAML turned yes/no/on/off into a boolean)
TD213  invalid value (enum, const, pattern, range, one-of choices, repeats)
=====  ==========================================================

Manifests are untrusted, so every check here is linear in the document:
``uniqueItems`` hashes instead of comparing pairs (jsonschema's own check is
quadratic for mixed types), messages quote values only in part, and "did you
mean" suggestions stop after the first few unknown keys of a mapping.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ..._diagnostics import Diagnostic
from .compiler import Check, _unique, compile_pattern, compile_schema
from .explain import _diagnostics, _short

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

    from ..._yaml import YamlDocument

__all__ = ["check_document", "compile_schema", "manifest_schema"]


@cache
def manifest_schema() -> dict[str, Any]:
    """The meta-schema shipped with the package (``tooldeck schema`` prints it)."""
    from ..._resources import schema_bytes

    return json.loads(schema_bytes().decode("utf-8"))  # type: ignore[no-any-return]


@cache
def _validator() -> Draft202012Validator:
    import jsonschema

    extend: Any = jsonschema.validators.extend  # untyped in jsonschema's stubs
    keywords = {"uniqueItems": _unique_items, "pattern": _pattern}
    checker = extend(jsonschema.Draft202012Validator, keywords)
    return checker(manifest_schema())  # type: ignore[no-any-return]


def _pattern(
    validator: Draft202012Validator, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Any:
    """``pattern`` with JSON Schema's ``$`` (the end of the text), as the fast check reads it."""
    import jsonschema

    if validator.is_type(instance, "string") and compile_pattern(pattern).search(instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _unique_items(
    validator: Draft202012Validator, unique: bool, instance: Any, schema: Mapping[str, Any]
) -> Any:
    """jsonschema's ``uniqueItems`` in linear time (its fallback compares every pair)."""
    import jsonschema

    if unique and validator.is_type(instance, "array") and not _unique(instance):
        yield jsonschema.ValidationError(f"{_short(instance)} has non-unique elements")


@cache
def _fast_check() -> Check:
    schema = manifest_schema()
    return compile_schema(schema, schema)


def check_document(doc: YamlDocument, data: Any = None) -> list[Diagnostic]:
    """Every meta-schema violation in ``data`` (default ``doc.data``), located in ``doc``."""
    data = doc.data if data is None else data
    if _fast_check()(data):
        return []
    out = []
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.path)))
    for error in errors:
        out.extend(_diagnostics(doc, error))
    return out
