"""``stream`` and ``astream``: the conversation of ``run``/``arun``, as events while it happens.

Not a second loop: the same :func:`~.loop.conversation` generator of effects
is driven here by a third and fourth driver, beside ``_drive``/``_adrive`` in
:mod:`.conversation`, with the same set-up (:func:`~.conversation._start`).
What differs is only how a ``request`` effect is performed: with
``stream=True`` (Chat Completions: and ``stream_options.include_usage``),
the server-sent events are read by an assembler (:mod:`.assembly`), each
piece of text and argument is yielded as it comes, and the reply put
together is what the turn logic gets, exactly as ``run`` would have.

Each effect kind has one small handler per driver, so a new kind is a new
branch here. Closing the generator (``close()``, ``aclose()``, leaving a
``for`` early, cancelling the task) closes the HTTP response being read;
cancelling ``astream`` while a batch runs cancels its calls (they run under
``acall_many``'s ``gather``).
"""

from __future__ import annotations

import inspect
from collections.abc import (
    AsyncGenerator,
    Callable,
    Generator,
    Iterable,
    Mapping,
    Sequence,
)
from contextlib import aclosing, closing
from typing import TYPE_CHECKING, Any

from .. import ExportWarning
from .assembly import assembler_for
from .conversation import (
    ApiName,
    _discard,
    _start,
)
from .events import (
    Finished,
    LoopEvent,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from .hosted import aapprove_hosted, approve_hosted
from .logs import secrets_hidden_in_client_logs
from .loop import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_TOOL_CALLS,
    Api,
    Effect,
    LoopCall,
    LoopResult,
    MaxTurnsExceeded,
)
from .runner import Runner, aexecute, execute

if TYPE_CHECKING:
    from ..._calling import Decision
    from ..._calltypes import ToolCall
    from ..._identity import AuthIdentity
    from ..._registry import ToolRegistry

__all__ = ["astream", "stream"]


def stream(
    client: Any,
    *,
    model: str,
    input: str | Sequence[Any] | None = None,
    registry: ToolRegistry,
    api: ApiName | None = None,
    max_turns: int = 10,
    max_tool_calls_per_turn: int = DEFAULT_MAX_TOOL_CALLS,
    parallel: bool = True,
    limit: int | None = DEFAULT_LIMIT,
    tools: Iterable[str] | None = None,
    bundles: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    include_hosted: bool = True,
    strict: bool | None = None,
    on_call: Callable[[LoopCall], None] | None = None,
    on_warning: Callable[[ExportWarning], None] | None = None,
    auth: AuthIdentity | None = None,
    context: Mapping[str, Any] | None = None,
    resume: Mapping[str, Any] | None = None,
    decisions: Mapping[str, bool | Decision] | None = None,
    **request_options: Any,
) -> Generator[LoopEvent, None, None]:
    """:func:`run`, yielding what happens as it happens; the last event is :class:`Finished`.

    Takes what :func:`run` takes (``client`` an ``openai.OpenAI``); every
    request is streamed. Yields :class:`TextDelta` and :class:`ToolCallDelta`
    while a reply arrives, :class:`TurnFinished` when it has, then for a
    reply with calls a :class:`ToolCallStarted` per call about to run and,
    once the batch is done, a :class:`ToolCallFinished` per call in the
    model's order; last :class:`Finished`, whose ``result`` is what
    :func:`run` returns. Nothing is checked or sent before the first event
    is asked for; errors (``ValueError`` for arguments,
    :class:`MaxTurnsExceeded`, the client's) are raised from the iteration.
    Closing the generator, or leaving a ``for`` over it early, closes the
    response being read.
    """
    calls = _Calls(on_call)
    steps, runner = _start(
        client,
        model=model,
        input=input,
        registry=registry,
        api=api,
        max_turns=max_turns,
        max_tool_calls_per_turn=max_tool_calls_per_turn,
        parallel=parallel,
        limit=limit,
        tools=tools,
        bundles=bundles,
        tags=tags,
        include_hosted=include_hosted,
        strict=strict,
        on_call=calls,
        on_warning=on_warning,
        auth=auth,
        context=context,
        resume=resume,
        decisions=decisions,
        options=request_options,
    )
    with secrets_hidden_in_client_logs(registry.secrets):
        yield from _drive_stream(steps, runner, calls)


