"""897 real tool definitions: each imports, loads, lints and exports back to an equivalent schema.

The catalogues in tests/fixtures/catalogs (see its README: BFCL, GitHub's MCP
server, the MCP reference servers, openai-agents examples, LangChain community
tools, the OpenAI cookbook) are imported as ``tooldeck import openai`` does,
with a generated stub module as the handlers, then loaded by the engine. The
export (``openai-chat``, non-strict) is compared with the source schema
through :func:`normalise`, which removes only the differences the importer
documents as intended:

- type aliases become JSON Schema names (``dict`` -> ``object``, ``float`` ->
  ``number``, ``tuple`` -> ``array``, ``String`` -> ``string``; BFCL's Java and
  JavaScript names ``HashMap``, ``ArrayList``, ``char`` ... as BFCL maps them),
  and ``any`` or an unknown name means no type (reported as TD505);
- ``required`` is compared as a set, restricted to declared properties;
- key order, duplicate ``enum`` values, an empty ``properties: {}``;
- ``$ref`` to ``$defs``/``definitions`` is compared resolved;
- older drafts' idioms are compared in their 2020-12 spelling;
- ``default: null`` on a type without null is not shown by tooldeck ("optional,
  None when absent");
- at the root, only ``properties`` and ``required`` are compared: tooldeck always
  closes the root (``additionalProperties: false``) and has no place for a root
  ``title``, ``$schema`` or ``description``; each such key is reported (TD506/TD508),
  which :func:`test_what_the_root_loses_is_reported` checks.

Descriptions, enums, defaults, formats, bounds, nested objects and every other
keyword are compared exactly.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import tooldeck
from tooldeck._importers import (
    ImportResult,
    Severity,
    assign_handlers,
    import_openai,
    render_manifest,
    render_stubs,
)
from tooldeck._importers._fragments import DRAFTS
from tooldeck._lint.runner import LintSettings, lint

CATALOGS = Path(__file__).resolve().parents[1] / "fixtures" / "catalogs"
FILES = sorted(
    p for p in CATALOGS.rglob("*.json*") if p.is_file() and "hostile" not in p.parts
)  # hostile/: hand-written shapes, tested in test_importers_catalogs.py
MAX_SKIPPED = 0
"""Definitions the corpus may lose. Every one of them has a faithful manifest form today
(raw ``schema:`` fragments hold what descriptors cannot say), so any skip is a regression to
look at, not noise to tolerate."""

# ------------------------------------------------------------------ normaliser
JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}
ALIASES = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "set": "array",
    "dict": "object",
    "map": "object",
    "mapping": "object",
    "none": "null",
    # BFCL's own table (bfcl_eval/constants/type_mappings.py GORILLA_TO_OPENAPI)
    "char": "string",
    "byte": "integer",
    "short": "integer",
    "bigint": "integer",
    "arraylist": "array",
    "queue": "array",
    "stack": "array",
    "hashmap": "object",
    "hashtable": "object",
}
_ONE = {
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
}
_MANY = {"anyOf", "oneOf", "allOf", "prefixItems"}
_MAPS = {"properties", "patternProperties", "dependentSchemas"}
_ROOT_KEPT = {"type", "properties", "required", "additionalProperties", "$defs", "definitions"}


def _types(value: Any) -> list[str] | None:
    """Sorted JSON types, or None for "no constraint" (any, or a name nobody knows)."""
    out: list[str] = []
    for name in [value] if isinstance(value, str) else value:
        key = ALIASES.get(name.strip().lower(), name.strip().lower())
        if key not in JSON_TYPES:
            return None
        if key not in out:
            out.append(key)
    return sorted(out)


def normalise(node: Any, defs: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """``node`` with only the documented, meaning-preserving differences removed."""
    if node is True or node == {}:
        return {}
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
        name = ref.split("/", 2)[2]
        rest = normalise({k: v for k, v in node.items() if k != "$ref"}, defs, seen)
        if name in seen:
            return {"$ref": f"#/$defs/{name}", **rest}
        return {**normalise(defs[name], defs, (*seen, name)), **rest}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$defs", "definitions", "$schema") or (
            key == "required" and isinstance(value, bool)
        ):
            continue
        if key == "type":
            kinds = _types(value)
            if kinds is not None:
                out["type"] = kinds
        elif key == "items" and isinstance(value, list):
            out["prefixItems"] = [normalise(v, defs, seen) for v in value]
        elif key in _ONE:
            out[key] = normalise(value, defs, seen)
        elif key in _MANY:
            out[key] = [normalise(v, defs, seen) for v in value]
        elif key in _MAPS:
            out[key] = {k: normalise(v, defs, seen) for k, v in value.items()}
        elif key == "enum" and isinstance(value, list):
            out[key] = list({json.dumps(v, sort_keys=True): v for v in value}.values())
        else:
            out[key] = value
    properties = node.get("properties")
    if isinstance(properties, dict):
        flagged = {
            k for k, v in properties.items() if isinstance(v, dict) and v.get("required") is True
        }
        if flagged:
            out["required"] = sorted(set(out.get("required") or []) | flagged)
    if out.get("properties") == {}:
        del out["properties"]
    if isinstance(out.get("required"), list):
        names = set(out["required"])
        if isinstance(properties, dict):
            names &= set(properties)
        out["required"] = sorted(names)
        if not out["required"]:
            del out["required"]
    if out.get("default", 0) is None and "null" not in out.get("type", ["null"]):
        del out["default"]
    return out


def root_view(schema: dict[str, Any]) -> Any:
    """What a tool's parameter object says at its root: its properties and required names."""
    defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}
    kept = {k: schema[k] for k in ("properties", "required") if k in schema}
    return normalise({"type": "object", **kept}, defs)


