"""The model loop's cache of exported definitions: hits, every kind of change, copies, bounds."""

from __future__ import annotations

import pytest

from tooldeck import ExportError, ToolRegistry, ToolSpec, export_tools
from tooldeck.providers import _cache
from tooldeck.providers._cache import MAX_ENTRIES, cached_export


def weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: City name.
    """
    return city


def ping() -> str:
    """Answer pong."""
    return "pong"


def echo(text: str) -> str:
    """Say it back."""
    return text


def add(a: int, b: int = 0) -> int:
    """Add two integers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


@pytest.fixture
def registry() -> ToolRegistry:
    made = ToolRegistry()
    made.add_tool(None, None, weather, tags=["outside"])
    made.add_tool(None, None, add)
    return made


@pytest.fixture
def exports(monkeypatch) -> list[str]:
    """The provider of each real export (a miss of the cache)."""
    made: list[str] = []
    real = _cache.export_tools

    def counted(registry, provider, **options):
        made.append(provider)
        return real(registry, provider, **options)

    monkeypatch.setattr(_cache, "export_tools", counted)
    return made


def export(registry: ToolRegistry, **options):
    options.setdefault("redact", registry.secrets.redact)
    return cached_export(registry, "openai-responses", **options)


def test_a_hit_returns_the_same_definitions_without_exporting_again(registry, exports):
    first, warnings = export(registry)
    second, again = export(registry)
    assert first == second == export_tools(registry, "openai-responses")
    assert warnings == again == ()
    assert exports == ["openai-responses"]


def test_everything_in_the_key_gets_its_own_entry(registry, exports):
    export(registry)
    export(registry, strict=False)
    export(registry, include_hosted=False)
    export(registry, tags=["outside"])
    export(registry, names=["add"])
    export(registry, bundles=None, send_credentials=True)
    export(registry, redact=None)
    cached_export(registry, "anthropic")
    assert len(exports) == 8
    for options in ({}, {"strict": False}, {"tags": ["outside"]}, {"names": ["add"]}):
        export(registry, **options)
    assert len(exports) == 8
    assert [d["name"] for d in export(registry, names=("add",))[0]] == ["add"]
    assert [d["name"] for d in export(registry, tags=iter(["outside"]))[0]] == ["weather"]


def test_a_string_selection_is_one_name_not_its_characters(registry):
    assert [d["name"] for d in export(registry, names="add")[0]] == ["add"]
    with pytest.raises(ExportError):
        export(registry, names=["a", "d"])


def test_an_export_error_is_not_cached(registry, exports):
    for _ in range(2):
        with pytest.raises(ExportError, match="nope"):
            export(registry, names=["nope"])
    assert len(exports) == 2


def test_adding_removing_and_replacing_tools_are_seen(registry):
    assert [d["name"] for d in export(registry)[0]] == ["weather", "add"]
    registry.add_tool("say", "Say it.", echo)
    assert [d["name"] for d in export(registry)[0]] == ["weather", "add", "say"]
    registry.remove_tool("add")
    assert [d["name"] for d in export(registry)[0]] == ["weather", "say"]
    registry.add_tool("say", "Say it louder.", echo, on_duplicate="replace")
    assert export(registry)[0][-1]["description"] == "Say it louder."


def test_a_group_replaced_as_a_reload_does_is_seen(registry):
    spec = ToolSpec(name="from_file", description="Version one.", handler=ping)
    registry.replace_group("manifest:a.yaml", [spec])
    assert export(registry)[0][-1]["description"] == "Version one."
    registry.replace_groups(
        {"manifest:a.yaml": _content(ToolSpec(name="from_file", description="Two.", handler=ping))}
    )
    assert export(registry)[0][-1]["description"] == "Two."


def _content(spec: ToolSpec):
    from tooldeck._entries import GroupContent

    return GroupContent(tools=(spec,))


def test_a_new_secret_is_masked_in_the_next_export(registry):
    registry.add_tool("keyed", "Uses key-0123456789.", weather)
    assert "key-0123456789" in str(export(registry)[0])
    registry.secrets.add("key-0123456789")
    assert "key-0123456789" not in str(export(registry)[0])


def test_a_duplicate_kept_first_changes_nothing(registry, exports):
    export(registry)
    before = registry.generation
    registry.add_tool("add", "Another.", add, on_duplicate="warn")
    assert registry.generation == before
    export(registry)
    assert len(exports) == 1


def test_generation_grows_with_each_change(registry):
    seen = [registry.generation]
    registry.add_tool("say", "Say it.", echo)
    seen.append(registry.generation)
    registry.secrets.add("a-secret-value")
    seen.append(registry.generation)
    registry.remove_tool("say")
    seen.append(registry.generation)
    registry.replace_group("g", [])
    seen.append(registry.generation)
    ToolRegistry().add_tool(None, None, add)  # another registry's changes do no harm
    registry.add_tool("add2", None, add)
    seen.append(registry.generation)
    assert seen == sorted(set(seen))


def test_changing_what_was_returned_never_changes_the_next_export(registry):
    first, _ = export(registry)
    expected = export_tools(registry, "openai-responses")
    first[0]["name"] = "changed"
    first[0]["parameters"]["properties"]["city"]["type"] = "number"
    first[1]["parameters"]["required"].append("c")
    first.append({"type": "function", "name": "extra"})
    second, _ = export(registry)
    assert second == expected
    second[0]["description"] = "changed too"
    assert export(registry)[0] == expected


def test_warnings_come_back_with_a_hit(exports):
    registry = ToolRegistry()
    registry.add_tool(None, None, weather, strict=True)
    registry.add(
        ToolSpec(
            name="loose",
            description="Takes anything.",
            handler=weather,
            input_schema={"type": "object", "additionalProperties": True},
        )
    )
    first = cached_export(registry, "openai-chat", strict=True)[1]
    second = cached_export(registry, "openai-chat", strict=True)[1]
    assert first == second
    assert [w.kind for w in first] == ["not_strict"]
    assert len(exports) == 1


def test_at_most_max_entries_per_registry_and_old_generations_go(registry):
    names = [f"t{i}" for i in range(MAX_ENTRIES + 5)]
    for name in names:
        registry.add_tool(name, "T.", add)
    generation = registry.generation
    for name in names:
        export(registry, names=[name])
    table = _cache._tables[registry]
    assert len(table) == MAX_ENTRIES
    assert [key[6] for key in table] == [(n,) for n in names[-MAX_ENTRIES:]]
    registry.remove_tool("t0")
    export(registry)
    assert len(_cache._tables[registry]) == 1  # what was cached before the change is gone
    assert registry.generation > generation


def test_a_registry_that_goes_takes_its_table_with_it():
    import gc
    import weakref

    registry = ToolRegistry()
    registry.add_tool(None, None, add)
    cached_export(registry, "mcp")
    assert registry in _cache._tables
    gone = weakref.ref(registry)
    del registry
    gc.collect()
    assert gone() is None  # the cache did not keep it alive
