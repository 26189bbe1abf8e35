"""Calling registered tools: the call pipeline, its policies and where handlers run.

``dispatch``: ``call``/``acall``/``call_many`` on the registry; ``calls``: parse, validate,
bind, run, serialise; ``execution`` and ``steps``: the guarded path (timeouts, retries,
approval, hooks, tracing); ``policies``: what may happen around a call; ``workers``: worker
threads for sync handlers; ``tracing``: OpenTelemetry spans.
"""

import typing

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .calls import error_result, unknown_tool
    from .dispatch import CallDispatch
    from .execution import Policy
    from .policies import (
        AfterHook,
        ApprovalCallback,
        ApprovalRequest,
        BeforeHook,
        CallEvent,
        Decision,
        WorkerPool,
    )
    from .steps import as_decision

__all__ = [
    "AfterHook",
    "ApprovalCallback",
    "ApprovalRequest",
    "BeforeHook",
    "CallDispatch",
    "CallEvent",
    "Decision",
    "Policy",
    "WorkerPool",
    "as_decision",
    "error_result",
    "unknown_tool",
]

_EXPORTS: dict[str, str] = {
    "AfterHook": ".policies",
    "ApprovalCallback": ".policies",
    "ApprovalRequest": ".policies",
    "BeforeHook": ".policies",
    "CallDispatch": ".dispatch",
    "CallEvent": ".policies",
    "Decision": ".policies",
    "Policy": ".execution",
    "WorkerPool": ".policies",
    "as_decision": ".steps",
    "error_result": ".calls",
    "unknown_tool": ".calls",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