# --------------------------------------------------------------------- imports
@dataclass
class Imported:
    file: Path
    result: ImportResult
    manifest: Path
    module: str
    registry: Any
    load: Any


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Imported]]:
    """Every catalogue imported, its stubs and manifest written, the manifest loaded."""
    folder = tmp_path_factory.mktemp("catalogs")
    sys.path.insert(0, str(folder))
    modules = []
    try:
        found = {}
        for number, file in enumerate(FILES):
            key = str(file.relative_to(CATALOGS))
            result = import_openai(file.read_text(encoding="utf-8"), source=key)
            module = f"corpus_stubs_{number}"
            modules.append(module)
            assign_handlers(result, handler_module=module)
            (folder / f"{module}.py").write_text(render_stubs(result), encoding="utf-8")
            manifest = folder / f"{file.stem}_{number}.yaml"
            manifest.write_text(render_manifest(result), encoding="utf-8")
            importlib.invalidate_caches()
            registry, loaded = tooldeck.load_manifests([manifest], allow_handlers=[module])
            found[key] = Imported(file, result, manifest, module, registry, loaded)
        yield found
    finally:
        sys.path.remove(str(folder))
        for module in modules:
            sys.modules.pop(module, None)


KEYS = [str(p.relative_to(CATALOGS)) for p in FILES]


def test_the_corpus_is_large_and_comes_from_several_sources(corpus: dict[str, Imported]) -> None:
    total = sum(item.result.definitions for item in corpus.values())
    sources = {key.split("_")[0].split("/")[0] for key in corpus}
    assert total >= 300
    assert sources >= {"bfcl", "github", "mcp", "openai", "langchain"}


def test_every_definition_imports_or_is_reported(corpus: dict[str, Imported]) -> None:
    skipped = []
    for key, item in corpus.items():
        result = item.result
        failed = {p.index for p in result.errors}
        hosted = {p.index for p in result.problems if p.code == "TD503"}
        assert len(result.tools) + len(failed) + len(hosted) == result.definitions, key
        skipped += [p.format(key) for p in result.errors]
    assert len(skipped) <= MAX_SKIPPED, "\n".join(skipped)


@pytest.mark.parametrize("key", KEYS)
def test_the_manifest_loads_every_imported_tool(corpus: dict[str, Imported], key: str) -> None:
    item = corpus[key]
    assert item.load.errors == [], [str(d) for d in item.load.errors[:5]]
    assert [spec.name for spec in item.registry.tools()] == [t.name for t in item.result.tools]


@pytest.mark.parametrize("key", KEYS)
def test_the_manifest_passes_lint(corpus: dict[str, Imported], key: str) -> None:
    """Lint errors only where the source itself has no description (TD401)."""
    item = corpus[key]
    found = lint(item.load, item.registry, LintSettings())
    errors = [d for d in found if d.severity is Severity.ERROR]
    undescribed = {t.name for t in item.result.tools if not t.description.strip()}
    assert {d.tool_name for d in errors if d.code == "TD401"} == undescribed
    assert [d for d in errors if d.code != "TD401"] == []


