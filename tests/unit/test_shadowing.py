"""The one rule for who gets a tool name, as a pure function, and the swap that lets a name move.

``assign_names`` is what the attachment publishes, what ``list`` reports and
what lint's TD414 says; these tests pin the rule itself, including that the
order in which anything is given (servers, listings, entries) never changes
the answer. The end-to-end proof with real servers and every command is
``tests/security/test_use_names.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tooldeck import DuplicateToolError, McpServerSpec, ToolSpec
from tooldeck._diagnostics import SourceLocation
from tooldeck._entries import GroupContent, Snapshot, replace_groups, stage, with_entry
from tooldeck._model import McpToolUse
from tooldeck._prepare import prepare_tool
from tooldeck._registry import ToolRegistry
from tooldeck._shadowing import NameHolder, Names, Shadowed, assign_names, declaration_order


def not_attached(**_: object) -> str:
    raise AssertionError("never called")


def server(name: str, line: int, file: str = "deck.yaml", **options: object) -> McpServerSpec:
    origin = SourceLocation(file=file, line=line)
    return McpServerSpec(name=name, command=("x",), via="client", origin=origin, **options)  # type: ignore[arg-type]


def use(name: str, server: str = "time", tool: str = "convert_time") -> McpToolUse:
    template = ToolSpec(name=name, description="d", handler=not_attached, input_schema={})
    return McpToolUse(server=server, tool=tool, template=template)


TIME = server("time", 3)
RIVAL = server("rival", 6)
TOKYO = use("to_tokyo")


def holder_of(names: Names, server: str, name: str) -> NameHolder:
    return next(s.holder for s in names.shadowed_of(server) if s.name == name)


# ------------------------------------------------------------------- use: entries
@pytest.mark.parametrize("owner_listed", [True, False], ids=["owner-listed", "owner-not-listed"])
def test_a_use_entry_keeps_its_name_whether_or_not_its_server_was_listed(owner_listed):
    listed = {"rival": ["to_tokyo", "echo"]}
    if owner_listed:
        listed["time"] = ["convert_time"]
    names = assign_names([TIME, RIVAL], listed, [TOKYO], set())
    assert names.uses["time"] == (TOKYO,)
    assert dict(names.raw["rival"]) == {"echo": "echo"}
    assert names.shadowed_of("rival") == (
        Shadowed(
            server="rival",
            tool="to_tokyo",
            name="to_tokyo",
            use=False,
            holder=NameHolder(kind="use", name="to_tokyo", server="time", tool="convert_time"),
        ),
    )
    assert names.shadowed_of("time") == ()


def test_a_prefix_that_makes_the_entrys_name_is_shadowed_too():
    rival = server("rival", 6, prefix="to_")
    names = assign_names([TIME, rival], {"rival": ["tokyo"]}, [TOKYO], set())
    assert dict(names.raw["rival"]) == {}
    (lost,) = names.shadowed_of("rival")
    assert (lost.tool, lost.name, lost.holder.kind) == ("tokyo", "to_tokyo", "use")


def test_an_entry_of_an_undeclared_server_still_reserves_its_name():
    names = assign_names([RIVAL], {"rival": ["to_tokyo"]}, [TOKYO], set())
    assert holder_of(names, "rival", "to_tokyo").server == "time"


def test_the_servers_own_raw_tool_loses_to_its_own_entry():
    time = server("time", 3)
    names = assign_names([time], {"time": ["convert_time", "to_tokyo"]}, [TOKYO], set())
    assert dict(names.raw["time"]) == {}  # convert_time is reshaped; to_tokyo is the entry's
    assert holder_of(names, "time", "to_tokyo").kind == "use"


# --------------------------------------------------------------------- local tools
def test_a_local_tool_keeps_its_name_over_raw_tools_and_use_entries():
    names = assign_names([TIME, RIVAL], {"rival": ["to_tokyo"]}, [TOKYO], {"to_tokyo"})
    assert names.uses["time"] == ()
    assert holder_of(names, "time", "to_tokyo") == NameHolder(kind="tool", name="to_tokyo")
    assert holder_of(names, "rival", "to_tokyo") == NameHolder(kind="tool", name="to_tokyo")
    (entry,) = names.shadowed_of("time")
    assert entry.use


# -------------------------------------------------------------- servers between them
def test_between_servers_the_first_declared_wins_not_the_first_given():
    one, two = server("one", 3), server("two", 9)
    for given_order in ([one, two], [two, one]):
        names = assign_names(given_order, {"two": ["echo"], "one": ["echo"]}, [], set())
        assert dict(names.raw["one"]) == {"echo": "echo"}
        assert holder_of(names, "two", "echo") == NameHolder(
            kind="server", name="echo", server="one", tool="echo"
        )


def test_a_server_not_listed_holds_nothing_until_it_is():
    one, two = server("one", 3), server("two", 9)
    names = assign_names([one, two], {"two": ["echo"]}, [], set())
    assert dict(names.raw["two"]) == {"echo": "echo"}
    names = assign_names([one, two], {"two": ["echo"], "one": ["echo"]}, [], set())
    assert dict(names.raw["two"]) == {}


def test_declaration_order_is_code_first_then_file_then_line():
    code = McpServerSpec(name="code", command=("x",), via="client")
    later_file = server("b", 1, file="manifests/b.yaml")
    early_line = server("a2", 2, file="manifests/a.yaml")
    late_line = server("a9", 9, file="manifests/a.yaml")
    nested = server("a-b", 1, file="manifests/a-b/x.yaml")  # the loader: parts, not text
    ordered = declaration_order([late_line, later_file, nested, code, early_line])
    assert [s.name for s in ordered] == ["code", "a-b", "a2", "a9", "b"]


def test_only_tools_registered_as_they_are_claim_names():
    rival = server("rival", 6, denied_tools=("echo",), allowed_tools=("echo", "ping"))
    names = assign_names([rival], {"rival": ["echo", "ping", "other"]}, [], set())
    assert dict(names.raw["rival"]) == {"ping": "ping"}
    assert names.shadowed_of("rival") == ()


@given(st.permutations(range(3)), st.permutations(range(3)), st.booleans())
def test_no_order_of_the_inputs_changes_the_answer(servers_order, listing_order, local):
    specs = [server("one", 3), server("two", 5, prefix="t_"), server("time", 8)]
    listings = {
        "one": ["echo", "to_tokyo", "t_x"],
        "two": ["x", "echo"],
        "time": ["convert_time", "echo"],
    }
    uses = [TOKYO, use("clock", tool="now")]
    base = assign_names(specs, listings, uses, {"echo"} if local else set())
    shuffled = assign_names(
        [specs[i] for i in servers_order],
        {k: listings[k] for k in [list(listings)[i] for i in listing_order]},
        list(reversed(uses)),
        {"echo"} if local else set(),
    )
    assert {s: dict(m) for s, m in shuffled.raw.items()} == {
        s: dict(m) for s, m in base.raw.items()
    }
    assert {s: {u.name for u in x} for s, x in shuffled.uses.items()} == {
        s: {u.name for u in x} for s, x in base.uses.items()
    }
    assert {s: set(x) for s, x in shuffled.shadowed.items()} == {
        s: set(x) for s, x in base.shadowed.items()
    }


# ------------------------------------------------------------- the swap that moves a name
def prepared(name: str) -> object:
    return prepare_tool(ToolSpec(name=name, description="d", handler=not_attached))


def test_a_yielding_group_gives_a_name_up_to_a_later_declaration_in_the_same_swap():
    remote = stage("mcp:rival", [prepared("echo"), prepared("ping")], (), (), None, yields=True)
    snap, _ = replace_groups(Snapshot(), {"mcp:rival": remote})
    local = stage("manifest:deck.yaml", [prepared("echo")], (), (), None)
    snap, changes = replace_groups(snap, {"manifest:deck.yaml": local})
    assert snap.table("tool")["echo"].group == "manifest:deck.yaml"
    assert snap.table("tool")["ping"].group == "mcp:rival"
    assert changes["manifest:deck.yaml"].added == ("echo",)
    assert changes["mcp:rival"].removed == ("echo",)


def test_a_name_held_by_a_group_that_does_not_yield_is_still_refused():
    local = stage("manifest:deck.yaml", [prepared("echo")], (), (), None)
    snap, _ = replace_groups(Snapshot(), {"manifest:deck.yaml": local})
    remote = stage("mcp:rival", [prepared("echo")], (), (), None, yields=True)
    with pytest.raises(DuplicateToolError):
        replace_groups(snap, {"mcp:rival": remote})
    one = stage("mcp:one", [prepared("ping")], (), (), None, yields=True)
    snap, _ = replace_groups(snap, {"mcp:one": one})
    two = stage("mcp:two", [prepared("ping")], (), (), None, yields=True)
    with pytest.raises(DuplicateToolError):  # yielding groups do not take from each other
        replace_groups(snap, {"mcp:two": two})


def test_a_tool_added_in_code_takes_the_name_from_a_yielding_group():
    registry = ToolRegistry()
    registry.replace_groups({"mcp:rival": GroupContent(tools=(prepared("echo"),), yields=True)})
    registry.add(ToolSpec(name="echo", description="local", handler=not_attached))
    assert registry.group_of("echo") is None
    snap = Snapshot()
    snap, _ = replace_groups(
        snap, {"mcp:rival": stage("mcp:rival", [prepared("x")], (), (), None, yields=True)}
    )
    entry = snap.table("tool")["x"]
    outcome = with_entry(snap, "tool", "x", type(entry)(prepared("x"), None), "error")
    assert outcome is not None
    assert outcome[0].table("tool")["x"].group is None
