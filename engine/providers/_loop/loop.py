"""The model tool-call loop, written once for both OpenAI APIs and both kinds of client.

A conversation is: send the transcript and the tool definitions, read the
reply, run every function call it asks for, append the outputs, and ask
again, until a reply has no calls (its text is the answer), a
``return_direct`` tool answers, or ``max_turns`` requests were made.

What differs between Responses and Chat Completions (request shape, how
calls, outputs and usage are spelled) is an :class:`Api` adapter
(:mod:`.responses`, :mod:`.chat`); what differs between
``OpenAI`` and ``AsyncOpenAI`` is only whether the request, the batch of
calls and an approval are awaited. So the turn logic is one generator of
effects, :func:`conversation` (as :mod:`tooldeck._calling.pipeline` is for a
call), and the drivers in :mod:`.conversation` perform its effects sync or
async. Nothing here imports ``openai``: the client is passed in, and its
replies are read by attribute.

Whatever the model gets wrong (arguments that are not JSON, an unknown or
unoffered tool name, invalid arguments, a denied side effect) is answered
with an error output the model can act on, never raised: the registry's own
call path produces those results, and :meth:`Toolbox.pair_results` the one for a
name that was not offered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from ..._calling import Decision, as_decision, error_result, unknown_tool
from ..._calltypes import ToolCall, ToolResult
from ..._log import get_logger
from ..._words import plural
from .pause import Paused
from .records import (
    HostedApproval,
    LoopCall,
    LoopResult,
    MaxTurnsExceeded,
    ModelCall,
    Reply,
    Usage,
)

if TYPE_CHECKING:
    from ..._registry import ToolRegistry
    from .. import ExportWarning

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_MAX_TOOL_CALLS",
    "Api",
    "Effect",
    "HostedApproval",
    "LoopCall",
    "LoopResult",
    "MaxTurnsExceeded",
    "ModelCall",
    "Reply",
    "Toolbox",
    "Usage",
    "conversation",
    "input_items",
]

log = get_logger("tooldeck.providers.openai")

DEFAULT_LIMIT = 8
"""Calls of one turn that run at once by default (``parallel=True``)."""
DEFAULT_MAX_TOOL_CALLS = 64
"""Calls of one reply that run at most (``max_tool_calls_per_turn``); the rest are answered."""


class Api(Protocol):
    """How one API spells a conversation (see :mod:`.responses`, :mod:`.chat`)."""

    name: str
    provider: str
    """The :func:`~tooldeck.export_tools` provider whose definitions it sends."""
    takes_hosted: bool
    reserved: frozenset[str]
    """Request options the loop sets itself (or cannot honour)."""

    transcript_key: str
    """The request field the transcript goes in (``input`` or ``messages``)."""

    def create(self, client: Any) -> Callable[..., Any]: ...
    def parse(self, response: Any) -> Reply: ...
    def outputs(self, calls: Sequence[LoopCall]) -> list[dict[str, Any]]: ...
    def approval_items(
        self, answered: Sequence[tuple[HostedApproval, Decision]]
    ) -> list[dict[str, Any]]: ...
    def answer(self, text: str) -> dict[str, Any]: ...


def input_items(value: str | Sequence[Any]) -> list[dict[str, Any]]:
    """A fresh transcript from ``input``: a user message, or copies of the given items.

    Items may be mappings or SDK objects (``response.output`` items), which
    are dumped as the API spells them.
    """
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    out: list[dict[str, Any]] = []
    item: Any
    for item in value:
        if isinstance(item, Mapping):
            out.append(dict(item))
        elif callable(getattr(item, "to_dict", None)):
            out.append(item.to_dict(mode="json"))
        else:
            raise TypeError(f"an input item must be a mapping, not {type(item).__name__}")
    return out


# -------------------------------------------------------------------- tools
@dataclass(frozen=True)
class Toolbox:
    """The definitions one conversation sends, and the tools a call may resolve to.

    Built once per conversation from the exporter's output, so the model is
    only ever answered by a tool it was shown: a name that resolves to a
    registry tool outside the selection is an unknown tool too.
    """

    definitions: list[dict[str, Any]]
    offered: Mapping[str, str]
    """Provider-safe name -> registry name, for every function definition sent."""
    warnings: tuple[ExportWarning, ...] = ()

    def resolve(self, registry: ToolRegistry, name: str) -> str | None:
        """The registry tool ``name`` means: by its safe name, or by its own name."""
        found = self.offered.get(name)
        if found is not None:
            return found
        spec = registry.get_tool(name)
        if spec is not None and registry.safe_name(spec.name) in self.offered:
            return spec.name
        return None

    def plan(
        self, registry: ToolRegistry, calls: Sequence[ModelCall]
    ) -> tuple[list[str | None], list[ToolCall]]:
        """Each call's registry tool (None: unknown), and the calls to run, in order."""
        tools = [self.resolve(registry, call.name) for call in calls]
        runnable = [
            ToolCall(tool, call.arguments, call.call_id)
            for tool, call in zip(tools, calls, strict=True)
            if tool is not None
        ]
        return tools, runnable

    def refuse(
        self, registry: ToolRegistry, calls: Sequence[ModelCall], asked: int, cap: int, turn: int
    ) -> list[LoopCall]:
        """The calls past the per-turn cap, each answered (every call id needs an output)."""
        message = (
            f"not run: this turn asked for {plural(asked, 'tool call')}; at most {cap} run per turn"
        )
        message += " (the first ones, in your order); ask again for any still needed"
        return [
            LoopCall(
                turn,
                call.call_id,
                call.name,
                call.arguments,
                self.resolve(registry, call.name),
                error_result("too_many_calls", message, tool_name=call.name, call_id=call.call_id),
            )
            for call in calls
        ]

    def pair_results(
        self,
        calls: Sequence[ModelCall],
        tools: Sequence[str | None],
        results: Sequence[ToolResult],
        turn: int,
    ) -> list[LoopCall]:
        """Every call with its result, in the model's order; unknown names answered here."""
        ran = iter(results)
        out = []
        for call, tool in zip(calls, tools, strict=True):
            if tool is None:
                result = unknown_tool(call.name, self.offered, call.call_id)
                log.warning(  # %r: the model's name may hold control characters
                    "tool call failed: tool=%r kind=unknown_tool call_id=%s",
                    call.name,
                    call.call_id,
                )
            else:
                result = next(ran)
            out.append(LoopCall(turn, call.call_id, call.name, call.arguments, tool, result))
        return out


