"""Calling registered tools: the one call pipeline, its policies and where handlers run.

One way through a call, each layer importing only the ones below it:

- ``dispatch``: ``call``/``acall``/``call_many`` on the registry; resolves the name,
  decides the route (once) and hands the result back;
- ``drivers``: the sync and the async driver of the pipeline (they run the handler:
  timeouts, worker threads, the event loop), and the sync shortcut for a plain call;
- ``pipeline``: the steps in order with the policy steps around them (hooks, approval,
  retries, timeouts, result substitution), as a generator of typed effects;
- ``steps``: accept (parse, validate), bind, shape, each written once;
- ``results``: the failed results, in words for a model;
- ``policies``: what may happen around a call; ``workers``: worker threads for sync
  handlers; ``tracing``: OpenTelemetry spans.
"""

import typing

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .dispatch import CallDispatch
    from .drivers import arun_call, run_call
    from .policies import (
        AfterHook,
        ApprovalCallback,
        ApprovalRequest,
        BeforeHook,
        CallEvent,
        Decision,
        Deferral,
        Policy,
        WorkerPool,
        as_decision,
    )
    from .results import error_result, new_call_id, unknown_tool
    from .tracing import tracing_active

__all__ = [
    "AfterHook",
    "ApprovalCallback",
    "ApprovalRequest",
    "BeforeHook",
    "CallDispatch",
    "CallEvent",
    "Decision",
    "Deferral",
    "Policy",
    "WorkerPool",
    "arun_call",
    "as_decision",
    "error_result",
    "new_call_id",
    "run_call",
    "tracing_active",
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
    "Deferral": ".policies",
    "Policy": ".policies",
    "WorkerPool": ".policies",
    "arun_call": ".drivers",
    "as_decision": ".policies",
    "error_result": ".results",
    "new_call_id": ".results",
    "run_call": ".drivers",
    "tracing_active": ".tracing",
    "unknown_tool": ".results",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
