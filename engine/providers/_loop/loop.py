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

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from ..._calling import Decision, error_result, unknown_tool
from ..._calltypes import ToolCall, ToolResult
from ..._errors import ToolDeckError
from ..._log import get_logger
from ..._words import plural

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


# -------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens summed over every request of a conversation, and how many requests there were.

    Read from ``response.usage`` of each reply (Responses: ``input_tokens`` /
    ``output_tokens``; Chat Completions: ``prompt_tokens`` /
    ``completion_tokens``); a server that reports none adds zeros.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.total_tokens + other.total_tokens,
            self.requests + other.requests,
        )


@dataclass(frozen=True, slots=True)
class LoopCall:
    """One function call the model made and what it got back.

    ``name`` and ``arguments`` are exactly what the model sent (a
    provider-safe name, JSON text that may not parse); ``tool`` is the
    registry tool it resolved to, None when it named none that was offered.
    """

    turn: int
    call_id: str
    name: str
    arguments: str
    tool: str | None
    result: ToolResult

    @property
    def ok(self) -> bool:
        return self.result.ok


@dataclass(frozen=True)
class LoopResult:
    """The outcome of :func:`~tooldeck.providers.openai.run`.

    ``transcript`` is the conversation as the API takes it (Responses input
    items or Chat Completions messages), the final answer included: pass
    ``result.next_input("...")`` as the next ``input`` to go on.
    """

    text: str
    """The answer: the last reply's text, or the ``return_direct`` results."""
    calls: tuple[LoopCall, ...]
    usage: Usage
    transcript: list[dict[str, Any]]
    response: Any
    """The last raw response object of the client."""
    turns: int
    """Requests made."""
    return_direct: bool = False
    """Whether a ``return_direct`` tool's result ended the conversation."""
    warnings: tuple[ExportWarning, ...] = ()
    """What the definitions say differently from the declarations (a tool sent
    non-strict, a hosted entry Chat Completions cannot take); ``str()`` is the message."""

    def next_input(self, text: str) -> list[dict[str, Any]]:
        """The transcript plus a user message: the ``input`` that continues the conversation."""
        return [*self.transcript, {"role": "user", "content": text}]


class MaxTurnsExceeded(ToolDeckError):
    """The model still asked for tools after ``max_turns`` requests.

    The calls of the last reply were run and their outputs are in
    ``transcript``, so it is a valid input to go on from (with a higher
    limit, or a nudge to answer).
    """

    def __init__(
        self,
        max_turns: int,
        *,
        transcript: list[dict[str, Any]],
        calls: tuple[LoopCall, ...],
        usage: Usage,
        response: Any,
    ) -> None:
        super().__init__(
            f"the model still asked for tools after {max_turns} turn"
            f"{'s' if max_turns != 1 else ''} (max_turns={max_turns}); {len(calls)} "
            f"call{'s' if len(calls) != 1 else ''} made. The transcript so far is on "
            "this exception's .transcript"
        )
        self.max_turns = max_turns
        self.transcript = transcript
        self.calls = calls
        self.usage = usage
        self.response = response


# ------------------------------------------------------------ what adapters give
@dataclass(frozen=True, slots=True)
class ModelCall:
    """A function call as a reply spells it, before anything is resolved."""

    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class HostedApproval:
    """A hosted MCP server asks to run one of its tools (Responses' ``mcp_approval_request``)."""

    id: str
    server_label: str
    name: str
    arguments: str


@dataclass(slots=True)
class Reply:
    """One model reply, read by an adapter."""

    text: str
    items: list[dict[str, Any]]
    """What to append to the transcript (the reply's items, or its assistant message)."""
    calls: list[ModelCall] = field(default_factory=list)
    approvals: list[HostedApproval] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


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
    | tuple[Literal["execute"], list[ToolCall]]
    | tuple[Literal["approve"], HostedApproval]
)


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
    """
    calls: list[LoopCall] = []
    usage = Usage()
    response: Any = None
    for turn in range(1, max_turns + 1):
        request: dict[str, Any] = {"model": model, api.transcript_key: list(transcript)}
        if toolbox.definitions:
            request["tools"] = toolbox.definitions
        request.update(options)
        response = yield ("request", request)
        reply = api.parse(response)
        usage += reply.usage
        transcript.extend(reply.items)
        if not reply.calls and not reply.approvals:
            return LoopResult(
                reply.text, tuple(calls), usage, transcript, response, turn, False, toolbox.warnings
            )
        answered = []
        for approval in reply.approvals[:max_tool_calls]:
            answered.append((approval, (yield ("approve", approval))))
        answered.extend(_unasked(reply.approvals, max_tool_calls))
        transcript.extend(api.approval_items(answered))
        if not reply.calls:
            continue
        handled, over = reply.calls[:max_tool_calls], reply.calls[max_tool_calls:]
        tools, runnable = toolbox.plan(registry, handled)
        results = (yield ("execute", runnable)) if runnable else []
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
        transcript.extend(api.outputs(made))
        calls.extend(made)
        if on_call is not None:
            for call in made:
                on_call(call)
        # Several return_direct results in one turn: all of them, in call order, are the answer.
        direct = [c.result.text for c in made if c.result.ok and c.result.return_direct]
        if direct:
            text = "\n\n".join(direct)
            transcript.append(api.answer(text))
            return LoopResult(
                text, tuple(calls), usage, transcript, response, turn, True, toolbox.warnings
            )
    raise MaxTurnsExceeded(
        max_turns, transcript=transcript, calls=tuple(calls), usage=usage, response=response
    )


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
