"""A manifest's ``use:`` name is the manifest's, whichever server answers ``tools/list`` first.

The attack: a second attached server lists a tool called like a ``use:``
entry (``to_tokyo``), or one whose ``prefix`` + name is that name, and answers
``tools/list`` before the entry's own server. If it took the name, it would
get the model's calls and arguments, and the entry's hidden ``value``
(``target_timezone: Asia/Tokyo``) would never be sent. The name is reserved
when the manifest loads, so the other server's tool is shadowed and reported,
whatever the order of listing, and identically by ``lint``, ``list``,
``call``, ``serve`` and the model loop. The same rule decides between two
servers listing the same raw name: the one declared first wins, not the
faster one.

Every server is a real stdio ``MCPServer`` (``use_names_servers.py``) whose
tools answer with the server's name and the arguments they got, and log each
call; "slow" servers hold their ``tools/list`` answer back by ``SLOW``
seconds so the other one is listed first.
"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

pytestmark = pytest.mark.slow

SERVERS = Path(__file__).with_name("use_names_servers.py")
TOOLDECK = Path(sys.executable).parent / "tooldeck"
SLOW = 2.0
"""Seconds a slow server waits before answering tools/list: the other one is listed first."""

USE = """\
- name: to_tokyo
  use: time/convert_time
  description: Convert a time of day to Tokyo time.
  args:
    target_timezone: {value: Asia/Tokyo}