async def astream(
    client: Any,
    *,
    model: str,
    input: str | Sequence[Any] | None = None,
    registry: ToolRegistry,
    api: ApiName | None = None,
    max_turns: int = 10,
    max_tool_calls_per_turn: int = DEFAULT_MAX_TOOL_CALLS,
    parallel: bool = True,
    limit: int | None = DEFAULT_LIMIT,
    tools: Iterable[str] | None = None,
    bundles: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    include_hosted: bool = True,
    strict: bool | None = None,
    on_call: Callable[[LoopCall], None] | None = None,
    on_warning: Callable[[ExportWarning], None] | None = None,
    auth: AuthIdentity | None = None,
    context: Mapping[str, Any] | None = None,
    resume: Mapping[str, Any] | None = None,
    decisions: Mapping[str, bool | Decision] | None = None,
    **request_options: Any,
) -> AsyncGenerator[LoopEvent, None]:
    """The async twin of :func:`stream`, for ``openai.AsyncOpenAI``, as :func:`arun` is of run.

    Cancelling the task that iterates it cancels the tool calls in flight
    (each sees ``CancelledError``) and closes the response being read;
    ``aclose()`` closes the response too.
    """
    await registry.arefresh_sources()
    calls = _Calls(on_call)
    steps, runner = _start(
        client,
        model=model,
        input=input,
        registry=registry,
        api=api,
        max_turns=max_turns,
        max_tool_calls_per_turn=max_tool_calls_per_turn,
        parallel=parallel,
        limit=limit,
        tools=tools,
        bundles=bundles,
        tags=tags,
        include_hosted=include_hosted,
        strict=strict,
        on_call=calls,
        on_warning=on_warning,
        auth=auth,
        context=context,
        resume=resume,
        decisions=decisions,
        options=request_options,
    )
    with secrets_hidden_in_client_logs(registry.secrets):
        async for event in _adrive_stream(steps, runner, calls):
            yield event


# ------------------------------------------------------------------ shared parts
def _api_of(runner: Runner) -> Api:
    if runner.api is None:  # _start always sets it
        raise RuntimeError("the conversation has no API adapter")
    return runner.api


class _Calls:
    """The ``on_call`` hook the turns get: keeps each finished call for its event, then
    calls the caller's own hook (so ``on_call`` still works with ``stream``)."""

    def __init__(self, hook: Callable[[LoopCall], None] | None) -> None:
        self.hook = hook
        self.pending: list[LoopCall] = []

    def __call__(self, call: LoopCall) -> None:
        self.pending.append(call)
        if self.hook is not None:
            self.hook(call)

    def finished(self) -> list[ToolCallFinished]:
        """The calls handed over since the last time, as events, in the model's order."""
        out = [ToolCallFinished(call) for call in self.pending]
        self.pending.clear()
        return out


