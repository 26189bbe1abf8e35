"""Every kind of registry entry follows one duplicate policy and reaches subscribers."""

from __future__ import annotations

import gc
import logging
import textwrap
import threading
from pathlib import Path

import pytest

import tooldeck._registry
from tooldeck import (
    DuplicateToolError,
    McpServerSpec,
    PromptSpec,
    RegistrationError,
    RegistryChange,
    ToolRegistry,
    ToolSpec,
    WebSearchSpec,
    load_manifests,
)

HI = PromptSpec(name="p", description="", template="Hi")


def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


@pytest.fixture
def seen() -> list[tuple[str | None, RegistryChange]]:
    return []


@pytest.fixture
def registry(seen: list[tuple[str | None, RegistryChange]]) -> ToolRegistry:
    reg = ToolRegistry()
    reg.subscribe(lambda group, change: seen.append((group, change)))
    return reg


def test_every_kind_of_change_reaches_subscribers(registry, seen):
    registry.add_tool("greet", "Greet.", greet)
    registry.add_prompt("hello", "Say hello.", "Hello")
    registry.add_mcp_server("time", "http://127.0.0.1:9/mcp")
    registry.add_web_search()
    registry.remove_prompt("hello")
    registry.remove_mcp_server("time")
    registry.remove_web_search()
    registry.remove_tool("greet")
    assert [change for _, change in seen] == [
        RegistryChange(added=("greet",)),
        RegistryChange(prompts_added=("hello",)),
        RegistryChange(servers_added=("time",)),
        RegistryChange(web_search_changed=True),
        RegistryChange(prompts_removed=("hello",)),
        RegistryChange(servers_removed=("time",)),
        RegistryChange(web_search_changed=True),
        RegistryChange(removed=("greet",)),
    ]
    assert {group for group, _ in seen} == {None}


def test_removing_something_absent_changes_nothing(registry, seen):
    assert not registry.remove_tool("nope")
    assert not registry.remove_prompt("nope")
    assert not registry.remove_mcp_server("nope")
    assert not registry.remove_web_search()
    assert seen == []


def test_spec_level_adds_carry_their_group(registry, seen):
    registry.add(HI, group="manifest:a.yaml")
    registry.add(McpServerSpec(name="m", url="http://x/mcp"), group="config:c")
    registry.add(WebSearchSpec(), group="manifest:b.yaml")
    assert [group for group, _ in seen] == ["manifest:a.yaml", "config:c", "manifest:b.yaml"]


@pytest.mark.parametrize(
    "add",
    [
        lambda r, **kw: r.add_tool("greet", "Greet.", greet, **kw),
        lambda r, **kw: r.add_prompt("p", "", "Hi", **kw),
        lambda r, **kw: r.add(HI, **kw),
        lambda r, **kw: r.add_mcp_server("m", "http://127.0.0.1:9/mcp", **kw),
        lambda r, **kw: r.add_web_search(**kw),
    ],
    ids=["tool", "prompt", "prompt_spec", "mcp_server", "web_search"],
)
def test_one_duplicate_policy_for_every_kind(add, caplog):
    registry = ToolRegistry()
    first = add(registry)
    with pytest.raises(DuplicateToolError) as raised:
        add(registry)
    assert raised.value.code == "TD112"
    with caplog.at_level(logging.WARNING, logger="tooldeck.registry"):
        assert add(registry, on_duplicate="warn") == first
    assert "keeping the first" in caplog.text
    assert add(registry, on_duplicate="replace") == first
    with pytest.raises(RegistrationError, match="on_duplicate='sometimes'"):
        add(registry, on_duplicate="sometimes")


def test_a_registry_wide_policy_applies_to_hosted_entries_too():
    registry = ToolRegistry(on_duplicate="replace")
    registry.add_web_search(type="default")
    registry.add_web_search(type="web_search", city="Oslo")
    search = registry.web_search()
    assert search is not None
    assert (search.type, search.city) == ("web_search", "Oslo")


def test_a_warn_that_keeps_the_first_notifies_nobody(registry, seen):
    registry.add_web_search()
    registry.add_web_search(city="Oslo", on_duplicate="warn")
    assert len(seen) == 1


