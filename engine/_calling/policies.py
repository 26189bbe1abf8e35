"""What may happen around a call: approval of side effects, hooks, worker threads, tracing.

These are plain values and small helpers; the pipeline's policy steps
(:mod:`tooldeck._calling.pipeline`) apply them. :class:`Policy` holds the
registry-wide settings; a registry whose policy is not :attr:`Policy.active`
lets plain tools skip the policy steps altogether.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from .tracing import end_span, start_span
from .workers import PoolSaturated, WorkerPool

if TYPE_CHECKING:
    from .._binding import PreparedTool
    from .._calltypes import ToolResult
    from .._identity import AuthIdentity
    from .._model import ToolSpec
    from .._secrets import Secrets

__all__ = [
    "AfterHook",
    "ApprovalCallback",
    "ApprovalRequest",
    "BeforeHook",
    "CallEvent",
    "Decision",
    "Deferral",
    "Policy",
    "PoolSaturated",
    "WorkerPool",
    "as_decision",
]


@dataclass(frozen=True)
class Decision:
    """An approver's answer; ``reason`` is shown to the model when denied.

    :meth:`defer` answers "later": the model loop (``run``/``arun``) then
    pauses with the call among ``LoopResult.interruptions``, to be decided on
    resume; any other caller cannot wait, and treats it as a denial.
    """

    approved: bool
    reason: str = ""
    deferred: bool = False
    """Not decided yet: the call waits for a decision (only the model loop can wait)."""

    @classmethod
    def approve(cls) -> Decision:
        return cls(True)

    @classmethod
    def deny(cls, reason: str = "") -> Decision:
        return cls(False, reason)

    @classmethod
    def defer(cls, reason: str = "") -> Decision:
        """Decide later (a person will): the loop pauses instead of running or denying."""
        return cls(False, reason, deferred=True)


def as_decision(value: Any) -> Decision:
    """Only ``True`` or an approving :class:`Decision` approves; anything else denies.

    A truthy string, a non-empty list or ``1`` from a careless approver must
    not run a side effect: approval is explicit or it is not given.
    """
    if isinstance(value, Decision):
        if value.approved is True and not value.deferred:
            return value
        return Decision(False, value.reason, deferred=value.deferred is True)
    if value is True:
        return Decision(True)
    if value is False:
        return Decision(False)
    return Decision(
        False,
        f"the approver answered {type(value).__name__}, not True or a Decision; "
        "only an explicit approval runs a side effect",
    )


@dataclass(frozen=True)
class Deferral:
    """Approvals of a caller that can wait for them: the model loop, which can pause.

    A call of a tool with side effects whose approval cannot be had now (no
    approver, or one that answers :meth:`Decision.defer`) is not run and not
    denied: it answers ``approval_pending``, and the loop lists it among its
    interruptions. ``decided`` holds the decisions already made (by call id,
    when a paused conversation resumes): those are used as given, the approver
    is not asked again.
    """

    decided: Mapping[str, Decision] = field(default_factory=dict)


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approver sees: the tool, the exact validated arguments, the call id.

    An approval covers these arguments only; the next call asks again.
    """

    tool: ToolSpec
    arguments: Mapping[str, Any]
    call_id: str
    auth: AuthIdentity | None = None
    """Who asked for the call (``auth=`` of the call, or the served request's token)."""
    context: Mapping[str, Any] = field(default_factory=dict)
    """The caller's ``context=`` (``run(..., context=)``, ``call(..., context=)``), as
    handlers see it in ``ToolContext.extra``: the signed-in user, a request id..."""


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
    auth: AuthIdentity | None = None
    """The verified caller, when the call was made for one (never from the model)."""


BeforeHook: TypeAlias = Callable[[CallEvent], "ToolResult | Awaitable[ToolResult | None] | None"]
AfterHook: TypeAlias = Callable[[CallEvent, "ToolResult"], "Awaitable[None] | None"]


@dataclass
class Policy:
    """Registry-wide settings the pipeline's policy steps apply."""

    default_timeout: float | None = None
    approve: ApprovalCallback | None = None
    allow_side_effects: bool = False
    before: list[BeforeHook] = field(default_factory=list)
    after: list[AfterHook] = field(default_factory=list)
    pool: WorkerPool = field(default_factory=WorkerPool)
    trace_arguments: bool = False
    tracer_provider: Any = None
    """An OpenTelemetry TracerProvider; None uses the global one (no-op until an SDK is set)."""
    secrets: Secrets | None = None
    """Masked in what spans record (arguments and results with ``trace_arguments``)."""

    def redact(self, text: str) -> str:
        return self.secrets.redact(text) if self.secrets else text

    def open_span(self, prepared: PreparedTool, call_id: str, arguments: Any) -> Any:
        """A span for one call (None when nothing traces); see :mod:`tooldeck._calling.tracing`."""
        return start_span(
            prepared,
            call_id,
            arguments,
            provider=self.tracer_provider,
            trace_arguments=self.trace_arguments,
            redact=self.redact,
        )

    def close_span(self, span: Any, result: ToolResult, started: float) -> None:
        end_span(span, result, started, trace_arguments=self.trace_arguments, redact=self.redact)

    @property
    def active(self) -> bool:
        """Whether every call needs the policy steps (hooks, a default timeout, a tracer)."""
        return (
            self.default_timeout is not None
            or bool(self.before)
            or bool(self.after)
            or self.tracer_provider is not None
        )
