"""Hostile catalogue shapes through the Python API: all import, nothing changes silently.

The corpus is ``tests/fixtures/catalogs/hostile/mcp_tools_list.json`` (its README says where
each shape comes from). Each test imports it as ``tooldeck import openai`` does, writes the
manifest and the stubs, and loads them with the real loader; the CLI's view of the same is
in tests/acceptance/test_import_catalogs_cli.py.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

import tooldeck
from tooldeck import Param, ToolRegistry, ToolSpec
from tooldeck._importers import (
    ImportResult,
    Severity,
    assign_handlers,
    import_openai,
    render_manifest,
    render_stubs,
)

CATALOGUE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "catalogs"
    / "hostile"
    / "mcp_tools_list.json"
)
SOURCE = {t["name"]: t["inputSchema"] for t in json.loads(CATALOGUE.read_text())["tools"]}


def _import() -> ImportResult:
    return import_openai(CATALOGUE.read_text(encoding="utf-8"), source="hostile.json")


@pytest.fixture
def loaded(tmp_path: Path) -> Iterator[tuple[ImportResult, Any, Any, Path]]:
    """The import written as a manifest with stubs, then loaded by the engine."""
    result = _import()
    yield from _load(result, tmp_path)


def _load(result: ImportResult, folder: Path) -> Iterator[tuple[ImportResult, Any, Any, Path]]:
    module = f"hostile_stubs_{abs(hash(folder)) % 10**8}"
    assign_handlers(result, handler_module=module)
    (folder / f"{module}.py").write_text(render_stubs(result), encoding="utf-8")
    manifest = folder / "hostile.yaml"
    manifest.write_text(render_manifest(result), encoding="utf-8")
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    try:
        registry, load = tooldeck.load_manifests([manifest], allow_handlers=[module])
        yield result, registry, load, manifest
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop(module, None)


def test_the_import_reports_exactly_what_changed() -> None:
    result = _import()
    assert result.errors == []
    assert [t.name for t in result.tools] == list(SOURCE)
    said = sorted(
        (p.code, p.name or "", p.path) for p in result.problems if p.severity is not Severity.INFO
    )
    assert said == [
        ("TD515", "blank", "description"),
        ("TD515", "log_note", ""),
        ("TD516", "", ""),
    ]
    (opened,) = [p for p in result.problems if p.code == "TD516"]
    assert opened.message.startswith("3 of 9 tools accept undeclared arguments in the source")
    assert "(log_note, plot_point, set_metadata)" in opened.message
    assert "additional_properties: true" in opened.message
    harmless = [p for p in result.problems if p.name == "harmless"]
    assert {p.severity for p in harmless} <= {Severity.INFO}  # no report for a no-op


def _same_verdicts(source: dict[str, Any], imported: dict[str, Any], values: list[Any]) -> None:
    before, after = Draft7Validator(source), Draft202012Validator(imported)
    for value in values:
        assert before.is_valid(value) == after.is_valid(value), value


def test_a_recursive_pointer_into_the_properties_means_the_same(loaded: Any) -> None:
    result, registry, load, _ = loaded
    assert load.errors == []
    schema = registry.input_schema("store_tree")
    assert "data_children_items" in schema["$defs"]
    deep = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    broken = {"name": "a", "children": [{"name": "b", "children": [{"children": []}]}]}
    extra = {"name": "a", "children": [{"name": "b", "size": 3}]}
    _same_verdicts(
        SOURCE["store_tree"],
        schema,
        [{"data": deep}, {"data": broken}, {"data": extra}, {"data": {"name": 1}}, {}],
    )
    moved = [p for p in result.problems if p.name == "store_tree" and p.code == "TD508"]
    assert "moved to $defs/data_children_items" in moved[0].message
    reused = registry.input_schema("filter_events")["properties"]
    assert reused["until"]["$ref"] == reused["since"]["$ref"] == "#/$defs/since"
    assert reused["since"]["description"] == "Start of the window"
    _same_verdicts(
        SOURCE["filter_events"],
        registry.input_schema("filter_events"),
        [{"since": "2026-01-01T00:00:00Z", "until": 3}, {"since": "x", "until": "y"}],
    )


def test_an_imported_tool_can_keep_the_openness_of_its_source(tmp_path: Path) -> None:
    result = _import()
    for tool in result.tools:
        if tool.opened:
            tool.options["additional_properties"] = True
    for _, registry, load, manifest in _load(result, tmp_path):
        assert load.errors == []
        assert "additional_properties: true" in manifest.read_text(encoding="utf-8")
        assert registry.get_tool("set_metadata").additional_properties is True
        assert registry.input_schema("log_note")["additionalProperties"] is True
        assert registry.input_schema("store_tree")["additionalProperties"] is False
        opened = registry.call("log_note", {"text": "hi", "mood": "calm"})
        closed = registry.call("store_tree", {"data": {"name": "a"}, "mood": "calm"})
        assert opened.error.kind == "execution_error"  # accepted; the stub is not written yet
        assert closed.error.kind == "invalid_arguments"


def search(query: str, **options: Any) -> dict[str, Any]:
    return {"query": query, **options}


def fixed(query: str, limit: int = 3) -> dict[str, Any]:
    return {"query": query, "limit": limit}


def test_an_undeclared_key_reaches_only_kwargs_and_never_an_injected_value(
    tmp_path: Path,
) -> None:
    registry = ToolRegistry(project_dir=tmp_path)
    query = Param("query", "string", description="Text to look for")
    registry.add(
        ToolSpec(
            name="search",
            description="Search.",
            handler=search,
            params=(query,),
            additional_properties=True,
        )
    )
    registry.add(
        ToolSpec(
            name="fixed",
            description="Search.",
            handler=fixed,
            params=(query,),
            additional_properties=True,
        )
    )
    registry.add(ToolSpec(name="closed", description="Search.", handler=search, params=(query,)))
    sent = {"query": "a", "color": "red", "project_dir": "/", "context": 1, "call_id": "x"}
    assert json.loads(registry.call("search", sent).text) == {"query": "a", "color": "red"}
    # a parameter the handler names but the tool does not declare keeps the handler's default
    assert json.loads(registry.call("fixed", {"query": "a", "limit": 99}).text) == {
        "query": "a",
        "limit": 3,
    }
    assert registry.call("closed", {"query": "a", "color": "red"}).error.kind == (
        "invalid_arguments"
    )
    exported = tooldeck.export_tools(registry, "openai-chat", names=["search"], warnings=[])
    assert exported[0]["function"]["parameters"]["additionalProperties"] is True


def test_the_gemini_export_warns_where_it_differs_and_never_loosens(loaded: Any) -> None:
    _, registry, _, _ = loaded
    found: list[Any] = []
    declarations = {d["name"]: d for d in tooldeck.export_tools(registry, "gemini", warnings=found)}
    assert {w.kind for w in found} == {"schema_changed"}
    assert sorted({w.name for w in found}) == [
        "contact",
        "plot_point",
        "set_metadata",
        "store_tree",
    ]
    text = json.dumps(declarations)
    assert "{}" not in text.replace('"properties": {}', "")  # no schema that matches anything
    label = declarations["pick_label"]["parameters"]["properties"]
    assert label == {"label": {"type": "string", "description": "The label"}}
    tree = declarations["store_tree"]["parameters"]["properties"]["data"]
    assert tree["properties"]["children"]["items"]["properties"]["children"]["items"] == {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    }