# -------------------------------------------------------------------- the turns
Effect: TypeAlias = (
    tuple[Literal["request"], dict[str, Any]]
    | tuple[Literal["execute"], list[ToolCall], Mapping[str, Decision]]
    | tuple[Literal["approve"], HostedApproval]
)
"""``execute`` carries the decisions already made for calls of that batch (a resumed turn):
the approver is not asked about those; no other batch ever sees them."""


def conversation(
    api: Api,
    registry: ToolRegistry,
    toolbox: Toolbox,
    transcript: list[dict[str, Any]],
    *,
    model: str,
    max_turns: int,
    max_tool_calls: int,
    options: Mapping[str, Any],
    on_call: Callable[[LoopCall], None] | None,
    resume: Paused | None = None,
    decisions: Mapping[str, Decision] | None = None,
) -> Generator[Effect, Any, LoopResult]:
    """The turns of one conversation, as effects: ``request``, ``execute``, ``approve``.

    ``transcript`` is extended in place. Returns the :class:`LoopResult`;
    raises :class:`MaxTurnsExceeded` once ``max_turns`` replies all asked
    for tools (their calls run first, so the transcript stays complete).

    A reply may ask for any number of calls, and the API needs an output for
    each: the first ``max_tool_calls`` (in the model's order) are handled as
    usual, every later one is answered with a ``too_many_calls`` error
    output, so one reply cannot make the process run thousands of handlers.
    Hosted MCP approval requests past the same cap are denied unasked, so it
    cannot prompt the user thousands of times either.

    A turn whose calls wait for approval (:mod:`.pause`) returns a paused
    result once everything else of the turn has run. ``resume`` (with the
    ``decisions`` for its waiting calls) finishes that turn first, then goes
    on as if it had never stopped: ``transcript`` is then the paused one.
    """
    progress = _Progress(api.name)
    first = 1
    if resume is not None:
        progress.calls, progress.usage = list(resume.calls), resume.usage
        paused = yield from _decide(resume, decisions or {}, registry, toolbox)
        outcome = _close_turn(api, toolbox, transcript, progress, paused, on_call)
        if outcome is not None:
            return outcome
        first = resume.turn + 1
    for turn in range(first, max_turns + 1):
        request: dict[str, Any] = {"model": model, api.transcript_key: list(transcript)}
        if toolbox.definitions:
            request["tools"] = toolbox.definitions
        request.update(options)
        progress.response = yield ("request", request)
        reply = api.parse(progress.response)
        progress.usage += reply.usage
        transcript.extend(reply.items)
        if not reply.calls and not reply.approvals:
            return progress.result(reply.text, transcript, turn, toolbox)
        answered = []
        for approval in reply.approvals[:max_tool_calls]:
            answered.append((approval, as_decision((yield ("approve", approval)))))
        answered.extend(_unasked(reply.approvals, max_tool_calls))
        handled, over = reply.calls[:max_tool_calls], reply.calls[max_tool_calls:]
        made: list[LoopCall] = []
        if handled:
            tools, runnable = toolbox.plan(registry, handled)
            results = (yield ("execute", runnable, {})) if runnable else []
            made = toolbox.pair_results(handled, tools, results, turn)
        if over:
            log.warning(
                "the model asked for %d tool calls in one turn; the last %d were not run "
                "(max_tool_calls_per_turn=%d)",
                len(reply.calls),
                len(over),
                max_tool_calls,
            )
            made += toolbox.refuse(registry, over, len(reply.calls), max_tool_calls, turn)
        turn_state = Paused(
            api.name, turn, transcript, progress.usage, progress.calls, made, answered
        )
        outcome = _close_turn(api, toolbox, transcript, progress, turn_state, on_call)
        if outcome is not None:
            return outcome
    raise MaxTurnsExceeded(
        max_turns,
        transcript=transcript,
        calls=tuple(progress.calls),
        usage=progress.usage,
        response=progress.response,
    )


