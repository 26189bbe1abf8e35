"""The entry tables as values: every change is a pure function from one snapshot to the next."""

from __future__ import annotations

import pytest

from tooldeck import DuplicateToolError, McpServerSpec, ToolSpec, WebSearchSpec, safe_name
from tooldeck._entries import (
    KINDS,
    WEB_SEARCH,
    Entry,
    RegistryChange,
    Snapshot,
    replace_groups,
    stage,
    with_entry,
    without_entry,
)
from tooldeck._model import PromptSpec
from tooldeck._prepare import prepare_tool
from tooldeck._prompts import prepare_prompt


def echo(text: str = "") -> str:
    return text


def tool(name: str, description: str = "Echo.") -> object:
    return prepare_tool(ToolSpec(name=name, description=description, handler=echo))


def prompt(name: str, template: str = "Hi") -> object:
    return prepare_prompt(PromptSpec(name=name, description="", template=template))


def server(name: str, url: str = "http://127.0.0.1:1/mcp") -> McpServerSpec:
    return McpServerSpec(name=name, url=url)


@pytest.mark.parametrize(
    ("kind", "make", "field"),
    [
        ("tool", tool, "added"),
        ("prompt", prompt, "prompts_added"),
        ("mcp_server", server, "servers_added"),
    ],
)
def test_with_entry_adds_and_reports_per_kind(kind, make, field):
    before = Snapshot()
    after, change = with_entry(before, kind, "x", Entry(make("x"), None), "error")
    assert getattr(change, field) == ("x",)
    assert "x" in after.table(kind)
    assert "x" not in before.table(kind), "the old snapshot never changes"


def test_the_duplicate_policy_is_the_same_for_every_kind():
    for kind, make in (
        ("tool", tool),
        ("prompt", prompt),
        ("mcp_server", server),
        ("web_search", lambda _: WebSearchSpec()),
    ):
        name = WEB_SEARCH if kind == "web_search" else "x"
        snap, _ = with_entry(Snapshot(), kind, name, Entry(make("x"), None), "error")
        with pytest.raises(DuplicateToolError) as raised:
            with_entry(snap, kind, name, Entry(make("x"), None), "error")
        assert raised.value.code == "TD112"
        assert with_entry(snap, kind, name, Entry(make("x"), None), "warn") is None
        replaced, change = with_entry(snap, kind, name, Entry(make("x"), "g"), "replace")
        assert replaced.table(kind)[name].group == "g"
        assert change, kind


def test_replacing_reports_changed_not_added():
    snap, _ = with_entry(Snapshot(), "tool", "x", Entry(tool("x"), None), "error")
    _, change = with_entry(snap, "tool", "x", Entry(tool("x", "Other."), None), "replace")
    assert change.changed == ("x",)
    assert change.added == ()


def test_without_entry_returns_the_group_it_came_from():
    snap, _ = with_entry(Snapshot(), "prompt", "p", Entry(prompt("p"), "manifest:a"), "error")
    assert without_entry(Snapshot(), "prompt", "p") is None
    after, group, change = without_entry(snap, "prompt", "p")
    assert group == "manifest:a"
    assert change.prompts_removed == ("p",)
    assert after.table("prompt") == {}


def test_the_call_tables_follow_the_tool_table():
    snap, _ = with_entry(Snapshot(), "tool", "files.read", Entry(tool("files.read"), None), "error")
    assert snap.tools["files.read"].name == "files.read"
    assert snap.aliases == {safe_name("files.read"): "files.read"}
    snap, _, _ = without_entry(snap, "tool", "files.read")
    assert snap.tools == {}
    assert snap.aliases == {}


def test_stage_refuses_a_name_declared_twice_in_one_group():
    with pytest.raises(DuplicateToolError, match="declared twice"):
        stage("g", [tool("a"), tool("a")], [], [], None)
    with pytest.raises(DuplicateToolError, match="MCP server 'm' is declared twice"):
        stage("g", [], [], [server("m"), server("m")], None)


def test_replace_groups_diffs_each_kind_for_its_own_group():
    first = stage("g", [tool("a"), tool("b")], [prompt("p")], [server("m")], WebSearchSpec())
    snap, changes = replace_groups(Snapshot(), {"g": first})
    assert changes["g"] == RegistryChange(
        added=("a", "b"),
        prompts_added=("p",),
        servers_added=("m",),
        web_search_changed=True,
    )
    second = stage("g", [tool("a", "New text."), tool("c")], [], [server("m")], None)
    snap, changes = replace_groups(snap, {"g": second})
    change = changes["g"]
    assert (change.added, change.removed, change.changed) == (("c",), ("b",), ("a",))
    assert change.prompts_removed == ("p",)
    assert change.servers_changed == ()
    assert change.servers_added == ()
    assert change.web_search_changed
    assert snap.table("web_search") == {}