@pytest.mark.parametrize("key", KEYS)
def test_the_export_is_equivalent_to_the_source(corpus: dict[str, Imported], key: str) -> None:
    item = corpus[key]
    registry = item.registry
    exported = {
        d["function"]["name"]: d["function"]
        for d in tooldeck.export_tools(registry, "openai-chat", strict=False)
    }
    for tool in item.result.tools:
        function = exported[registry.safe_name(tool.name)]
        assert function["description"] == tool.description, tool.name
        source = dict(tool.source or {})
        assert root_view(function["parameters"]) == root_view(source), tool.name
        if tool.options.get("strict"):
            spec = registry.get_tool(tool.name)
            assert spec is not None
            assert spec.strict is True


def test_what_the_root_loses_is_reported(corpus: dict[str, Imported]) -> None:
    for key, item in corpus.items():
        for tool in item.result.tools:
            source = tool.source or {}
            lost = {k for k in source if k not in _ROOT_KEPT}
            if source.get("$schema") in DRAFTS:
                lost.discard("$schema")  # its idioms are rewritten to 2020-12: not a loss
            if source.get("additionalProperties", True) not in (True, False):
                lost.add("additionalProperties")  # a schema; open roots are counted in TD516
            paths = {
                p.path.split(".", 1)[-1] for p in item.result.problems if p.index == tool.index
            }
            assert lost <= paths, (key, tool.name, lost - paths)
        opened = [
            t.name
            for t in item.result.tools
            if t.source is not None and t.source.get("additionalProperties", True) is True
        ]
        summary = [p for p in item.result.problems if p.code == "TD516"]
        if opened:
            (problem,) = summary
            assert problem.message.startswith(f"{len(opened)} of {len(item.result.tools)} tools")
        else:
            assert summary == []


def test_differences_are_counted(corpus: dict[str, Imported]) -> None:
    """How many definitions come back byte-identical (key order aside) and why others differ."""
    reasons: Counter[str] = Counter()
    exact = 0
    for item in corpus.values():
        exported = {
            d["function"]["name"]: d["function"]["parameters"]
            for d in tooldeck.export_tools(item.registry, "openai-chat", strict=False)
        }
        for tool in item.result.tools:
            back = dict(exported[item.registry.safe_name(tool.name)])
            source = dict(tool.source or {})
            if source.get("additionalProperties") is not False:
                back.pop("additionalProperties", None)
            if json.dumps(back, sort_keys=True) == json.dumps(source, sort_keys=True):
                exact += 1
                continue
            text = json.dumps(source)
            reasons["alias type"] += any(f'"type": "{a}"' in text for a in ALIASES)
            reasons["null default"] += '"default": null' in text
    total = sum(len(item.result.tools) for item in corpus.values())
    assert exact >= total // 10  # sanity: many definitions need no normalisation at all
    assert reasons["alias type"] > 0
    assert reasons["null default"] > 0


# ----------------------------------------------------------- the normaliser
def test_the_normaliser_keeps_meaningful_differences() -> None:
    base = {
        "type": "object",
        "properties": {"a": {"type": "string", "description": "A"}},
        "required": ["a"],
    }
    for changed in (
        {**base, "required": []},
        {**base, "properties": {"a": {"type": "string", "description": "B"}}},
        {**base, "properties": {"a": {"type": "integer", "description": "A"}}},
        {**base, "properties": {"a": {"type": "string", "description": "A", "default": "x"}}},
        {**base, "properties": {"a": {"type": "string", "description": "A", "enum": ["x"]}}},
        {**base, "properties": {"b": {"type": "string", "description": "A"}}},
    ):
        assert root_view(changed) != root_view(base)


def test_the_normaliser_removes_only_documented_differences() -> None:
    source = {
        "type": "dict",
        "title": "ignored at the root",
        "properties": {
            "a": {"type": "float", "enum": [1, 1, 2]},
            "b": {"type": "string", "default": None},
            "c": {"$ref": "#/definitions/C"},
        },
        "required": ["a", "missing"],
        "definitions": {"C": {"type": "tuple", "items": [{"type": "str"}]}},
    }
    exported = {
        "type": "object",
        "properties": {
            "a": {"type": "number", "enum": [1, 2]},
            "b": {"type": "string"},
            "c": {"$ref": "#/$defs/C"},
        },
        "required": ["a"],
        "additionalProperties": False,
        "$defs": {"C": {"type": "array", "prefixItems": [{"type": "string"}]}},
    }
    assert root_view(source) == root_view(exported)
