"""``stream``/``astream`` against the scripted server, streaming as the real API does.

The server sends each reply as server-sent events (Responses events, Chat
Completions chunks), text word by word and arguments in three pieces; the
real ``openai`` client parses them. Each test checks the events, and that
the conversation is the one ``run`` has: same result, same request bodies
but for the stream flags.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.integration.openai_server import Approval, ScriptedServer, Turn, call, say
from tests.integration.test_openai_loop import make_registry
from tooldeck import ToolRegistry
from tooldeck.providers.openai import (
    Finished,
    LoopResult,
    MaxTurnsExceeded,
    TextDelta,
    ToolCallDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    Usage,
    arun,
    astream,
    run,
    stream,
)

APIS = ["responses", "chat"]


@pytest.fixture
def held() -> Iterator[ScriptedServer]:
    """A server whose streamed replies stop after their second delta until released."""
    with ScriptedServer(hold_after=2) as running:
        yield running
        running.release.set()


@pytest.fixture
def registry() -> Iterator[ToolRegistry]:
    with make_registry() as made:
        yield made


ANSWER = "It is sunny in Paris, and 2 plus 3 is 5."


def two_turns(model: ScriptedServer) -> None:
    """Two calls in one reply (text with them for Chat too), then the answer."""
    weather = call("get_weather", {"city": "Paris"}, "call_1")
    adding = call("add", {"a": 2, "b": 3}, "call_2")
    model.script(Turn(calls=(weather, adding), usage=(7, 3)), say(ANSWER, usage=(20, 9)))


def unstreamed(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request bodies without what streaming adds."""
    return [{k: v for k, v in b.items() if k not in ("stream", "stream_options")} for b in bodies]


def same_result(streamed: LoopResult, ran: LoopResult) -> None:
    assert streamed.text == ran.text
    assert streamed.usage == ran.usage
    assert streamed.turns == ran.turns
    assert streamed.transcript == ran.transcript
    assert streamed.return_direct == ran.return_direct
    keys = [(c.turn, c.call_id, c.name, c.arguments, c.tool, c.result.text) for c in ran.calls]
    assert [
        (c.turn, c.call_id, c.name, c.arguments, c.tool, c.result.text) for c in streamed.calls
    ] == keys


def check_events(events: list[Any], result: LoopResult) -> None:
    """Deltas join to the text and the arguments; the kinds come in the documented order."""
    assert isinstance(events[-1], Finished)
    assert events[-1].result is not None
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(texts) > 1
    assert "".join(texts) == ANSWER == result.text
    assert {e.turn for e in events if isinstance(e, TextDelta)} == {2}
    for made in result.calls:
        pieces = [e for e in events if isinstance(e, ToolCallDelta) and e.call_id == made.call_id]
        assert len(pieces) > 1
        assert "".join(p.delta for p in pieces) == made.arguments
        assert {(p.turn, p.name) for p in pieces} == {(1, made.name)}
    kinds = []
    for event in events:
        kind = type(event).__name__
        if not kinds or kinds[-1] != kind or kind in ("TurnFinished", "Finished"):
            kinds.append(kind)
    assert kinds == [
        "ToolCallDelta",
        "TurnFinished",
        "ToolCallStarted",
        "ToolCallFinished",
        "TextDelta",
        "TurnFinished",
        "Finished",
    ]
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.turn, e.call_id, e.name, e.arguments) for e in started] == [
        (c.turn, c.call_id, c.name, c.arguments) for c in result.calls
    ]
    finished = [e.call for e in events if isinstance(e, ToolCallFinished)]
    assert finished == list(result.calls)
    turns = [e for e in events if isinstance(e, TurnFinished)]
    assert [(e.turn, e.usage) for e in turns] == [
        (1, Usage(7, 3, 10, 1)),
        (2, Usage(20, 9, 29, 1)),
    ]
    assert turns[0].usage + turns[1].usage == result.usage


# ------------------------------------------------------------ the same conversation
@pytest.mark.parametrize("api", APIS)
def test_stream_yields_each_piece_and_ends_with_what_run_returns(model, client, registry, api):
    two_turns(model)
    ran = run(client, model="m", input="Weather and sum?", registry=registry, api=api)
    bodies = model.bodies()
    model.requests.clear()
    two_turns(model)

    events = list(stream(client, model="m", input="Weather and sum?", registry=registry, api=api))

    check_events(events, events[-1].result)
    same_result(events[-1].result, ran)
    streamed = model.bodies()
    assert all(b["stream"] is True for b in streamed)
    if api == "chat":
        assert all(b["stream_options"] == {"include_usage": True} for b in streamed)
    else:
        assert all("stream_options" not in b for b in streamed)
    assert unstreamed(streamed) == bodies


@pytest.mark.parametrize("api", APIS)
async def test_astream_is_the_async_twin(model, aclient, registry, api):
    two_turns(model)
    ran = await arun(aclient, model="m", input="Weather and sum?", registry=registry, api=api)
    bodies = model.bodies()
    model.requests.clear()
    two_turns(model)

    events = [
        e
        async for e in astream(
            aclient, model="m", input="Weather and sum?", registry=registry, api=api
        )
    ]

    check_events(events, events[-1].result)
    same_result(events[-1].result, ran)
    assert unstreamed(model.bodies()) == bodies


