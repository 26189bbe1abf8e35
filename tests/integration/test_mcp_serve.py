"""``tooldeck serve`` end to end: the real console script, spoken to with the ``mcp`` client.

Over stdio (the client spawns the server) and over Streamable HTTP on a free
127.0.0.1 port (the test spawns it and polls the port). Every wait has a
generous deadline; nothing sleeps for a fixed time to let something happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.client.streamable_http import streamable_http_client

from tests.serve_process import free_port, serve_process
from tooldeck.manifest import from_manifests
from tooldeck.mcp._serving.approval import NO_ELICITATION, STATELESS

pytestmark = pytest.mark.slow

TOOLDECK = Path(sys.executable).parent / "tooldeck"
MODULE = "mcp_serve_handlers"
DEADLINE = 30.0

HANDLERS = """
from tooldeck import ToolContext

def add(a: int, b: int) -> int:
    return a + b


def boom(reason: str) -> str:
    raise RuntimeError(f"the handler broke: {reason}")


def stats(values: list) -> dict:
    return {"count": len(values), "total": sum(values)}


def write_note(text: str) -> str:
    with open("note.txt", "w", encoding="utf-8") as f:
        f.write(text)
    return "written"


def whoami(ctx: ToolContext) -> dict:
    return {k: v for k, v in ctx.extra.items() if k.startswith("mcp_")}


def evens(n: int) -> list[int]:
    return list(range(0, n, 2))


def liar() -> dict[str, int]:
    return {"a": "not a number"}


def heap() -> dict:
    import gc

    return {"frozen": gc.get_freeze_count(), "threshold": list(gc.get_threshold())}
"""

MANIFEST = f"""\
version: 1
bundle: demo
tools:
  - name: add
    handler: {MODULE}:add
    description: Add two integers.
    tags: [math, read-only]
    idempotent: true
    params:
      - {{name: a, type: integer, description: "First addend"}}
      - {{name: b, type: integer, description: "Second addend"}}
  - name: boom
    handler: {MODULE}:boom
    description: Always fails.
    params:
      - {{name: reason, description: "Why it fails"}}
  - name: stats
    handler: {MODULE}:stats
    description: Count and total a list of numbers.
    params:
      - {{name: values, type: array, items: {{type: number}}, description: "Numbers"}}
  - name: write_note
    handler: {MODULE}:write_note
    description: Write a note file in the project directory.
    side_effects: true
    effect: writes note.txt in the project directory
    params:
      - {{name: text, description: "What the note says"}}
  - name: whoami
    handler: {MODULE}:whoami
    description: Say which MCP session and request this call came from.
  - name: evens
    handler: {MODULE}:evens
    description: The even numbers below n.
    params:
      - {{name: n, type: integer, description: "Upper bound"}}
  - name: liar
    handler: {MODULE}:liar
    description: Returns what its annotation says it does not.
prompts:
  - name: greet
    role: user
    description: Greet someone.
    template: "Say hello to {{who}} in {{language}}."
    params:
      - {{name: who, description: "Who to greet"}}
      - {{name: language, description: "Which language", default: "English"}}