def test_a_failing_subscriber_never_breaks_the_change(caplog):
    registry = ToolRegistry()
    later: list[RegistryChange] = []

    def broken(group, change):
        raise RuntimeError("listener bug")

    registry.subscribe(broken)
    registry.subscribe(lambda group, change: later.append(change))
    with caplog.at_level(logging.WARNING, logger="tooldeck.registry"):
        registry.add_tool("greet", "Greet.", greet)
    assert "greet" in registry
    assert later == [RegistryChange(added=("greet",))]
    assert "listener bug" in caplog.text


def test_a_subscriber_may_change_the_registry_again():
    registry = ToolRegistry()
    order: list[tuple[str, ...]] = []

    def cascade(group, change):
        order.append(change.added)
        if change.added == ("greet",):
            registry.add_tool("again", "Again.", greet)

    registry.subscribe(cascade)
    registry.add_tool("greet", "Greet.", greet)
    assert order == [("greet",), ("again",)]


def test_unsubscribe_stops_deliveries(registry, seen):
    extra: list[RegistryChange] = []
    stop = registry.subscribe(lambda group, change: extra.append(change))
    registry.add_tool("greet", "Greet.", greet)
    stop()
    stop()  # twice is harmless
    registry.remove_tool("greet")
    assert len(extra) == 1
    assert len(seen) == 2


def test_changes_from_many_threads_all_arrive(registry, seen):
    def add(index: int) -> None:
        registry.add_tool(f"t{index}", "Greet.", greet)

    threads = [threading.Thread(target=add, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(change.added[0] for _, change in seen) == sorted(f"t{i}" for i in range(20))
    assert len(registry) == 20


# ------------------------------------------------ prepared once, carried explicitly
def write_manifest(tmp_path: Path) -> Path:
    path = tmp_path / "m.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            tools:
              - name: greet
                description: Greet someone.
                handler: {__name__}:greet
                params:
                  - {{name: name, type: string, required: true}}
            prompts:
              - name: hello
                template: Hello
            """
        ),
        encoding="utf-8",
    )
    return path


def test_the_loader_hands_its_prepared_tools_to_the_registry(tmp_path, monkeypatch):
    def no_second_compile(spec):
        raise AssertionError(f"{spec.name} was compiled twice")

    monkeypatch.setattr(tooldeck._registry, "prepare_tool", no_second_compile)
    monkeypatch.setattr(tooldeck._registry, "prepare_prompt", no_second_compile)
    registry, result = load_manifests(
        [write_manifest(tmp_path)], allow_handlers=[__name__], environ={}
    )
    assert result.ok, result.diagnostics
    bundle = next(iter(result.bundles.values()))
    assert registry._snapshot.tools["greet"] is bundle.prepared_tools["greet"]
    assert registry.call("greet", {"name": "Ada"}).text == "Hello, Ada!"
    assert registry.render_prompt("hello").text == "Hello"


def test_a_prepared_tool_is_immutable(tmp_path):
    registry, _ = load_manifests([write_manifest(tmp_path)], allow_handlers=[__name__], environ={})
    prepared = registry._snapshot.tools["greet"]
    with pytest.raises(AttributeError):
        prepared.plain = False  # type: ignore[misc]


def test_reloading_a_broken_file_keeps_nothing_behind(tmp_path):
    """No per-spec side cache: the good half of a broken file is not kept across reloads."""
    path = write_manifest(tmp_path)
    text = path.read_text(encoding="utf-8")
    broken = text.replace("params:", "params:\n      - {name: n, type: integer, default: x}")
    path.write_text(broken.replace("name: greet", "name: kept_nowhere", 1), encoding="utf-8")
    registry = ToolRegistry()
    for _ in range(20):
        _, result = load_manifests([path], registry=registry, allow_handlers=[__name__])
        assert not result.ok
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, ToolSpec) and o.name == "kept_nowhere"]
    assert len(alive) <= 1  # at most the last load's, still referenced by its result
    assert "kept_nowhere" not in registry