@pytest.mark.parametrize("api", APIS)
def test_a_return_direct_answer_and_an_unknown_tool(model, client, registry, api):
    direct = call("answer", {"text": "Done."}, "call_a")
    unknown = call("nope", {}, "call_n")
    model.script(Turn(calls=(unknown, direct)))
    seen: list[Any] = []

    events = list(
        stream(client, model="m", input="Go", registry=registry, api=api, on_call=seen.append)
    )

    result = events[-1].result
    assert result.return_direct
    assert result.text == "Done."
    started = [e.call_id for e in events if isinstance(e, ToolCallStarted)]
    assert started == ["call_a"]  # an unknown tool never starts
    finished = [e.call for e in events if isinstance(e, ToolCallFinished)]
    assert [c.call_id for c in finished] == ["call_n", "call_a"]  # the model's order
    assert not finished[0].ok
    assert seen == finished  # on_call still hears of each call
    assert not [e for e in events if isinstance(e, TextDelta)]


async def test_hosted_approval_requests_are_asked_while_streaming(model, client, aclient):
    asked: list[Any] = []

    def approve(request):
        asked.append(request.arguments["q"])
        return request.arguments["q"] == "yes"

    approvals = (
        Approval("apr_1", "deepwiki", "ask_question", '{"q": "yes"}'),
        Approval("apr_2", "deepwiki", "ask_question", '{"q": "no"}'),
    )
    with make_registry(approve=approve) as registry:
        registry.add_mcp_server("deepwiki", url="https://mcp.deepwiki.com/mcp", via="hosted")
        model.script(Turn(approvals=approvals), say("answered"))
        ran = run(client, model="m", input="?", registry=registry)
        bodies = model.bodies()
        model.requests.clear()
        model.script(Turn(approvals=approvals), say("answered"))
        events = list(stream(client, model="m", input="?", registry=registry))
        assert unstreamed(model.bodies()) == bodies
        model.requests.clear()
        model.script(Turn(approvals=approvals), say("answered"))
        async_events = [e async for e in astream(aclient, model="m", input="?", registry=registry)]
        assert unstreamed(model.bodies()) == bodies
    assert asked == ["yes", "no"] * 3
    same_result(events[-1].result, ran)
    same_result(async_events[-1].result, ran)
    assert [type(e).__name__ for e in events] == [
        "TurnFinished",  # the approvals are asked after it, before the next request
        "TextDelta",
        "TurnFinished",
        "Finished",
    ]


def test_running_out_of_turns_reports_the_last_calls_then_raises(model, client, registry):
    model.script(Turn(calls=(call("add", {"a": 1}, "c1"),)))
    events: list[Any] = []
    with pytest.raises(MaxTurnsExceeded) as raised:
        events.extend(stream(client, model="m", input="Go", registry=registry, max_turns=1))
    assert [e.call for e in events if isinstance(e, ToolCallFinished)] == list(raised.value.calls)


async def test_stream_is_refused_as_an_option_and_the_wrong_client_is_a_type_error(
    model, client, aclient, registry
):
    for streamed in (True, False):
        with pytest.raises(ValueError, match="stream is not supported"):
            list(stream(client, model="m", input="Hi", registry=registry, stream=streamed))
        with pytest.raises(ValueError, match="stream is not supported"):
            run(client, model="m", input="Hi", registry=registry, stream=streamed)
    with pytest.raises(TypeError, match="use astream"):
        list(stream(aclient, model="m", input="Hi", registry=registry))
    assert not model.requests  # nothing reached the server
    model.script(say("Hi"))  # a sync client sends before anything can tell (as with arun)
    with pytest.raises(TypeError, match="use stream"):
        [e async for e in astream(client, model="m", input="Hi", registry=registry)]


# ------------------------------------------------------------------ stopping early
@pytest.mark.parametrize("api", APIS)
def test_closing_the_generator_mid_reply_closes_the_connection(held, registry, api):
    held.script(say("one two three four five"))
    with openai.OpenAI(base_url=held.url, api_key="t", max_retries=0) as client:
        events = stream(client, model="m", input="Hi", registry=registry, api=api)
        first = next(e for e in events if isinstance(e, TextDelta))
        assert first.text == "one "
        assert held.held.wait(10)
        events.close()
        assert held.gone.wait(10)  # the server saw the client hang up while it held the reply


@pytest.mark.parametrize("api", APIS)
async def test_aclose_mid_reply_closes_the_connection(held, registry, api):
    held.script(say("one two three four five"))
    async with openai.AsyncOpenAI(base_url=held.url, api_key="t", max_retries=0) as client:
        events = astream(client, model="m", input="Hi", registry=registry, api=api)
        first = await anext(e async for e in events if isinstance(e, TextDelta))
        assert first.text == "one "
        await events.aclose()
        assert await asyncio.to_thread(held.gone.wait, 10)


@pytest.mark.parametrize("api", APIS)
async def test_cancelling_astream_cancels_the_running_tool(model, aclient, api):
    running, cancelled = threading.Event(), threading.Event()

    async def slow(seconds: int) -> str:
        """Take a long time.

        Args:
            seconds: How long.
        """
        running.set()
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    model.script(Turn(calls=(call("slow", {"seconds": 3600}, "c1"),)), say("never"))
    events: list[Any] = []

    async def consume(registry: ToolRegistry) -> None:
        async for event in astream(aclient, model="m", input="Go", registry=registry, api=api):
            events.append(event)

    with ToolRegistry() as registry:
        registry.add_tool(None, None, slow)
        task = asyncio.create_task(consume(registry))
        assert await asyncio.to_thread(running.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)
        assert await asyncio.to_thread(cancelled.wait, 10)
    assert [type(e).__name__ for e in events][-2:] == ["TurnFinished", "ToolCallStarted"]
    assert len(model.requests) == 1  # no second request after the cancel
