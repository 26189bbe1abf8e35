"""What :func:`~tooldeck.providers.openai.stream` yields while a conversation runs.

One typed event per thing that happens, in the order it happens: the
model's text and call arguments as the server sends them, each call as it is
about to run and once its result is in, each request as it ends, and last
the same :class:`~tooldeck.providers.openai.LoopResult` that ``run`` returns.
Frozen and slotted: an event is a fact, cheap to make by the thousand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from .loop import LoopCall, LoopResult, Usage

__all__ = [
    "Finished",
    "LoopEvent",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "TurnFinished",
]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the model's answer text, as the server sent it.

    The pieces of one turn, joined, are that reply's text (for the last
    turn: ``LoopResult.text``, unless a ``return_direct`` tool answered).
    """

    turn: int
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a function call's argument text, as the server sent it.

    The pieces of one ``call_id``, joined, are the call's ``arguments``.
    ``name`` is the name the model sent (a provider-safe name).
    """

    turn: int
    call_id: str
    name: str
    delta: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A call's arguments are complete and it is about to run (with the rest of its batch).

    Only for calls that resolve to an offered tool: a call to an unknown
    tool, or one past ``max_tool_calls_per_turn``, never starts, and comes
    back as a :class:`ToolCallFinished` with its error result.
    """

    turn: int
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    """A call's result is in: one per call of the reply, in the model's order, after the batch."""

    call: LoopCall


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """One model request has been read in full; ``usage`` is that request's alone."""

    turn: int
    usage: Usage


@dataclass(frozen=True, slots=True)
class Finished:
    """The last event: what :func:`~tooldeck.providers.openai.run` would have returned."""

    result: LoopResult


LoopEvent: TypeAlias = (
    TextDelta | ToolCallDelta | ToolCallStarted | ToolCallFinished | TurnFinished | Finished
)
"""Every event :func:`~tooldeck.providers.openai.stream` and ``astream`` yield."""