def test_replace_groups_never_touches_other_groups_or_code():
    snap, _ = with_entry(Snapshot(), "tool", "mine", Entry(tool("mine"), None), "error")
    snap, _ = replace_groups(snap, {"a": stage("a", [tool("x")], [], [], None)})
    snap, changes = replace_groups(snap, {"b": stage("b", [tool("y")], [], [], None)})
    assert set(snap.tools) == {"mine", "x", "y"}
    assert changes["b"].added == ("y",)


def test_a_name_held_elsewhere_is_refused_all_or_nothing():
    snap, _ = with_entry(Snapshot(), "tool", "taken", Entry(tool("taken"), None), "error")
    with pytest.raises(DuplicateToolError, match="already registered by code"):
        replace_groups(snap, {"g": stage("g", [tool("free"), tool("taken")], [], [], None)})
    snap, _ = replace_groups(snap, {"a": stage("a", [], [], [], WebSearchSpec())})
    with pytest.raises(DuplicateToolError, match="web search 'web_search' from b"):
        replace_groups(snap, {"b": stage("b", [], [], [], WebSearchSpec())})
    both = {"a": stage("a", [tool("z")], [], [], None), "b": stage("b", [tool("z")], [], [], None)}
    with pytest.raises(DuplicateToolError, match="'z'"):
        replace_groups(Snapshot(), both)


def test_groups_may_swap_names_in_one_replacement():
    snap, _ = replace_groups(Snapshot(), {"a": stage("a", [tool("x")], [], [], None)})
    swapped = {"a": stage("a", [], [], [], None), "b": stage("b", [tool("x")], [], [], None)}
    snap, changes = replace_groups(snap, swapped)
    assert snap.table("tool")["x"].group == "b"
    assert changes["a"].removed == ("x",)
    assert changes["b"].added == ("x",)


def test_change_records_merge_and_say_which_lists_changed():
    merged = RegistryChange.of("tool", added=("b",)) | RegistryChange.of("tool", added=("a",))
    assert merged.added == ("a", "b")
    assert merged.tools_changed
    assert not merged.prompts_list_changed
    assert RegistryChange.of("prompt", removed=("p",)).prompts_list_changed
    assert RegistryChange.of("web_search", added=(WEB_SEARCH,)).web_search_changed
    assert not RegistryChange()
    assert set(KINDS) == {
        "tool",
        "prompt",
        "mcp_server",
        "web_search",
        "tool_use",
        "resource",
        "prompt_use",
    }
    assert RegistryChange.of("resource", added=("docs://a",)).resources_list_changed
    assert RegistryChange.of("tool_use", changed=("now",)).uses_changed == ("now",)
    assert not RegistryChange.of("tool_use", added=("now",)).tools_changed


def _clash(raised: pytest.ExceptionInfo[DuplicateToolError]) -> tuple[object, ...]:
    error = raised.value
    return (error.kind, error.name, error.group, error.owner, error.tool_name, error.code)


def test_a_duplicate_carries_the_clash_as_data():
    """Kind, name, who tried and who holds it: other layers write their own words from these."""
    snap, _ = with_entry(Snapshot(), "tool", "taken", Entry(tool("taken"), None), "error")
    with pytest.raises(DuplicateToolError) as raised:
        with_entry(snap, "tool", "taken", Entry(tool("taken"), "g"), "error")
    assert _clash(raised) == ("tool", "taken", "g", None, "taken", "TD112")
    with pytest.raises(DuplicateToolError) as raised:
        replace_groups(snap, {"manifest:a": stage("manifest:a", [tool("taken")], [], [], None)})
    assert _clash(raised) == ("tool", "taken", "manifest:a", None, "taken", "TD112")
    snap, _ = replace_groups(snap, {"a": stage("a", [], [prompt("p")], [], None)})
    with pytest.raises(DuplicateToolError) as raised:
        replace_groups(snap, {"b": stage("b", [], [prompt("p")], [], None)})
    assert _clash(raised) == ("prompt", "p", "b", "a", "p", "TD112")
    with pytest.raises(DuplicateToolError) as raised:
        stage("g", [], [], [server("m"), server("m")], None)
    assert _clash(raised) == ("mcp_server", "m", "g", "g", "m", "TD112")
    both = {"a": stage("a", [tool("z")], [], [], None), "b": stage("b", [tool("z")], [], [], None)}
    with pytest.raises(DuplicateToolError) as raised:
        replace_groups(Snapshot(), both)
    assert _clash(raised) == ("tool", "z", "b", "a", "z", "TD112")


def test_a_duplicate_made_the_old_way_still_has_its_fields():
    error = DuplicateToolError("tool 'x' is already registered", tool_name="x")
    assert (error.kind, error.name, error.group, error.owner) == ("tool", "x", None, None)
    assert (error.tool_name, error.code, str(error)) == ("x", "TD112", error.message)