"""

EXTRA_TOOL = f"""\
  - name: double
    handler: {MODULE}:add
    description: Added by a reload.
    params:
      - {{name: a, type: integer, description: "x"}}
      - {{name: b, type: integer, description: "y"}}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / f"{MODULE}.py").write_text(HANDLERS, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    return tmp_path


def serve_args(*extra: str) -> list[str]:
    return ["serve", "-m", "tools.yaml", "--allow-handlers", MODULE, *extra]


def local_schema(project: Path, name: str) -> dict[str, Any]:
    """The schema a registry built in this process from the same manifest gives."""
    sys.path.insert(0, str(project))
    try:
        registry = from_manifests(
            [project / "tools.yaml"], project_dir=project, allow_handlers=[MODULE]
        )
        return registry.input_schema(name)
    finally:
        sys.path.remove(str(project))
        sys.modules.pop(MODULE, None)


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Notes:
    """A ``message_handler`` that records the methods of server notifications."""

    def __init__(self) -> None:
        self.methods: list[str] = []
        self.arrived = asyncio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        self.methods.append(message.method)
        self.arrived.set()

    async def wait_for(self, method: str) -> None:
        async with asyncio.timeout(DEADLINE):
            while method not in self.methods:
                self.arrived.clear()
                await self.arrived.wait()


class Approver:
    """An ``elicitation_callback``: records each question and answers it as told."""

    def __init__(self, action: str = "accept", approve: bool = True) -> None:
        self.action = action
        self.approve = approve
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.asked.append(params)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
        return types.ElicitResult(action="accept", content={"approve": self.approve})


@contextlib.asynccontextmanager
async def stdio_session(
    project: Path,
    *extra: str,
    notes: Notes | None = None,
    elicitation: ElicitationFnT | None = None,
) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(TOOLDECK), args=serve_args(*extra), cwd=str(project))
    with (project / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(
                read,
                write,
                message_handler=notes,
                elicitation_callback=elicitation,
                read_timeout_seconds=DEADLINE,
            ) as s,
        ):
            async with asyncio.timeout(DEADLINE):
                await s.initialize()
            yield s


@contextlib.contextmanager
def http_server(project: Path, *extra: str) -> Iterator[str]:
    """Start ``tooldeck serve --transport http`` and yield its URL once the port answers."""
    port = free_port()
    argv = [str(TOOLDECK), *serve_args("--transport", "http", "--port", str(port), *extra)]
    with serve_process(argv, cwd=project, port=port, log=project / "http.log", deadline=DEADLINE):
        yield f"http://127.0.0.1:{port}/mcp"


@contextlib.asynccontextmanager
async def http_session(
    url: str, elicitation: ElicitationFnT | None = None
) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(
            read, write, elicitation_callback=elicitation, read_timeout_seconds=DEADLINE
        ) as s,
    ):
        async with asyncio.timeout(DEADLINE):
            await s.initialize()
        yield s


# ------------------------------------------------------------------ the checks


async def check_tools_and_calls(session: ClientSession, project: Path) -> None:
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert sorted(listed) == ["add", "boom", "evens", "liar", "stats", "whoami", "write_note"]
    add = listed["add"]
    assert add.input_schema == local_schema(project, "add")
    assert add.description == "Add two integers."
    assert add.annotations is not None
    assert add.annotations.read_only_hint is True
    assert add.annotations.idempotent_hint is True
    assert add.annotations.destructive_hint is None
    write = listed["write_note"].annotations
    assert write is not None
    assert write.destructive_hint is True
    assert write.read_only_hint is None

    ok = await session.call_tool("add", {"a": 2, "b": 3})
    assert not ok.is_error
    assert text_of(ok) == "5"

    structured = await session.call_tool("stats", {"values": [1, 2, 3.5]})
    assert not structured.is_error
    assert structured.structured_content == {"count": 3, "total": 6.5}

    # outputSchema from the return annotation; ClientSession validates every result against it
    assert add.output_schema is None  # int: text only
    assert listed["stats"].output_schema is None  # a bare dict: {"type": "object"} says nothing
    assert listed["evens"].output_schema == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
        "required": ["result"],
        "additionalProperties": False,
    }
    wrapped = await session.call_tool("evens", {"n": 5})
    assert not wrapped.is_error, text_of(wrapped)
    assert wrapped.structured_content == {"result": [0, 2, 4]}
    liar = await session.call_tool("liar", {})  # would raise in the client if sent as structure
    assert liar.is_error
    assert "does not match its declared return type" in text_of(liar)

    invalid = await session.call_tool("add", {"a": "two"})
    assert invalid.is_error
    words = text_of(invalid)
    assert "a" in words
    assert "b" in words  # the missing argument is named
    assert "integer" in words

    failed = await session.call_tool("boom", {"reason": "on purpose"})
    assert failed.is_error
    assert "on purpose" in text_of(failed)
    assert "Traceback" not in text_of(failed)

    unknown = await session.call_tool("nope", {})
    assert unknown.is_error
    assert "nope" in text_of(unknown)


