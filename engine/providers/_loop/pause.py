"""A conversation paused for approvals: what waits, and the state that resumes it.

When a call with side effects cannot be approved now (no approver, or one that
answers :meth:`~tooldeck.Decision.defer`), the loop does not block and does not
deny: :func:`~tooldeck.providers._loop.loop.conversation` stops after running
everything else of the turn, and ``run`` returns a ``LoopResult`` whose
``interruptions`` list what waits and whose ``state`` is plain JSON data.
Stored anywhere (a session, a database) and passed back as ``run(...,
resume=state, decisions={call_id: ...})``, perhaps in another process, it
finishes the turn exactly as it would have finished without the pause: the
approved calls run, the denied ones answer the model with the approver's
words, and the next request is the one an uninterrupted run would have sent.

The state holds the transcript (what the API takes, already JSON), the
turn's calls in the model's order with the results of those that ran, the
hosted MCP approval requests with the answers given, the usage and the calls
of earlier turns. A call's result keeps its text, error and flags, not the
handler's Python value (``LoopCall.result.value`` is None after a resume).
The state is checked field by field when it comes back: a malformed one is a
:class:`ResumeError` naming what is wrong, never a traceback from deep inside.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..._calling import Decision, as_decision
from ..._calltypes import CallFailure, ToolResult
from ..._errors import ToolDeckError
from .records import HostedApproval, Interruption, LoopCall, Usage

__all__ = [
    "STATE_VERSION",
    "Interruption",
    "Paused",
    "ResumeError",
    "decisions_of",
    "paused_from_state",
]

STATE_VERSION = 1
"""The ``tooldeck_loop_state`` a state carries; another number is refused, not guessed at."""


class ResumeError(ToolDeckError, ValueError):
    """``resume=`` or ``decisions=`` cannot continue a paused conversation (says why)."""


@dataclass
class Paused:
    """A turn stopped for approvals: everything needed to finish it.

    ``made`` is the turn's calls in the model's order, each with its result;
    a call still waiting has an ``approval_pending`` result. ``hosted`` pairs
    each hosted approval request with its answer (deferred: still waiting).
    """

    api: str
    turn: int
    transcript: list[dict[str, Any]]
    usage: Usage
    calls: list[LoopCall]
    made: list[LoopCall]
    hosted: list[tuple[HostedApproval, Decision]] = field(default_factory=list)

    # ------------------------------------------------------------ waiting
    def waiting_calls(self) -> list[LoopCall]:
        return [call for call in self.made if _waiting(call.result)]

    def waiting_hosted(self) -> list[HostedApproval]:
        return [approval for approval, decision in self.hosted if decision.deferred]

    @property
    def waiting(self) -> bool:
        return bool(self.waiting_calls() or self.waiting_hosted())

    def interruptions(self) -> tuple[Interruption, ...]:
        out = [
            Interruption(
                call.call_id,
                call.tool or call.name,
                _parsed(call.arguments),
                "tool",
                call.result.value if isinstance(call.result.value, str) else "",
            )
            for call in self.waiting_calls()
        ]
        out += [
            Interruption(
                approval.id,
                f"{approval.server_label}.{approval.name}",
                _parsed(approval.arguments),
                "hosted_mcp",
                decision.reason,
            )
            for approval, decision in self.hosted
            if decision.deferred
        ]
        return tuple(out)

    # -------------------------------------------------------------- state
    def state(self) -> dict[str, Any]:
        """Plain JSON data (``json.dumps`` works): store it, resume with it."""
        return {
            "tooldeck_loop_state": STATE_VERSION,
            "api": self.api,
            "turn": self.turn,
            "transcript": self.transcript,
            "usage": _usage_dict(self.usage),
            "calls": [_call_dict(call) for call in self.calls],
            "turn_calls": [_call_dict(call) for call in self.made],
            "hosted": [
                {
                    "id": approval.id,
                    "server_label": approval.server_label,
                    "name": approval.name,
                    "arguments": approval.arguments,
                    "decision": {
                        "approved": decision.approved,
                        "reason": decision.reason,
                        "deferred": decision.deferred,
                    },
                }
                for approval, decision in self.hosted
            ],
        }


def _waiting(result: ToolResult) -> bool:
    return result.error is not None and result.error.kind == "approval_pending"


def _parsed(arguments: str) -> Mapping[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# ------------------------------------------------------------------ to JSON
def _usage_dict(usage: Usage) -> dict[str, int]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "requests": usage.requests,
    }


def _call_dict(call: LoopCall) -> dict[str, Any]:
    result = call.result
    return {
        "turn": call.turn,
        "call_id": call.call_id,
        "name": call.name,
        "arguments": call.arguments,
        "tool": call.tool,
        "result": {
            "ok": result.ok,
            "text": result.text,
            "error": (
                None
                if result.error is None
                else {"kind": str(result.error.kind), "message": result.error.message}
            ),
            "tool_name": result.tool_name,
            "call_id": result.call_id,
            "return_direct": result.return_direct,
            "attempts": result.attempts,
            "reason": result.value if _waiting(result) and isinstance(result.value, str) else "",
        },
    }


# ---------------------------------------------------------------- from JSON
def paused_from_state(state: Any, api: str) -> Paused:
    """The :class:`Paused` turn a ``state`` describes, checked field by field."""
    data = _mapping(state, "resume")
    version = data.get("tooldeck_loop_state")
    if version != STATE_VERSION:
        raise ResumeError(
            f"resume= is not a tooldeck loop state of version {STATE_VERSION} "
            f"(tooldeck_loop_state: {version!r}); pass LoopResult.state as it was returned"
        )
    if data.get("api") != api:
        raise ResumeError(
            f"the paused conversation used api={data.get('api')!r}; resume it with that api"
        )
    turn = _int(data.get("turn"), "turn")
    transcript = _list(data.get("transcript"), "transcript")
    items = [dict(_mapping(item, f"transcript[{i}]")) for i, item in enumerate(transcript)]
    raw_usage = _mapping(data.get("usage"), "usage")
    usage = Usage(*(_int(raw_usage.get(key), f"usage.{key}") for key in _USAGE_KEYS))

    def call_of(raw: Any, where: str) -> LoopCall:
        entry = _mapping(raw, where)
        tool = entry.get("tool")
        if tool is not None and not isinstance(tool, str):
            raise ResumeError(f"resume: {where}.tool is not a string or null")
        return LoopCall(
            _int(entry.get("turn"), f"{where}.turn"),
            _str(entry.get("call_id"), f"{where}.call_id"),
            _str(entry.get("name"), f"{where}.name"),
            _str(entry.get("arguments"), f"{where}.arguments"),
            tool,
            _result(entry.get("result"), f"{where}.result"),
        )

    calls = [call_of(raw, f"calls[{i}]") for i, raw in enumerate(_list(data.get("calls"), "calls"))]
    made = [
        call_of(raw, f"turn_calls[{i}]")
        for i, raw in enumerate(_list(data.get("turn_calls"), "turn_calls"))
    ]
    hosted = []
    for i, raw in enumerate(_list(data.get("hosted"), "hosted")):
        where = f"hosted[{i}]"
        entry = _mapping(raw, where)
        approval = HostedApproval(
            _str(entry.get("id"), f"{where}.id"),
            _str(entry.get("server_label"), f"{where}.server_label"),
            _str(entry.get("name"), f"{where}.name"),
            _str(entry.get("arguments"), f"{where}.arguments"),
        )
        raw_decision = _mapping(entry.get("decision"), f"{where}.decision")
        decision = Decision(
            raw_decision.get("approved") is True,
            _str(raw_decision.get("reason", ""), f"{where}.decision.reason"),
            deferred=raw_decision.get("deferred") is True,
        )
        hosted.append((approval, decision))
    paused = Paused(api, turn, items, usage, calls, made, hosted)
    if not paused.waiting:
        raise ResumeError("resume: this state has no call waiting for a decision")
    return paused


_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "requests")


def _result(raw: Any, where: str) -> ToolResult:
    entry = _mapping(raw, where)
    error = entry.get("error")
    failure = None
    if error is not None:
        failure_data = _mapping(error, f"{where}.error")
        failure = CallFailure(
            _str(failure_data.get("kind"), f"{where}.error.kind"),
            _str(failure_data.get("message"), f"{where}.error.message"),
        )
    reason = entry.get("reason", "")
    return ToolResult(
        value=reason if isinstance(reason, str) and reason else None,
        ok=entry.get("ok") is True,
        text=_str(entry.get("text"), f"{where}.text"),
        error=failure,
        tool_name=_str(entry.get("tool_name", ""), f"{where}.tool_name"),
        call_id=_str(entry.get("call_id", ""), f"{where}.call_id"),
        return_direct=entry.get("return_direct") is True,
        attempts=_int(entry.get("attempts", 1), f"{where}.attempts"),
    )


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ResumeError(f"resume: {where} is not an object (got {type(value).__name__})")
    return value


def _list(value: Any, where: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise ResumeError(f"resume: {where} is not a list (got {type(value).__name__})")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ResumeError(f"resume: {where} is not a string (got {type(value).__name__})")
    return value


def _int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ResumeError(f"resume: {where} is not a non-negative integer (got {value!r})")
    return value


# ---------------------------------------------------------------- decisions
def decisions_of(decisions: Any, paused: Paused) -> dict[str, Decision]:
    """``decisions=`` as Decisions, each for a call that waits (anything else is an error).

    ``True`` approves, ``False`` denies, a :class:`~tooldeck.Decision` says
    which with a reason for the model; judged as an approver's answer is
    (:func:`~tooldeck.as_decision`: nothing but an explicit approval runs a
    side effect). A call left out keeps waiting (it is asked about again).
    """
    if decisions is None:
        return {}
    if not isinstance(decisions, Mapping):
        raise ResumeError(
            f"decisions= must map call ids to True, False or a Decision, not "
            f"{type(decisions).__name__}"
        )
    waiting = {call.call_id for call in paused.waiting_calls()}
    waiting |= {approval.id for approval in paused.waiting_hosted()}
    unknown = sorted(str(key) for key in decisions if key not in waiting)
    if unknown:
        listed = ", ".join(sorted(waiting)) or "none"
        raise ResumeError(
            f"decisions= names {', '.join(map(repr, unknown))}, which no paused call has; "
            f"the calls waiting are: {listed}"
        )
    return {str(key): as_decision(value) for key, value in decisions.items()}