def _streamed(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    """The request body, streamed; Chat Completions only reports usage when asked."""
    out = {**body, "stream": True}
    if api.name == "chat":
        out["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
    return out


def _started(api: Api, response: Any, batch: Sequence[ToolCall], turn: int) -> list[LoopEvent]:
    """A :class:`ToolCallStarted` per call about to run, with the name the model sent.

    No response yet: a resumed turn's waiting calls, named as the registry knows them.
    """
    names = {call.call_id: call.name for call in api.parse(response).calls} if response else {}
    out: list[LoopEvent] = []
    for call in batch:
        call_id = call.call_id or ""
        out.append(ToolCallStarted(turn, call_id, names.get(call_id, call.name), call.arguments))
    return out


# ------------------------------------------------------------------- sync
def _drive_stream(
    steps: Generator[Effect, Any, LoopResult], runner: Runner, calls: _Calls
) -> Generator[LoopEvent, None, None]:
    """Perform ``steps`` with a sync client, streaming each request."""
    api = _api_of(runner)
    value: Any = None
    response: Any = None
    turn = runner.turns_done
    with closing(steps):
        while True:
            try:
                effect = steps.send(value)
            except StopIteration as done:
                yield from calls.finished()
                yield Finished(done.value)
                return
            except MaxTurnsExceeded:
                yield from calls.finished()
                raise
            yield from calls.finished()
            if effect[0] == "request":
                turn += 1
                response = yield from _request(runner, api, effect[1], turn)
                value = response
            elif effect[0] == "execute":
                yield from _started(api, response, effect[1], turn)
                value = execute(runner, effect[1], effect[2])
            else:
                value = approve_hosted(runner.registry, effect[1], runner.context)


def _request(
    runner: Runner, api: Api, body: dict[str, Any], turn: int
) -> Generator[LoopEvent, None, Any]:
    """One streamed request: its deltas, then :class:`TurnFinished`; returns the reply."""
    opened = runner.create(**_streamed(api, body))
    if inspect.isawaitable(opened):
        _discard(opened)
        raise TypeError(
            "stream() needs a sync client (openai.OpenAI); use astream() for AsyncOpenAI"
        )
    assembler = assembler_for(api.name, turn)
    with closing(opened):  # also when the consumer stops reading mid-reply
        for event in opened:
            yield from assembler.feed(event)
    response = assembler.finish()
    yield TurnFinished(turn, api.parse(response).usage)
    return response


# ------------------------------------------------------------------- async
async def _adrive_stream(
    steps: Generator[Effect, Any, LoopResult], runner: Runner, calls: _Calls
) -> AsyncGenerator[LoopEvent, None]:
    """Perform ``steps`` with an async client, streaming each request."""
    api = _api_of(runner)
    value: Any = None
    response: Any = None
    turn = runner.turns_done
    with closing(steps):
        while True:
            try:
                effect = steps.send(value)
            except StopIteration as done:
                for finished in calls.finished():
                    yield finished
                yield Finished(done.value)
                return
            except MaxTurnsExceeded:
                for finished in calls.finished():
                    yield finished
                raise
            for finished in calls.finished():
                yield finished
            if effect[0] == "request":
                turn += 1
                async with aclosing(_arequest(runner, api, effect[1], turn)) as events:
                    async for item in events:
                        if isinstance(item, _Reply):
                            response = value = item.response
                        else:
                            yield item
            elif effect[0] == "execute":
                for started in _started(api, response, effect[1], turn):
                    yield started
                value = await aexecute(runner, effect[1], effect[2])
            else:
                value = await aapprove_hosted(runner.registry, effect[1], runner.context)


class _Reply:
    """The end of :func:`_arequest`: an async generator cannot return a value."""

    __slots__ = ("response",)

    def __init__(self, response: Any) -> None:
        self.response = response


async def _arequest(
    runner: Runner, api: Api, body: dict[str, Any], turn: int
) -> AsyncGenerator[LoopEvent | _Reply, None]:
    """One streamed request with an async client; the last item is the :class:`_Reply`."""
    pending = runner.create(**_streamed(api, body))
    if not inspect.isawaitable(pending):
        close = getattr(pending, "close", None)
        if callable(close):
            close()
        raise TypeError(
            "astream() needs an async client (openai.AsyncOpenAI); use stream() for OpenAI"
        )
    opened = await pending
    assembler = assembler_for(api.name, turn)
    try:
        async for event in opened:
            for delta in assembler.feed(event):
                yield delta
    finally:  # also when the consumer stops reading, or the task is cancelled
        await opened.close()
    response = assembler.finish()
    yield TurnFinished(turn, api.parse(response).usage)
    yield _Reply(response)
