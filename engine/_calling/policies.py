"""What may happen around a call: approval of side effects, hooks, worker threads.

These are plain values and small helpers; :mod:`tooldeck._calling.execution` applies
them. A tool that uses none of them (no timeout, no retry, no side effects)
never touches this module on its call path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from .workers import PoolSaturated, WorkerPool

if TYPE_CHECKING:
    from .._calltypes import ToolResult
    from .._model import ToolSpec

__all__ = [
    "AfterHook",
    "ApprovalCallback",
    "ApprovalRequest",
    "BeforeHook",
    "CallEvent",
    "Decision",
    "PoolSaturated",
    "WorkerPool",
]


@dataclass(frozen=True)
class Decision:
    """An approver's answer; ``reason`` is shown to the model when denied."""

    approved: bool
    reason: str = ""

    @classmethod
    def approve(cls) -> Decision:
        return cls(True)

    @classmethod
    def deny(cls, reason: str = "") -> Decision:
        return cls(False, reason)


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approver sees: the tool, the exact validated arguments, the call id.

    An approval covers these arguments only; the next call asks again.
    """

    tool: ToolSpec
    arguments: Mapping[str, Any]
    call_id: str


ApprovalCallback: TypeAlias = Callable[
    [ApprovalRequest], "bool | Decision | Awaitable[bool | Decision]"
]


@dataclass
class CallEvent:
    """One call as hooks see it. ``before`` hooks may return a ToolResult to stop it."""

    tool: ToolSpec
    arguments: Mapping[str, Any]
    """Validated, with defaults applied (what the handler will receive, before conversion)."""
    call_id: str
    context: Mapping[str, Any] = field(default_factory=dict)


BeforeHook: TypeAlias = Callable[[CallEvent], "ToolResult | Awaitable[ToolResult | None] | None"]
AfterHook: TypeAlias = Callable[[CallEvent, "ToolResult"], "Awaitable[None] | None"]