async def check_prompts(session: ClientSession) -> None:
    prompts = (await session.list_prompts()).prompts
    assert [p.name for p in prompts] == ["greet"]
    arguments = {a.name: a.required for a in prompts[0].arguments or []}
    assert arguments == {"who": True, "language": False}
    got = await session.get_prompt("greet", {"who": "Ada", "language": "French"})
    assert len(got.messages) == 1
    message = got.messages[0]
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent)
    assert message.content.text == "Say hello to Ada in French."


async def test_stdio_lists_and_calls_tools_and_prompts(project: Path):
    async with stdio_session(project) as session:
        await check_tools_and_calls(session, project)
        await check_prompts(session)


async def test_stdio_denies_side_effects_by_default(project: Path):
    async with stdio_session(project) as session:
        denied = await session.call_tool("write_note", {"text": "hi"})
    assert denied.is_error
    assert NO_ELICITATION in text_of(denied)
    assert not (project / "note.txt").exists()


async def test_stdio_allows_side_effects_when_asked(project: Path):
    async with stdio_session(project, "--allow-side-effects") as session:
        allowed = await session.call_tool("write_note", {"text": "hi"})
    assert not allowed.is_error, text_of(allowed)
    assert (project / "note.txt").read_text(encoding="utf-8") == "hi"


async def test_stdio_asks_the_client_by_elicitation_and_runs_on_approval(project: Path):
    approver = Approver()
    async with stdio_session(project, elicitation=approver) as session:
        allowed = await session.call_tool("write_note", {"text": "approved"})
    assert not allowed.is_error, text_of(allowed)
    assert (project / "note.txt").read_text(encoding="utf-8") == "approved"
    [asked] = approver.asked
    assert isinstance(asked, types.ElicitRequestFormParams)
    assert "'write_note'" in asked.message
    assert "writes note.txt in the project directory" in asked.message
    assert '"text": "approved"' in asked.message
    assert asked.requested_schema["properties"]["approve"]["type"] == "boolean"


@pytest.mark.parametrize(
    ("approver", "words"),
    [
        (Approver("decline"), "the user declined it"),
        (Approver("cancel"), "dismissed the approval request"),
        (Approver("accept", approve=False), "the user did not approve it"),
    ],
)
async def test_stdio_runs_nothing_unless_approved(project: Path, approver: Approver, words: str):
    async with stdio_session(project, elicitation=approver) as session:
        denied = await session.call_tool("write_note", {"text": "no"})
        after = await session.call_tool("add", {"a": 1, "b": 1})
    assert denied.is_error
    assert words in text_of(denied)
    assert "Error (denied)" in text_of(denied)
    assert not (project / "note.txt").exists()
    assert text_of(after) == "2"  # the session goes on


async def test_stdio_allow_side_effects_never_asks(project: Path):
    approver = Approver("decline")
    async with stdio_session(project, "--allow-side-effects", elicitation=approver) as session:
        allowed = await session.call_tool("write_note", {"text": "unasked"})
    assert not allowed.is_error, text_of(allowed)
    assert approver.asked == []
    assert (project / "note.txt").read_text(encoding="utf-8") == "unasked"


async def test_http_asks_the_client_within_the_call(project: Path):
    approve, decline = Approver(), Approver("decline")
    with http_server(project) as url:
        async with http_session(url, elicitation=decline) as session:
            denied = await session.call_tool("write_note", {"text": "declined"})
        assert denied.is_error
        assert "the user declined it" in text_of(denied)
        assert not (project / "note.txt").exists()
        async with http_session(url, elicitation=approve) as session:
            allowed = await session.call_tool("write_note", {"text": "over http, approved"})
    assert not allowed.is_error, text_of(allowed)
    assert (project / "note.txt").read_text(encoding="utf-8") == "over http, approved"
    assert len(approve.asked) == len(decline.asked) == 1


