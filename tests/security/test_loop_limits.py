"""One model reply cannot make the loop run thousands of tool calls.

A reply may ask for any number of function calls. The loop runs at most
``max_tool_calls_per_turn`` of them (64 by default), the first ones in the model's order, and
answers every later one with an error output the model reads, because both APIs need an
output for each call id. Driven through the real ``openai`` client against the scripted
loopback server, for the Responses API and Chat Completions, ``run`` and ``arun``, and the
``tooldeck chat`` command.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.acceptance.test_cli_chat import MANIFESTS
from tests.integration.openai_server import Approval, ScriptedServer, Turn, call, say
from tests.scripted_model import model, server
from tooldeck import ToolRegistry
from tooldeck.providers.openai import LoopResult, arun, run

__all__ = ["model", "server"]  # fixtures, used by name

APIS = ["responses", "chat"]
ASKED = 500


@pytest.fixture
def client(model: ScriptedServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=model.url, api_key="test", max_retries=0, timeout=120) as made:
        yield made


@pytest.fixture
async def aclient(model: ScriptedServer) -> Any:
    async with openai.AsyncOpenAI(
        base_url=model.url, api_key="test", max_retries=0, timeout=120
    ) as made:
        yield made


class Counter:
    """A tool that counts how often it really ran."""

    def __init__(self) -> None:
        self.ran = 0
        self._lock = threading.Lock()

    def registry(self) -> ToolRegistry:
        def ping(n: int) -> str:
            """Answer pong with the number given.

            Args:
                n: Any number.
            """
            with self._lock:
                self.ran += 1
            return f"pong {n}"

        registry = ToolRegistry()
        registry.add_tool(None, None, ping)
        return registry


def flood(count: int = ASKED, name: str = "ping") -> Turn:
    return Turn(calls=tuple(call(name, {"n": i}, f"call_{i}") for i in range(count)))


def outputs(model: ScriptedServer, api: str) -> dict[str, str]:
    """The outputs the second request sent back, by call id, in order."""
    body = model.bodies()[1]
    if api == "responses":
        items = [i for i in body["input"] if i.get("type") == "function_call_output"]
        return {i["call_id"]: i["output"] for i in items}
    messages = [m for m in body["messages"] if m["role"] == "tool"]
    return {m["tool_call_id"]: m["content"] for m in messages}


def refusal(asked: int, cap: int) -> str:
    return (
        f"Error (too_many_calls): not run: this turn asked for {asked} tool calls; at most {cap} "
        "run per turn (the first ones, in your order); ask again for any still needed"
    )


def check(result: LoopResult, model: ScriptedServer, api: str, counter: Counter, cap: int) -> None:
    assert counter.ran == cap
    assert result.text == "done"
    assert len(result.calls) == ASKED
    ran, refused = result.calls[:cap], result.calls[cap:]
    assert [c.result.text for c in ran] == [f"pong {i}" for i in range(cap)]
    assert all(c.result.error is not None for c in refused)
    assert {c.result.error.kind for c in refused if c.result.error} == {"too_many_calls"}
    sent = outputs(model, api)
    assert list(sent) == [f"call_{i}" for i in range(ASKED)]  # every call id, in order
    assert all(text == refusal(ASKED, cap) for text in list(sent.values())[cap:])


# ------------------------------------------------------------------ the library
@pytest.mark.parametrize("api", APIS)
def test_run_runs_64_calls_of_a_reply_asking_for_500(model, client, api):
    model.script(flood(), say("done"))
    counter = Counter()
    with counter.registry() as registry:
        result = run(client, model="m", input="?", registry=registry, api=api)
    check(result, model, api, counter, 64)


@pytest.mark.parametrize("api", APIS)
async def test_arun_runs_64_calls_of_a_reply_asking_for_500(model, aclient, api):
    model.script(flood(), say("done"))
    counter = Counter()
    with counter.registry() as registry:
        result = await arun(aclient, model="m", input="?", registry=registry, api=api)
    check(result, model, api, counter, 64)


@pytest.mark.parametrize("api", APIS)
def test_the_cap_is_configurable_and_sequential_runs_obey_it(model, client, api):
    model.script(flood(), say("done"))
    counter = Counter()
    with counter.registry() as registry:
        result = run(
            client,
            model="m",
            input="?",
            registry=registry,
            api=api,
            max_tool_calls_per_turn=3,
            parallel=False,
        )
    check(result, model, api, counter, 3)


@pytest.mark.parametrize("api", APIS)
async def test_arun_takes_the_cap_too(model, aclient, api):
    model.script(flood(), say("done"))
    counter = Counter()
    with counter.registry() as registry:
        result = await arun(
            aclient, model="m", input="?", registry=registry, api=api, max_tool_calls_per_turn=1
        )
    check(result, model, api, counter, 1)


def test_the_cap_holds_on_every_turn_and_on_call_sees_every_call(model, client):
    model.script(flood(100), flood(100), say("done"))
    counter, seen = Counter(), []
    with counter.registry() as registry:
        result = run(
            client,
            model="m",
            input="?",
            registry=registry,
            api="chat",  # the SDK's own request checks grow with the transcript: the quicker API
            max_tool_calls_per_turn=10,
            on_call=seen.append,
        )
    assert counter.ran == 20
    assert len(seen) == len(result.calls) == 200


def test_calls_to_unknown_tools_count_toward_the_cap(model, client):
    mixed = Turn(
        calls=(
            call("nope", {}, "u1"),
            call("nope", {}, "u2"),
            *(call("ping", {"n": i}, f"call_{i}") for i in range(10)),
        )
    )
    model.script(mixed, say("done"))
    counter = Counter()
    with counter.registry() as registry:
        result = run(client, model="m", input="?", registry=registry, max_tool_calls_per_turn=5)
    assert counter.ran == 3
    kinds = [c.result.error.kind if c.result.error else "ok" for c in result.calls]
    assert kinds == ["unknown_tool"] * 2 + ["ok"] * 3 + ["too_many_calls"] * 7


def test_hosted_approval_requests_past_the_cap_are_denied_unasked(model, client):
    asked: list[Any] = []

    def approve(request: Any) -> bool:
        asked.append(request)
        return True

    approvals = tuple(Approval(f"apr_{i}", "wiki", "ask", "{}") for i in range(200))
    model.script(Turn(approvals=approvals), say("done"))
    with ToolRegistry(approve=approve) as registry:
        registry.add_mcp_server("wiki", url="https://mcp.example.com/mcp", via="hosted")
        result = run(client, model="m", input="?", registry=registry, max_tool_calls_per_turn=4)
    assert result.text == "done"
    assert len(asked) == 4
    answers = [i for i in model.bodies()[1]["input"] if i.get("type") == "mcp_approval_response"]
    assert [a["approval_request_id"] for a in answers] == [f"apr_{i}" for i in range(200)]
    assert [a["approve"] for a in answers] == [True] * 4 + [False] * 196
    assert answers[-1]["reason"] == (
        "not asked: this turn asked for 200 approvals; at most 4 are asked per turn"
    )


@pytest.mark.parametrize("cap", [0, -1, True, 2.5, None])
def test_a_cap_that_is_not_a_positive_integer_is_refused(model, client, cap):
    with ToolRegistry() as registry, pytest.raises(ValueError, match="max_tool_calls_per_turn"):
        run(client, model="m", input="?", registry=registry, max_tool_calls_per_turn=cap)
    assert model.requests == []


# ------------------------------------------------------------------ tooldeck chat
@pytest.mark.parametrize("flags", [(), ("--max-tool-calls", "5")], ids=["default", "five"])
@pytest.mark.parametrize("api", APIS)
def test_tooldeck_chat_runs_at_most_the_cap(run_line, model, tmp_path, api, flags):
    cap = int(flags[1]) if flags else 64
    (tmp_path / "notes.txt").write_text("hello from notes\n", encoding="utf-8")
    reads = tuple(call("read_file", {"path": "notes.txt"}, f"call_{i}") for i in range(ASKED))
    model.script(Turn(calls=reads), say("done"))
    done = run_line(
        "chat",
        "-m",
        MANIFESTS,
        "--project-dir",
        tmp_path,
        "--model",
        "m",
        "--api",
        api,
        *flags,
        "Read it many times.",
        env={"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "test"},
    )
    assert done.exit_code == 0, done.stderr[-2000:]
    assert done.stdout == "done\n"
    assert done.stderr.count("<- hello from notes") == cap
    assert done.stderr.count(f"<- {refusal(ASKED, cap)}") == ASKED - cap
    sent = outputs(model, api)
    assert len(sent) == ASKED
    assert sum(text == refusal(ASKED, cap) for text in sent.values()) == ASKED - cap


def test_tooldeck_chat_refuses_a_cap_below_one(run_line, model):
    done = run_line(
        "chat",
        "--model",
        "m",
        "--max-tool-calls",
        "0",
        "?",
        env={"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "test"},
    )
    assert done.exit_code == 2
    assert "--max-tool-calls must be at least 1" in done.stderr
    assert model.requests == []
