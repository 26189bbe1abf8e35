"""What the model loop hands back and reads: results, calls, usage, replies.

Plain records shared by the turn logic (:mod:`.loop`), the pause and its
state (:mod:`.pause`), the API adapters (:mod:`.responses`, :mod:`.chat`)
and the drivers (:mod:`.conversation`); nothing here runs anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..._calltypes import ToolResult
from ..._errors import ToolDeckError

if TYPE_CHECKING:
    from .. import ExportWarning

__all__ = [
    "HostedApproval",
    "Interruption",
    "LoopCall",
    "LoopResult",
    "MaxTurnsExceeded",
    "ModelCall",
    "Reply",
    "Usage",
]


@dataclass(frozen=True, slots=True)
class Interruption:
    """A call waiting for a person's decision: approve or deny it, then resume.

    ``kind`` is ``"tool"`` for a registry tool with side effects (``tool`` is
    its registry name) or ``"hosted_mcp"`` for a hosted MCP server's approval
    request (``tool`` is ``server.tool``, ``call_id`` the request's id).
    ``arguments`` are the model's, parsed (``{}`` when they were not a JSON
    object); ``reason`` is what a deferring approver said.
    """

    call_id: str
    tool: str
    arguments: Mapping[str, Any]
    kind: Literal["tool", "hosted_mcp"] = "tool"
    reason: str = ""


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
    interruptions: tuple[Interruption, ...] = ()
    """Calls waiting for a decision (side effects with no approver, or one that answered
    :meth:`~tooldeck.Decision.defer`); empty unless the conversation paused."""
    state: dict[str, Any] | None = None
    """When paused: plain JSON data to resume from, ``run(..., resume=state,
    decisions={call_id: True | False | Decision})``, in this process or another."""

    @property
    def paused(self) -> bool:
        """Whether the conversation stopped for approvals (``text`` is empty then)."""
        return bool(self.interruptions)

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
