"""The model loop against a scripted server, through the real ``openai`` client over loopback.

:mod:`tests.integration.openai_server` plays the model: each test scripts its
replies (function calls with ids and arguments, or text, with usage) and then
asserts the exact request bodies the client sent, for the Responses API and
Chat Completions, sync (``OpenAI`` + ``run``) and async (``AsyncOpenAI`` +
``arun``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.integration.openai_server import Approval, Turn, call, say
from tooldeck import Decision, ExportError, McpServerSpec, ToolRegistry, export_tools
from tooldeck.providers import ExportWarning
from tooldeck.providers.openai import LoopResult, MaxTurnsExceeded, Usage, arun, run

API_PROVIDER = {"responses": "openai-responses", "chat": "openai-chat"}


# ------------------------------------------------------------------ handlers
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: City name.
    """
    return f"Sunny in {city}"


def add(a: int, b: int = 0) -> int:
    """Add two integers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


def answer(text: str) -> str:
    """Give the final answer to the user.

    Args:
        text: The answer.
    """
    return text


def make_registry(**options: Any) -> ToolRegistry:
    registry = ToolRegistry(**options)
    registry.add_tool(None, None, get_weather)
    registry.add_tool(None, None, add, strict=True)
    registry.add_tool(None, None, answer, return_direct=True, strict=False)
    return registry


@pytest.fixture
def registry() -> Iterator[ToolRegistry]:
    with make_registry() as made:
        yield made


def function_call_item(c: Any) -> dict[str, Any]:
    """A function call as the server sent it (and the loop must send it back)."""
    return {
        "arguments": c.arguments,
        "call_id": c.call_id,
        "name": c.name,
        "type": "function_call",
        "id": f"fc_{c.call_id}",
        "status": "completed",
    }


# --------------------------------------------------------- exact request bodies
def test_responses_sends_the_exporters_tools_and_the_outputs_keyed_by_call_id(
    model, client, registry
):
    weather = call("get_weather", {"city": "Paris"}, "call_1")
    model.script(Turn(calls=(weather,)), say("It is sunny in Paris."))

    result = run(client, model="gpt-test", input="Weather in Paris?", registry=registry)

    first, second = model.bodies()
    definitions = export_tools(registry, "openai-responses")
    assert first == {
        "model": "gpt-test",
        "input": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": definitions,
    }
    assert [(d["name"], d["strict"]) for d in definitions] == [
        ("get_weather", True),  # strict: auto, and its schema can be
        ("add", True),
        ("answer", False),
    ]
    assert definitions[1]["parameters"]["properties"]["b"]["type"] == ["integer", "null"]
    output = {"type": "function_call_output", "call_id": "call_1", "output": "Sunny in Paris"}
    assert second == {
        "model": "gpt-test",
        "input": [first["input"][0], function_call_item(weather), output],
        "tools": definitions,
    }
    assert result.text == "It is sunny in Paris."
    assert result.turns == 2
    assert not result.return_direct
    [made] = result.calls
    assert (made.turn, made.call_id, made.name, made.tool) == (1, "call_1", *["get_weather"] * 2)
    assert made.arguments == '{"city": "Paris"}'
    assert made.result.ok
    assert made.result.text == "Sunny in Paris"
    assert made.result.call_id == "call_1"  # the model's id reaches hooks and spans
    final = {
        "type": "message",
        "id": "msg_2",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "It is sunny in Paris.", "annotations": []}],
    }
    assert result.transcript == [*second["input"], final]
    assert result.response.id == "resp_2"


def test_chat_sends_tool_messages_with_the_tool_call_id(model, client, registry):
    weather = call("get_weather", {"city": "Oslo"}, "call_9")
    model.script(Turn(calls=(weather,)), say("Sunny."))

    result = run(client, model="m", input="Weather?", registry=registry, api="chat")

    first, second = model.bodies()
    definitions = export_tools(registry, "openai-chat")
    assert first == {
        "model": "m",
        "messages": [{"role": "user", "content": "Weather?"}],
        "tools": definitions,
    }
    assert [d["function"].get("strict") for d in definitions] == [True, True, None]
    assistant = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_9",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            }
        ],
    }
    tool = {"role": "tool", "tool_call_id": "call_9", "content": "Sunny in Oslo"}
    assert second["messages"] == [first["messages"][0], assistant, tool]
    assert result.text == "Sunny."
    assert result.transcript == [*second["messages"], {"role": "assistant", "content": "Sunny."}]


def test_request_options_reach_every_request_and_a_transcript_continues(model, client, registry):
    model.script(say("Hello."), say("Again."))
    result = run(
        client, model="m", input="Hi", registry=registry, instructions="Be brief.", temperature=0
    )
    assert model.bodies()[0]["instructions"] == "Be brief."
    assert model.bodies()[0]["temperature"] == 0
    run(client, model="m", input=result.next_input("Once more"), registry=registry)
    again = model.bodies()[1]["input"]
    assert again == [*result.transcript, {"role": "user", "content": "Once more"}]


def test_no_tools_sends_no_tools_key(model, client):
    model.script(say("Nothing to call."))
    with ToolRegistry() as empty:
        assert run(client, model="m", input="Hi", registry=empty).text == "Nothing to call."
    assert "tools" not in model.bodies()[0]


def test_tools_selects_what_is_offered_and_what_may_run(model, client, registry):
    model.script(
        Turn(calls=(call("add", {"a": 1}, "c1"), call("get_weather", {"city": "X"}, "c2"))),
        say("done"),
    )
    result = run(client, model="m", input="?", registry=registry, tools=["add"])
    assert [d["name"] for d in model.bodies()[0]["tools"]] == ["add"]
    not_offered = result.calls[1].result
    assert result.calls[1].tool is None
    assert not_offered.error.kind == "unknown_tool"
    assert not_offered.text.endswith("Available tools: add.")
    assert result.calls[0].result.text == "1"
    with pytest.raises(ExportError, match="unknown tool 'nope'"):
        run(client, model="m", input="?", registry=registry, tools=["nope"])


def test_a_tool_that_cannot_be_strict_goes_out_without_it_and_the_loop_says_so(model, client):
    def tag(labels: dict) -> str:
        """Tag something.

        Args:
            labels: Free-form labels.
        """
        return "tagged"

    model.script(say("ok"))
    heard: list[ExportWarning] = []
    with make_registry() as registry:
        registry.add_tool(None, None, tag)
        result = run(client, model="m", input="?", registry=registry, on_warning=heard.append)
    sent = {d["name"]: d["strict"] for d in model.bodies()[0]["tools"]}
    assert sent["tag"] is False
    assert sent["get_weather"] is True
    assert [(w.kind, w.name) for w in heard] == [("not_strict", "tag")]
    assert result.warnings == tuple(heard)


def test_secrets_never_reach_the_model(model, client):
    secret = "s3cr3t-value-0042"

    def leak() -> str:
        """Return something that holds a secret."""
        return f"token={secret}"

    model.script(Turn(calls=(call("leak", {}, "c1"),)), say("ok"))
    with ToolRegistry() as registry:
        registry.secrets.add(secret)
        registry.add_tool("leak", f"Uses the key {secret}.", leak)
        result = run(client, model="m", input="?", registry=registry)
    sent = json.dumps(model.bodies())
    assert secret not in sent
    assert "Uses the key ***." in sent
    assert result.calls[0].result.text == "token=***"


# ------------------------------------------------------------- hosted entries
def hosted_registry() -> ToolRegistry:
    registry = make_registry()
    registry.add_web_search("web_search", city="Paris", country="FR")
    registry.add_mcp_server("deepwiki", url="https://mcp.deepwiki.com/mcp", via="hosted")
    return registry


def test_responses_sends_hosted_entries_after_the_functions(model, client):
    model.script(say("ok"))
    with hosted_registry() as registry:
        run(client, model="m", input="?", registry=registry)
        tools = model.bodies()[0]["tools"]
        assert tools == export_tools(registry, "openai-responses")
    assert [t["type"] for t in tools] == ["function", "function", "function", "web_search", "mcp"]
    assert tools[-1]["server_label"] == "deepwiki"


def test_chat_leaves_hosted_entries_out_with_a_warning_naming_them(model, client, caplog):
    model.script(say("ok"), say("ok"))
    with hosted_registry() as registry:
        caplog.set_level(logging.WARNING, logger="tooldeck")
        result = run(client, model="m", input="?", registry=registry, api="chat")
        heard: list[ExportWarning] = []
        run(client, model="m", input="?", registry=registry, api="chat", on_warning=heard.append)
    assert [t["type"] for t in model.bodies()[0]["tools"]] == ["function"] * 3
    assert [(w.kind, w.name) for w in result.warnings] == [
        ("left_out", "web_search"),
        ("left_out", "deepwiki"),
    ]
    assert "hosted web search (web_search) left out" in str(result.warnings[0])
    assert "hosted MCP server 'deepwiki' left out" in str(result.warnings[1])
    for warning in result.warnings:
        assert str(warning) in caplog.text  # logged when nobody listens
    assert heard == list(result.warnings)


def test_a_hosted_mcp_approval_request_is_answered_by_the_registrys_approver(model, client):
    asked: list[Any] = []

    def approve(request):
        asked.append(request)
        return Decision.deny("not today") if request.arguments.get("q") == "no" else True

    model.script(
        Turn(
            approvals=(
                Approval("apr_1", "deepwiki", "ask_question", '{"q": "yes"}'),
                Approval("apr_2", "deepwiki", "ask_question", '{"q": "no"}'),
            )
        ),
        say("answered"),
    )
    with make_registry(approve=approve) as registry:
        registry.add_mcp_server("deepwiki", url="https://mcp.deepwiki.com/mcp", via="hosted")
        result = run(client, model="m", input="?", registry=registry)
    assert result.text == "answered"
    assert [r.tool.name for r in asked] == ["deepwiki.ask_question"] * 2
    assert model.bodies()[1]["input"][-2:] == [
        {"type": "mcp_approval_response", "approval_request_id": "apr_1", "approve": True},
        {
            "type": "mcp_approval_response",
            "approval_request_id": "apr_2",
            "approve": False,
            "reason": "not today",
        },
    ]


# ------------------------------------------------------------ model mistakes
@pytest.mark.parametrize("api", ["responses", "chat"])
def test_what_the_model_gets_wrong_is_an_error_output_and_the_loop_goes_on(model, client, api):
    def delete(path: str) -> str:
        """Delete a file.

        Args:
            path: The file.
        """
        deleted.append(path)
        return "deleted"

    deleted: list[str] = []
    with make_registry() as registry:
        registry.add_tool(None, None, delete, side_effects=True, effect="Deletes the file")
        registry.add_tool("files.read", "Read a file.", lambda: "contents")
        safe = registry.safe_name("files.read")
        model.script(
            Turn(
                calls=(
                    call("get_weather", '{"city": "Par', "c1"),  # not JSON
                    call("get_wether", {"city": "Paris"}, "c2"),  # no such tool
                    call(safe, {}, "c3"),  # the provider-safe name comes back
                    call("add", {"a": "one"}, "c4"),  # invalid
                    call("delete", {"path": "/etc/passwd"}, "c5"),  # not approved
                )
            ),
            say("Sorry."),
        )
        paused = run(client, model="m", input="?", registry=registry, api=api)
        # No approver: the side effect waits for a decision; the rest of the turn ran.
        assert paused.paused
        assert [(i.call_id, i.tool) for i in paused.interruptions] == [("c5", "delete")]
        assert len(paused.calls) == 4
        result = run(
            client, model="m", registry=registry, resume=paused.state, decisions={"c5": False}
        )

    kinds = [c.result.error.kind if c.result.error else "ok" for c in result.calls]
    assert kinds == ["invalid_arguments", "unknown_tool", "ok", "invalid_arguments", "denied"]
    texts = [c.result.text for c in result.calls]
    assert "line 1" in texts[0]
    assert "Did you mean 'get_weather'?" in texts[1]
    assert texts[2] == "contents"
    assert result.calls[2].tool == "files.read"
    assert "'delete' was not approved" in texts[4]
    assert deleted == []
    second = model.bodies()[1]
    if api == "responses":
        sent = [(i["call_id"], i["output"]) for i in second["input"] if "output" in i]
    else:
        tool = [m for m in second["messages"] if m["role"] == "tool"]
        sent = [(m["tool_call_id"], m["content"]) for m in tool]
    assert sent == [(f"c{i}", text) for i, text in enumerate(texts, 1)]
    assert result.text == "Sorry."


def test_an_approver_decides_side_effects_and_its_reason_reaches_the_model(model, client):
    def delete(path: str) -> str:
        """Delete a file.

        Args:
            path: The file.
        """
        return f"deleted {path}"

    def approve(request):
        return True if request.arguments["path"] == "tmp.txt" else Decision.deny("protected")

    model.script(
        Turn(calls=(call("delete", {"path": "tmp.txt"}, "a"), call("delete", {"path": "x"}, "b"))),
        say("ok"),
    )
    with ToolRegistry(approve=approve) as registry:
        registry.add_tool(None, None, delete, side_effects=True)
        result = run(client, model="m", input="?", registry=registry)
    assert [c.result.text for c in result.calls] == [
        "deleted tmp.txt",
        "Error (denied): the call to 'delete' was not approved: protected",
    ]


# -------------------------------------------------------------------- parallel
def test_one_replys_calls_run_concurrently_and_outputs_keep_the_models_order(model, client):
    barrier = threading.Barrier(3, timeout=5)  # passes only if all three are running at once

    def meet(n: int) -> str:
        """Wait for the others.

        Args:
            n: Which one.
        """
        barrier.wait()
        time.sleep(0.03 * (3 - n))  # the first finishes last
        return f"met {n}"

    model.script(
        Turn(calls=tuple(call("meet", {"n": n}, f"c{n}") for n in (1, 2, 3))),
        say("all met"),
    )
    with ToolRegistry() as registry:
        registry.add_tool(None, None, meet)
        result = run(client, model="m", input="?", registry=registry)
    outputs = [(i["call_id"], i["output"]) for i in model.bodies()[1]["input"] if "output" in i]
    assert outputs == [("c1", "met 1"), ("c2", "met 2"), ("c3", "met 3")]
    assert result.text == "all met"


def test_parallel_false_runs_calls_one_after_another(model, client):
    running: list[int] = []
    overlaps: list[int] = []

    def step(n: int) -> str:
        """One step.

        Args:
            n: Which one.
        """
        running.append(n)
        overlaps.append(len(running))
        time.sleep(0.01)
        running.remove(n)
        return str(n)

    model.script(Turn(calls=tuple(call("step", {"n": n}, f"c{n}") for n in range(4))), say("ok"))
    with ToolRegistry() as registry:
        registry.add_tool(None, None, step)
        run(client, model="m", input="?", registry=registry, parallel=False)
    assert overlaps == [1, 1, 1, 1]


async def test_async_calls_run_concurrently_with_arun(model, aclient):
    barrier = asyncio.Barrier(2)

    async def meet(n: int) -> str:
        """Wait for the other.

        Args:
            n: Which one.
        """
        await asyncio.wait_for(barrier.wait(), 5)
        return f"met {n}"

    model.script(Turn(calls=(call("meet", {"n": 1}, "a"), call("meet", {"n": 2}, "b"))), say("ok"))
    registry = ToolRegistry()
    registry.add_tool(None, None, meet)
    result = await arun(aclient, model="m", input="?", registry=registry, api="chat")
    assert [c.result.text for c in result.calls] == ["met 1", "met 2"]
    assert result.text == "ok"
    tool_messages = [m for m in model.bodies()[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["a", "b"]


# ------------------------------------------------------- the end of a conversation
@pytest.mark.parametrize("api", ["responses", "chat"])
def test_max_turns_raises_with_the_transcript_and_every_call(model, client, registry, api):
    model.script(*(Turn(calls=(call("add", {"a": n}, f"c{n}"),)) for n in range(3)))
    with pytest.raises(MaxTurnsExceeded, match=r"after 2 turns \(max_turns=2\); 2 calls") as err:
        run(client, model="m", input="?", registry=registry, api=api, max_turns=2)
    exc = err.value
    assert len(model.requests) == 2
    assert [c.call_id for c in exc.calls] == ["c0", "c1"]
    assert exc.usage == Usage(20, 10, 30, 2)
    last = exc.transcript[-1]
    assert last.get("call_id", last.get("tool_call_id")) == "c1"  # the last calls were answered
    assert exc.transcript[0] == {"role": "user", "content": "?"}
    assert exc.max_turns == 2


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_return_direct_ends_the_loop_with_the_tools_result(model, client, registry, api):
    model.script(Turn(calls=(call("answer", {"text": "42"}, "c1"),)))
    result = run(client, model="m", input="?", registry=registry, api=api)
    assert result.return_direct
    assert result.text == "42"
    assert len(model.requests) == 1
    assert result.transcript[-1] == {"role": "assistant", "content": "42"}


def test_several_calls_with_return_direct_all_run_and_the_direct_results_are_the_answer(
    model, client, registry
):
    model.script(
        Turn(
            calls=(
                call("answer", {"text": "first"}, "c1"),
                call("add", {"a": 2, "b": 3}, "c2"),
                call("answer", {}, "c3"),  # invalid: not an answer
                call("answer", {"text": "second"}, "c4"),
            )
        )
    )
    result = run(client, model="m", input="?", registry=registry)
    assert result.text == "first\n\nsecond"
    assert [c.result.ok for c in result.calls] == [True, True, False, True]
    outputs = [i for i in result.transcript if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["c1", "c2", "c3", "c4"]


def test_a_failed_return_direct_call_goes_back_to_the_model(model, client, registry):
    model.script(
        Turn(calls=(call("answer", "{}", "c1"),)),
        Turn(calls=(call("answer", {"text": "fixed"}, "c2"),)),
    )
    result = run(client, model="m", input="?", registry=registry)
    assert result.text == "fixed"
    assert result.turns == 2


def test_usage_is_summed_over_turns(model, client, registry):
    model.script(
        Turn(calls=(call("add", {"a": 1}, "c1"),), usage=(100, 7)),
        Turn(calls=(call("add", {"a": 2}, "c2"),), usage=(120, 9)),
        say("3", usage=(150, 1)),
    )
    result = run(client, model="m", input="?", registry=registry, api="chat")
    assert result.usage == Usage(input_tokens=370, output_tokens=17, total_tokens=387, requests=3)


def test_on_call_sees_each_call_as_its_result_comes_in(model, client, registry):
    seen: list[tuple[int, str, str]] = []
    model.script(
        Turn(calls=(call("add", {"a": 1}, "c1"),)),
        Turn(calls=(call("add", {"a": 2}, "c2"),)),
        say("done"),
    )
    run(
        client,
        model="m",
        input="?",
        registry=registry,
        on_call=lambda c: seen.append((c.turn, c.call_id, c.result.text)),
    )
    assert seen == [(1, "c1", "1"), (2, "c2", "2")]


# ----------------------------------------------------------------- misuse
def test_misuse_is_a_clear_error(model, client, registry):
    with pytest.raises(ValueError, match="stream is not supported"):
        run(client, model="m", input="?", registry=registry, stream=True)
    with pytest.raises(ValueError, match="api='legacy'"):
        run(client, model="m", input="?", registry=registry, api="legacy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_turns"):
        run(client, model="m", input="?", registry=registry, max_turns=0)
    with pytest.raises(ValueError, match="previous_response_id"):
        run(client, model="m", input="?", registry=registry, previous_response_id="r")
    assert model.requests == []


async def test_the_wrong_kind_of_client_is_a_type_error(model, client, aclient, registry):
    model.script(say("a"), say("b"))
    with pytest.raises(TypeError, match="arun"):
        run(aclient, model="m", input="?", registry=registry)
    with pytest.raises(TypeError, match="AsyncOpenAI"):
        await arun(client, model="m", input="?", registry=registry)


def test_a_client_error_propagates(model, client, registry):
    model.script()  # the server answers 400
    with pytest.raises(openai.BadRequestError, match="no more turns"):
        run(client, model="m", input="?", registry=registry)


def test_result_types_are_exported():
    assert LoopResult.__module__ == "tooldeck.providers._loop.records"


# ------------------------------------------------------------ an attached MCP tool
@pytest.mark.slow
async def test_an_attached_mcp_servers_tool_is_offered_and_called_from_the_loop(model, aclient):
    from tooldeck.mcp import attach_servers

    spec = McpServerSpec(
        name="time",
        command=(sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"),
        via="client",
        prefix="time_",
    )
    registry = ToolRegistry()
    model.script(
        Turn(calls=(call("time_get_current_time", {"timezone": "Asia/Tokyo"}, "t1"),)),
        say("It is evening in Tokyo."),
    )
    async with attach_servers(registry, [spec], connect_timeout=20.0):
        result = await arun(aclient, model="m", input="Time in Tokyo?", registry=registry)
    sent = [d["name"] for d in model.bodies()[0]["tools"]]
    assert sent == ["time_get_current_time", "time_convert_time"]
    [made] = result.calls
    assert made.result.ok, made.result.text
    told = json.loads(made.result.text)
    assert told["timezone"] == "Asia/Tokyo"
    outputs = [i for i in model.bodies()[1]["input"] if i.get("type") == "function_call_output"]
    expected = {"type": "function_call_output", "call_id": "t1", "output": made.result.text}
    assert outputs == [expected]
    assert result.text == "It is evening in Tokyo."


# ------------------------------------------------------------- the caller's identity
def my_orders(email: str, status: str = "open") -> str:
    """The signed-in customer's orders.

    Args:
        email: The customer.
        status: Which orders.
    """
    return f"orders of {email} ({status})"


def cancel_order(order_id: str) -> str:
    """Cancel an order.

    Args:
        order_id: The order.
    """
    return f"cancelled {order_id}"


def auth_registry() -> ToolRegistry:
    from tooldeck import Param

    registry = ToolRegistry()
    registry.add_tool(
        None,
        None,
        my_orders,
        Param("email", from_auth="email"),
        Param("status", default="open", description="Which orders."),
        scopes=["orders:read"],
    )
    registry.add_tool(None, None, cancel_order, scopes=["orders:write"])
    return registry


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_auth_filters_the_offered_tools_and_fills_from_auth(model, client, api):
    from tooldeck import AuthIdentity

    reader = AuthIdentity(subject="u1", scopes={"orders:read"}, claims={"email": "a@x.org"})
    orders = call("my_orders", {"status": "shipped"}, "call_1")
    cancel = call("cancel_order", {"order_id": "O-1"}, "call_2")
    model.script(Turn(calls=(orders, cancel)), say("Done."))
    with auth_registry() as registry:
        result = run(client, model="m", input="?", registry=registry, api=api, auth=reader)
    first = model.bodies()[0]
    names = [d.get("name") or d["function"]["name"] for d in first["tools"]]
    assert names == ["my_orders"]  # cancel_order needs orders:write
    assert "email" not in json.dumps(first["tools"])
    made = {c.name: c.result for c in result.calls}
    assert made["my_orders"].text == "orders of a@x.org (shipped)"
    assert made["cancel_order"].error is not None
    assert made["cancel_order"].error.kind == "unknown_tool"  # it was not offered


async def test_arun_passes_auth_to_every_call(model, aclient):
    from tooldeck import AuthIdentity

    reader = AuthIdentity(scopes={"orders:read"}, claims={"email": "b@x.org"})
    model.script(Turn(calls=(call("my_orders", {}, "c1"), call("my_orders", {}, "c2"))), say("ok"))
    with auth_registry() as registry:
        result = await arun(aclient, model="m", input="?", registry=registry, auth=reader)
    assert [c.result.text for c in result.calls] == ["orders of b@x.org (open)"] * 2


def test_without_auth_every_tool_is_offered_and_from_auth_is_refused(model, client):
    model.script(Turn(calls=(call("my_orders", {}, "c1"),)), say("ok"))
    with auth_registry() as registry:
        result = run(client, model="m", input="?", registry=registry, api="chat")
    first = model.bodies()[0]
    assert [d["function"]["name"] for d in first["tools"]] == ["my_orders", "cancel_order"]
    [made] = result.calls
    assert made.result.error is not None
    assert made.result.error.kind == "not_permitted"
    assert "no authenticated caller" in made.result.text