async def test_http_stateless_cannot_ask_and_denies_side_effects(project: Path):
    """No session carries the question back: denied with how to allow, the client not asked."""
    approver = Approver()
    with http_server(project, "--stateless") as url:
        async with http_session(url, elicitation=approver) as session:
            denied = await session.call_tool("write_note", {"text": "hi"})
    assert denied.is_error
    assert STATELESS in text_of(denied)
    assert approver.asked == []
    assert not (project / "note.txt").exists()
    with http_server(project, "--stateless", "--allow-side-effects") as url:
        async with http_session(url, elicitation=approver) as session:
            allowed = await session.call_tool("write_note", {"text": "stateless, allowed"})
    assert not allowed.is_error, text_of(allowed)
    assert (project / "note.txt").read_text(encoding="utf-8") == "stateless, allowed"


async def test_reload_serves_with_the_same_approval(project: Path):
    approver = Approver()
    async with stdio_session(project, "--reload", elicitation=approver) as session:
        allowed = await session.call_tool("write_note", {"text": "reloaded"})
    assert not allowed.is_error, text_of(allowed)
    assert len(approver.asked) == 1


async def test_stdio_denies_when_nobody_answers_within_the_approval_timeout(project: Path):
    class Silent(Approver):
        async def __call__(
            self, context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            self.asked.append(params)
            await asyncio.Event().wait()  # the user walked away (cancelled by the server)
            raise AssertionError("unreachable")

    silent = Silent()
    async with stdio_session(project, "--approval-timeout", "0.5", elicitation=silent) as session:
        denied = await session.call_tool("write_note", {"text": "too late"})
        after = await session.call_tool("add", {"a": 2, "b": 2})
    assert denied.is_error
    assert "nobody answered the approval request within 0.5 s" in text_of(denied)
    assert not (project / "note.txt").exists()
    assert len(silent.asked) == 1
    assert text_of(after) == "4"


def test_serve_refuses_a_non_positive_approval_timeout(project: Path):
    done = subprocess.run(
        [str(TOOLDECK), *serve_args("--approval-timeout", "0")],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
    )
    assert done.returncode == 2
    assert "--approval-timeout must be a positive number" in done.stderr


async def test_http_lists_and_calls_tools_and_prompts(project: Path):
    with http_server(project) as url:
        async with http_session(url) as session:
            await check_tools_and_calls(session, project)
            await check_prompts(session)
            denied = await session.call_tool("write_note", {"text": "hi"})
    assert denied.is_error
    assert NO_ELICITATION in text_of(denied)


async def test_http_allows_side_effects_when_asked(project: Path):
    with http_server(project, "--allow-side-effects") as url:
        async with http_session(url) as session:
            allowed = await session.call_tool("write_note", {"text": "over http"})
    assert not allowed.is_error, text_of(allowed)
    assert (project / "note.txt").read_text(encoding="utf-8") == "over http"


async def test_http_stateless_serves_calls(project: Path):
    with http_server(project, "--stateless") as url:
        async with http_session(url) as session:
            ok = await session.call_tool("add", {"a": 40, "b": 2})
            names = [t.name for t in (await session.list_tools()).tools]
    assert text_of(ok) == "42"
    assert "add" in names


def save(path: Path, text: str) -> None:
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def test_stdio_reload_announces_tool_list_changes_and_keeps_the_last_good(project: Path):
    notes = Notes()
    manifest = project / "tools.yaml"
    async with stdio_session(project, "--reload", notes=notes) as session:
        before = [t.name for t in (await session.list_tools()).tools]
        assert before == ["add", "boom", "stats", "write_note", "whoami", "evens", "liar"]

        with_extra = MANIFEST.replace("prompts:\n", EXTRA_TOOL + "prompts:\n")
        save(manifest, with_extra)
        await notes.wait_for("notifications/tools/list_changed")
        after = [t.name for t in (await session.list_tools()).tools]
        assert after == [*before, "double"]

        notes.methods.clear()
        save(manifest, with_extra.replace("tools:\n", "tools: [\n"))  # broken YAML
        await _wait_for_stderr(project, "tools.yaml")
        assert "notifications/tools/list_changed" not in notes.methods
        kept = [t.name for t in (await session.list_tools()).tools]
        assert kept == after
        still = await session.call_tool("double", {"a": 1, "b": 1})
        assert text_of(still) == "2"


async def _wait_for_stderr(project: Path, word: str) -> None:
    """The broken save was seen: the server reported it on stderr."""
    log = project / "stderr.log"
    async with asyncio.timeout(DEADLINE):
        while word not in log.read_text(encoding="utf-8"):
            await asyncio.sleep(0.1)


async def test_stateless_requests_may_alternate_between_two_server_processes(project: Path):
    """Replicas behind any load balancer: each request goes to the other process in turn."""
    import httpx2

    class Alternating(httpx2.AsyncBaseTransport):
        """Sends request N to ports[N % 2]: a round-robin balancer with no affinity."""

        def __init__(self, ports: list[int]) -> None:
            self.ports = ports
            self.sent: list[int] = []
            self.inner = httpx2.AsyncHTTPTransport()

        async def handle_async_request(self, request: Any) -> Any:
            port = self.ports[len(self.sent) % 2]
            self.sent.append(port)
            request.url = request.url.copy_with(port=port)
            return await self.inner.handle_async_request(request)

        async def aclose(self) -> None:
            await self.inner.aclose()

    with (
        http_server(project, "--stateless") as first,
        http_server(project, "--stateless") as second,
    ):
        ports = [
            int(first.rsplit(":", 1)[1].split("/")[0]),
            int(second.rsplit(":", 1)[1].split("/")[0]),
        ]
        transport = Alternating(ports)
        async with (
            httpx2.AsyncClient(transport=transport, timeout=DEADLINE) as client,
            streamable_http_client(first, http_client=client) as (read, write),
            ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
        ):
            async with asyncio.timeout(DEADLINE):
                await session.initialize()
                results = []
                for a in range(4):
                    names = [t.name for t in (await session.list_tools()).tools]
                    results.append(
                        (text_of(await session.call_tool("add", {"a": a, "b": 1})), names)
                    )
    assert [text for text, _ in results] == ["1", "2", "3", "4"]
    assert all("add" in names for _, names in results)
    assert set(transport.sent) == set(ports)  # both processes really answered


async def test_handlers_see_the_mcp_session_and_request_ids(project: Path):
    """The Java functional-tools SPI passes the client session id to handlers; so do we."""
    with http_server(project) as url:
        async with http_session(url) as session:
            first = (await session.call_tool("whoami", {})).structured_content
            second = (await session.call_tool("whoami", {})).structured_content
    assert first is not None
    assert second is not None
    assert first["mcp_session_id"]  # the Mcp-Session-Id of this HTTP session
    assert first["mcp_session_id"] == second["mcp_session_id"]
    assert first["mcp_request_id"] != second["mcp_request_id"]
    async with stdio_session(project) as session:
        over_stdio = (await session.call_tool("whoami", {})).structured_content
    assert over_stdio is not None
    assert over_stdio["mcp_request_id"] is not None


HEAP_TOOL = f"""\
version: 1
tools:
  - name: heap
    handler: {MODULE}:heap
    description: How many objects the serving process froze out of the collector's reach.
"""


async def test_the_serving_process_freezes_what_it_loaded(project: Path):
    """A process that only serves moves its startup objects out of the cyclic collector's
    reach and collects the second generation less often (with_reload's tune_gc)."""
    (project / "heap.yaml").write_text(HEAP_TOOL, encoding="utf-8")
    async with stdio_session(project, "-m", "heap.yaml") as session:
        over_stdio = (await session.call_tool("heap", {})).structured_content
    with http_server(project, "-m", "heap.yaml", "--reload") as url:
        async with http_session(url) as session:
            over_http = (await session.call_tool("heap", {})).structured_content
    assert over_stdio is not None
    assert over_http is not None
    assert over_stdio["frozen"] > 10_000  # the modules and the registry: tens of thousands
    assert over_http["frozen"] > 10_000
    assert over_stdio["threshold"][1] == over_http["threshold"][1] == 100
