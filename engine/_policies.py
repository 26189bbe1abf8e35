"""What may happen around a call: retries, approval of side effects, hooks, worker threads.

These are plain values and small helpers; :mod:`tooldeck._execution` applies
them. A tool that uses none of them (no timeout, no retry, no side effects)
never touches this module on its call path.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from tooldeck._workers import PoolSaturated, WorkerPool

if TYPE_CHECKING:
    from tooldeck._model import ToolResult, ToolSpec

__all__ = [
    "DEFAULT_RETRY_ON",
    "AfterHook",
    "ApprovalCallback",
    "ApprovalRequest",
    "BeforeHook",
    "CallEvent",
    "Decision",
    "PoolSaturated",
    "RetrySpec",
    "WorkerPool",
]

DEFAULT_RETRY_ON: tuple[str, ...] = ("OSError", "ConnectionError", "TimeoutError")
"""Exception class names retried by default: I/O and network trouble, not bugs."""


@dataclass(frozen=True, kw_only=True)
class RetrySpec:
    """Retry execution errors whose exception (or a base class) is named in ``on``.

    Invalid arguments are never retried, and side-effecting tools only when
    they are marked ``idempotent``. Delays grow exponentially from
    ``backoff`` up to ``max_backoff``, with jitter so parallel callers spread.
    """

    attempts: int = 3
    """Total attempts, the first one included."""
    backoff: float = 0.2
    """Seconds before the second attempt."""
    max_backoff: float = 5.0
    on: tuple[str, ...] = DEFAULT_RETRY_ON

    def __post_init__(self) -> None:
        from tooldeck._errors import RegistrationError

        if not isinstance(self.attempts, int) or self.attempts < 1:
            raise RegistrationError(
                f"retry.attempts must be >= 1, got {self.attempts!r}", code="TD115"
            )
        if self.backoff < 0 or self.max_backoff < 0:
            raise RegistrationError("retry backoff must not be negative", code="TD115")
        object.__setattr__(self, "on", tuple(self.on))

    def matches(self, exc: BaseException) -> bool:
        """Whether ``exc`` is one of the retryable kinds (by class name, MRO included)."""
        return any(cls.__name__ in self.on for cls in type(exc).__mro__)

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        base = min(self.max_backoff, self.backoff * float(2 ** (attempt - 1)))
        jitter: float = random.uniform(0.5, 1.0)  # spreads parallel callers' retries
        return base * jitter


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