@dataclass
class _Progress:
    """What a conversation has gathered so far (for its result)."""

    api: str
    calls: list[LoopCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    response: Any = None

    def result(
        self,
        text: str,
        transcript: list[dict[str, Any]],
        turn: int,
        toolbox: Toolbox,
        *,
        direct: bool = False,
    ) -> LoopResult:
        return LoopResult(
            text,
            tuple(self.calls),
            self.usage,
            transcript,
            self.response,
            turn,
            direct,
            toolbox.warnings,
        )


def _decide(
    paused: Paused,
    decisions: Mapping[str, Decision],
    registry: ToolRegistry,
    toolbox: Toolbox,
) -> Generator[Effect, Any, Paused]:
    """The waiting calls of a paused turn, decided: run, denied, or still waiting.

    A call with a decision goes through the registry with it (the approver
    is not asked; a denial answers in the approver's words); one without is
    asked about again (the approver, if any, may decide now or defer again).
    Each is resolved again against this run's offered tools, as the model's
    name was on the first run: a state naming a tool this run does not offer
    gets an unknown-tool answer, never a call.
    """
    hosted: list[tuple[HostedApproval, Decision]] = []
    for approval, earlier in paused.hosted:
        decision = earlier
        if earlier.deferred:
            given = decisions.get(approval.id)
            decision = as_decision(given if given is not None else (yield ("approve", approval)))
        hosted.append((approval, decision))
    waiting = paused.waiting_calls()
    made = list(paused.made)
    if waiting:
        models = [ModelCall(call.call_id, call.name, call.arguments) for call in waiting]
        tools, batch = toolbox.plan(registry, models)
        decided = {c.call_id: decisions[c.call_id] for c in waiting if c.call_id in decisions}
        results = (yield ("execute", batch, decided)) if batch else []
        answered = toolbox.pair_results(models, tools, results, paused.turn)
        again = iter(answered)  # in the order the waiting calls hold in the turn
        made = [next(again) if _is_waiting(c) else c for c in made]
    return Paused(
        paused.api, paused.turn, paused.transcript, paused.usage, paused.calls, made, hosted
    )


def _close_turn(  # noqa: PLR0917
    api: Api,
    toolbox: Toolbox,
    transcript: list[dict[str, Any]],
    progress: _Progress,
    turn: Paused,
    on_call: Callable[[LoopCall], None] | None,
) -> LoopResult | None:
    """Answer a turn's calls in the transcript; a result to return, or None to go on.

    A turn with calls still waiting is not answered: the paused result carries
    it whole (its transcript stops before the turn's outputs, which are all
    appended on resume, in the order an uninterrupted turn appends them).
    """
    if turn.waiting:
        turn.transcript, turn.usage, turn.calls = transcript, progress.usage, progress.calls
        done = [call for call in turn.made if not _is_waiting(call)]
        paused = progress.result("", transcript, turn.turn, toolbox)
        return dataclasses.replace(
            paused,
            calls=(*paused.calls, *done),
            interruptions=turn.interruptions(),
            state=turn.state(),
        )
    transcript.extend(api.approval_items(turn.hosted))
    made = turn.made
    if not made:
        return None
    transcript.extend(api.outputs(made))
    progress.calls.extend(made)
    if on_call is not None:
        for call in made:
            on_call(call)
    # Several return_direct results in one turn: all of them, in call order, are the answer.
    direct = [c.result.text for c in made if c.result.ok and c.result.return_direct]
    if direct:
        text = "\n\n".join(direct)
        transcript.append(api.answer(text))
        return progress.result(text, transcript, turn.turn, toolbox, direct=True)
    return None


def _is_waiting(call: LoopCall) -> bool:
    error = call.result.error
    return error is not None and error.kind == "approval_pending"


def _unasked(
    approvals: Sequence[HostedApproval], cap: int
) -> list[tuple[HostedApproval, Decision]]:
    """Hosted approval requests past the per-turn cap: denied without asking anyone."""
    over = approvals[cap:]
    reason = (
        f"not asked: this turn asked for {plural(len(approvals), 'approval')}; at most {cap} "
        f"{'is' if cap == 1 else 'are'} asked per turn"
    )
    return [(approval, Decision.deny(reason)) for approval in over]