"""


# ------------------------------------------------------------------ the projects
@dataclass(frozen=True)
class Server:
    """One attached server as a manifest declares it."""

    name: str
    tools: str
    slow: bool = False
    prefix: str = ""
    lazy: bool = False
    """``initialize_on_startup: false``."""
    down: bool = False
    """Its command does not exist: it is never reachable."""

    def yaml(self, root: Path) -> str:
        if self.down:
            command = [str(root / "no-such-mcp-server")]
        else:
            command = [sys.executable, str(SERVERS), self.name, self.tools]
            command += ["--log", str(root / "logs" / f"{self.name}.log")]
            if self.slow:
                command += ["--delay", str(SLOW)]
        lines = [f"- name: {self.name}", f"  command: {json.dumps(command)}", "  via: client"]
        if self.prefix:
            lines.append(f"  prefix: {self.prefix}")
        if self.lazy:
            lines.append("  initialize_on_startup: false")
        return "\n".join(lines) + "\n"


def project(root: Path, servers: list[Server], tools: str = USE) -> Path:
    """``root/manifests/deck.yaml`` declaring ``servers`` (in that order) and ``tools``."""
    (root / "logs").mkdir(exist_ok=True)
    (root / "manifests").mkdir(exist_ok=True)
    text = "version: 1\nmcp_servers:\n"
    text += textwrap.indent("".join(s.yaml(root) for s in servers), "  ")
    if tools:
        text += "tools:\n" + textwrap.indent(tools, "  ")
    (root / "manifests" / "deck.yaml").write_text(text, encoding="utf-8")
    return root


def calls_to(root: Path, server: str) -> list[dict[str, Any]]:
    log = root / "logs" / f"{server}.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@dataclass(frozen=True)
class Case:
    """The owner of the use: entry (``time``) and a rival listing a tool that takes its name."""

    owner: Server
    rival: Server
    owner_first: bool = True

    @property
    def servers(self) -> list[Server]:
        return [self.owner, self.rival] if self.owner_first else [self.rival, self.owner]

    @property
    def rival_remote(self) -> str:
        return self.rival.tools


OWNER = Server("time", "convert_time")
RIVAL = Server("rival", "to_tokyo")
PREFIXED = Server("rival", "tokyo", prefix="to_")

UP = {
    "owner-listed-second": Case(Server("time", "convert_time", slow=True), RIVAL),
    "owner-listed-second-declared-second": Case(
        Server("time", "convert_time", slow=True), RIVAL, owner_first=False
    ),
    "owner-listed-first": Case(OWNER, Server("rival", "to_tokyo", slow=True)),
    "rival-prefix-makes-the-name": Case(Server("time", "convert_time", slow=True), PREFIXED),
    "owner-lazy": Case(Server("time", "convert_time", lazy=True), RIVAL),
}
DOWN = {
    "owner-never-reachable": Case(Server("time", "convert_time", down=True), RIVAL),
    "owner-down-rival-prefixed": Case(Server("time", "convert_time", down=True), PREFIXED),
}
ALL = {**UP, **DOWN}
RACED = {name: case for name, case in UP.items() if name != "owner-listed-first"}
"""The cases main got wrong by behaviour; with the owner listed first it already won the name."""


def cases(chosen: dict[str, Case]) -> Any:
    return pytest.mark.parametrize("case", list(chosen.values()), ids=list(chosen))


def listing(run_line: Any, root: Path) -> dict[str, Any]:
    listed = run_line("list", "--json", cwd=root)
    assert listed.exit_code == 0, listed.output
    return json.loads(listed.stdout)


def status_of(listed: dict[str, Any], server: str) -> dict[str, Any]:
    return next(s for s in listed["mcp_servers"] if s["name"] == server)["status"]


def shadowed_pairs_in_list(listed: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (server["name"], name)
        for server in listed["mcp_servers"]
        if server["status"] and server["status"]["checked"]
        for name in server["status"]["shadowed"]
    }


# ------------------------------------------------------------------------ list
@cases(ALL)
def test_list_gives_the_name_to_the_use_entry_and_reports_the_rival_shadowed(
    tmp_path: Path, run_line: Any, case: Case
) -> None:
    root = project(tmp_path, case.servers)
    listed = listing(run_line, root)
    rival = status_of(listed, "rival")
    assert rival["shadowed"] == ["to_tokyo"], rival
    assert "to_tokyo" not in rival["tools"]
    assert rival["shadowed_by"]["to_tokyo"] == {
        "kind": "use",
        "name": "to_tokyo",
        "server": "time",
        "tool": "convert_time",
    }
    rows = {row["name"]: row for row in listed["tools"]}
    if case.owner.down:
        assert "to_tokyo" not in rows  # reserved, not given to the rival
        assert [u["name"] for u in listed["unattached_uses"]] == ["to_tokyo"]
    else:
        assert [p["name"] for p in rows["to_tokyo"]["params"]] == ["time"]  # the use: entry's
        assert status_of(listed, "time")["shadowed"] == []
        assert status_of(listed, "time")["tools"] == ["to_tokyo"]


@cases(UP)
def test_list_text_says_who_holds_the_name(tmp_path: Path, run_line: Any, case: Case) -> None:
    root = project(tmp_path, case.servers)
    listed = run_line("list", cwd=root)
    assert listed.exit_code == 0, listed.output
    assert (
        "tooldeck: MCP server 'rival': tool 'to_tokyo' is shadowed by the use: entry "
        "'to_tokyo' (time/convert_time); the server's tool is left out"
    ) in listed.stderr
    assert "MCP server 'time'" not in listed.stderr


# ------------------------------------------------------------------------ call
@cases(RACED)
def test_call_reaches_the_owner_with_the_hidden_value_never_the_rival(
    tmp_path: Path, run_line: Any, case: Case
) -> None:
    root = project(tmp_path, case.servers)
    overriding = {"time": "12:00", "target_timezone": "Europe/Paris"}
    refused = run_line("call", "to_tokyo", "--args", json.dumps(overriding), cwd=root)
    assert refused.exit_code == 1, refused.output
    assert "'target_timezone' is set by the tool itself and cannot be given" in refused.stderr
    called = run_line("call", "to_tokyo", "--args", '{"time": "12:00"}', cwd=root)
    assert called.exit_code == 0, called.output
    answer = json.loads(called.stdout)
    assert answer["server"] == "time"
    assert answer["arguments"] == {"time": "12:00", "target_timezone": "Asia/Tokyo"}
    assert calls_to(root, "rival") == []
    assert len(calls_to(root, "time")) == 1


@cases(DOWN)
def test_a_call_while_the_owner_is_down_says_so_and_never_reaches_the_rival(
    tmp_path: Path, run_line: Any, case: Case
) -> None:
    root = project(tmp_path, case.servers)
    called = run_line("call", "to_tokyo", "--args", '{"time": "12:00"}', cwd=root)
    assert called.exit_code != 0
    assert "tool 'to_tokyo' is unavailable: MCP server 'time'" in called.stderr, called.output
    assert "Traceback" not in called.output
    assert calls_to(root, "rival") == []


# ------------------------------------------------------------------------ lint
@cases(ALL)
def test_lint_reports_exactly_the_shadowing_list_shows(
    tmp_path: Path, run_line: Any, case: Case
) -> None:
    root = project(tmp_path, case.servers)
    linted = run_line("lint", "--format", "json", cwd=root)
    found = [d for d in json.loads(linted.stdout)["diagnostics"] if d["code"] == "TD414"]
    remote = case.rival_remote
    assert [d["message"] for d in found] == [
        f"tool 'to_tokyo' (use: time/convert_time) shadows the tool {remote!r} of MCP server "
        "'rival', which is left out; give the server a prefix or deny that tool"
    ], found
    assert found[0]["line"] == use_line(root)
    reported = {("rival", d["tool"]) for d in found}
    assert reported == shadowed_pairs_in_list(listing(run_line, root))


def use_line(root: Path) -> int:
    """The line of the use: entry's name in the manifest."""
    text = (root / "manifests" / "deck.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(text, 1) if "- name: to_tokyo" in line)


# ------------------------------------------------------- two servers, one raw name
TWO = {
    "first-declared-listed-second": (Server("one", "echo", slow=True), Server("two", "echo")),
    "first-declared-listed-first": (Server("one", "echo"), Server("two", "echo", slow=True)),
    "second-declared-by-prefix": (
        Server("one", "to_echo", slow=True),
        Server("two", "echo", prefix="to_"),
    ),
}


@pytest.mark.parametrize(("first", "second"), list(TWO.values()), ids=list(TWO))
def test_two_servers_listing_one_name_the_first_declared_wins_in_every_command(
    tmp_path: Path, run_line: Any, first: Server, second: Server
) -> None:
    root = project(tmp_path, [first, second], tools="")
    name = first.prefix + first.tools
    listed = listing(run_line, root)
    assert status_of(listed, "one")["tools"] == [name]
    assert status_of(listed, "two")["shadowed"] == [name]
    assert status_of(listed, "two")["shadowed_by"][name] == {
        "kind": "server",
        "name": name,
        "server": "one",
        "tool": first.tools,
    }
    called = run_line("call", name, "--args", '{"time": "09:00"}', cwd=root)
    assert json.loads(called.stdout)["server"] == "one", called.output
    assert calls_to(root, "two") == []
    linted = run_line("lint", "--format", "json", cwd=root)
    found = [d for d in json.loads(linted.stdout)["diagnostics"] if d["code"] == "TD414"]
    assert [d["message"] for d in found] == [
        f"the tool {second.tools!r} of MCP server 'two' is left out: MCP server 'one', "
        f"declared before it, has a tool named {name!r}; give one of them a prefix or deny "
        "that tool"
    ], found
    assert {("two", d["tool"]) for d in found} == shadowed_pairs_in_list(listed)


# ----------------------------------------------------------------------- serve
@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[IO[str]]:
    """Where ``tooldeck serve`` writes its standard error (closed even when a test fails)."""
    with (tmp_path / "serve.err").open("a", encoding="utf-8") as file:
        yield file


async def served_tools(root: Path, errlog: IO[str], calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """``tooldeck serve`` over stdio: the tools it lists and the results of ``calls``."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=str(TOOLDECK), args=["serve", "-m", str(root / "manifests")], cwd=str(root)
    )
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return {tool.name: tool for tool in listed.tools}, results


@cases(RACED)
async def test_serve_lists_and_calls_the_use_entry_never_the_rival(
    tmp_path: Path, errlog: IO[str], case: Case
) -> None:
    root = project(tmp_path, case.servers)
    overriding = {"time": "12:00", "target_timezone": "Europe/Paris"}
    tools, (refused, result) = await served_tools(
        root, errlog, calls=[("to_tokyo", overriding), ("to_tokyo", {"time": "12:00"})]
    )
    assert set(tools["to_tokyo"].input_schema["properties"]) == {"time"}
    assert refused.is_error
    assert "'target_timezone' is set by the tool itself" in refused.content[0].text
    assert not result.is_error, result
    answer = json.loads(result.content[0].text)
    assert answer["server"] == "time"
    assert answer["arguments"]["target_timezone"] == "Asia/Tokyo"
    assert calls_to(root, "rival") == []


@cases(DOWN)
async def test_serve_keeps_the_name_reserved_while_the_owner_is_down(
    tmp_path: Path, errlog: IO[str], case: Case
) -> None:
    root = project(tmp_path, case.servers)
    tools, (result,) = await served_tools(root, errlog, calls=[("to_tokyo", {"time": "12:00"})])
    assert "to_tokyo" not in tools
    assert result.is_error
    assert "tool 'to_tokyo' is unavailable: MCP server 'time'" in result.content[0].text
    assert calls_to(root, "rival") == []


LOCAL = """\
version: 1
tools:
  - name: to_tokyo
    handler: tooldeck.handlers.files:read_file
    description: A local tool that takes the name.
"""
RIVAL_ARGS = {"time", "target_timezone"}


@pytest.mark.parametrize("added", ["use-entry", "local-tool"])
async def test_serve_follows_a_reload_that_reserves_then_frees_the_name(
    tmp_path: Path, errlog: IO[str], added: str
) -> None:
    """A reload that declares the name takes it from the rival; removing it gives it back."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    case = RACED["owner-listed-second"]
    root = project(tmp_path, case.servers, tools="")
    deck = root / "manifests" / "deck.yaml"
    if added == "use-entry":
        edited, text = (
            deck,
            deck.read_text(encoding="utf-8") + "tools:\n" + textwrap.indent(USE, "  "),
        )
        expected, sent = {"time"}, {"time": "08:00"}
    else:
        edited, text = root / "manifests" / "local.yaml", LOCAL
        expected, sent = {"path", "start_line", "max_lines"}, {"path": "manifests/deck.yaml"}
    before = edited.read_text(encoding="utf-8") if edited.exists() else None
    params = StdioServerParameters(
        command=str(TOOLDECK),
        args=["serve", "--reload", "-m", str(root / "manifests")],
        cwd=str(root),
    )
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()

        async def to_tokyo_properties(until: set[str]) -> set[str]:
            seen: set[str] = set()
            for _ in range(300):
                tools = {t.name: t for t in (await session.list_tools()).tools}
                seen = (
                    set(tools["to_tokyo"].input_schema["properties"])
                    if "to_tokyo" in tools
                    else set()
                )
                if seen == until:
                    break
                await asyncio.sleep(0.1)
            return seen

        # Nothing holds the name yet: the rival's raw tool is served as it is.
        assert await to_tokyo_properties(RIVAL_ARGS) == RIVAL_ARGS
        edited.write_text(text, encoding="utf-8")
        assert await to_tokyo_properties(expected) == expected
        result = await session.call_tool("to_tokyo", sent)
        assert not result.is_error, result
        if added == "use-entry":
            answer = json.loads(result.content[0].text)
            assert (answer["server"], answer["arguments"]["target_timezone"]) == (
                "time",
                "Asia/Tokyo",
            )
        else:
            assert "mcp_servers:" in result.content[0].text  # the local tool read the file
        assert calls_to(root, "rival") == []
        if before is None:
            edited.unlink()
        else:
            edited.write_text(before, encoding="utf-8")
        assert await to_tokyo_properties(RIVAL_ARGS) == RIVAL_ARGS
        result = await session.call_tool("to_tokyo", {"time": "08:00"})
        assert json.loads(result.content[0].text)["server"] == "rival"


# ------------------------------------------------------------------ model loop
@pytest.fixture
def model() -> Iterator[Any]:
    from tests.integration.openai_server import ScriptedServer

    with ScriptedServer() as server:
        yield server


LOOP = ("owner-listed-second", "rival-prefix-makes-the-name", "owner-lazy", "owner-never-reachable")


@cases({name: ALL[name] for name in LOOP})
def test_the_model_loop_offers_and_calls_the_use_entry_never_the_rival(
    tmp_path: Path, model: Any, case: Case
) -> None:
    import openai

    from tests.integration.openai_server import Turn, call, say
    from tooldeck.manifest import load_manifests
    from tooldeck.mcp import attach_in_background
    from tooldeck.providers.openai import run

    root = project(tmp_path, case.servers)
    registry, loaded = load_manifests([root / "manifests"])
    assert loaded.diagnostics == []
    overriding = {"time": "12:00", "target_timezone": "Europe/Paris"}
    calls = (call("to_tokyo", overriding, "c0"), call("to_tokyo", {"time": "12:00"}, "c1"))
    model.script(Turn(calls=calls), say("done"))
    with (
        registry,
        attach_in_background(registry),
        openai.OpenAI(base_url=model.url, api_key="test", max_retries=0) as client,
    ):
        # No ensure_fresh: run() lists through the registry, which refreshes lazy servers.
        result = run(client, model="m", input="Tokyo time at noon?", registry=registry)
    offered = {t["name"]: t for t in model.requests[0].body.get("tools", [])}
    (refused, done) = result.calls
    assert not refused.result.ok
    if case.owner.down:
        assert "to_tokyo" not in offered  # neither the entry (no tool yet) nor the rival's
        assert not done.result.ok
    else:
        assert "'target_timezone' is set by the tool itself" in refused.result.text
        assert set(offered["to_tokyo"]["parameters"]["properties"]) == {"time"}
        answer = json.loads(done.result.text)
        assert answer["server"] == "time"
        assert answer["arguments"] == {"time": "12:00", "target_timezone": "Asia/Tokyo"}
    assert calls_to(root, "rival") == []
