"""The two drivers of the pipeline: sync and async. Running the handler is theirs.

:func:`run_call` and :func:`arun_call` drive :func:`~tooldeck._calling.pipeline.pipeline`
(inside an OpenTelemetry span when something traces), carrying out its
effects: :class:`Callback` (a hook's or approver's answer, awaited if need
be), :class:`Attempt` (the handler, within its timeout) and :class:`Sleep`
(before a retry). They differ only where one of them awaits.

:func:`run_plain` is the shortcut for a call with no policy in force (the
route is decided once, in :meth:`~tooldeck._calling.dispatch.CallDispatch._plain`):
the same steps, called directly, since the pipeline would ask for one plain
attempt and nothing else, and a generator costs a visible share of a plain
call's overhead. ``acall`` takes it only for an ``inline`` sync handler (run
on the loop, nothing to await); every other async call is driven.

A sync handler past its timeout: the caller gets a ``timeout`` result on
time, and :meth:`~tooldeck._calling.workers.WorkerPool.interrupt` raises
:class:`~tooldeck._calling.workers.HandlerTimedOut` inside it, which stops Python code
at its next bytecode (a blocking C call finishes first, still inside the
bounded pool, so abandoned threads never pile up). Async handlers are
cancelled.

An ``acall`` whose task is cancelled (an MCP client's ``notifications/cancelled``,
a caller's timeout) cancels what it awaits: a coroutine handler gets
``CancelledError``, a pending approval is abandoned. A sync handler on a worker
thread cannot be stopped from outside safely, so it is not interrupted: its
outcome is dropped and its thread finishes on its own, holding its pool slot
until then (as a timed-out handler's does).
"""

from __future__ import annotations

import contextvars
import inspect
import time
from collections.abc import Awaitable, Generator, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from .._binding import CallEnv, PreparedTool
from .._calltypes import ToolResult
from .._portal import LoopPortal, arun_on, run_on
from .pipeline import Attempt, Callback, Effect, TimedOut, pipeline
from .policies import Deferral, Policy, WorkerPool
from .steps import Refused, accept, bind, failed, shape

if TYPE_CHECKING:
    from .._identity import AuthIdentity

__all__ = ["arun_call", "run_call", "run_plain"]


# ------------------------------------------------------- sync, no policy in force
def run_plain(  # noqa: PLR0917
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    call_id: str,
    extra: Mapping[str, Any] | None,
    lenient: bool,
    auth: AuthIdentity | None = None,
) -> ToolResult:
    """accept -> bind -> run -> shape, for a call the pipeline would give one plain attempt."""
    try:
        args = accept(prepared, arguments, call_id, lenient)
        kwargs = bind(prepared, args, env, call_id, extra, auth)
    except Refused as refused:
        return refused.result
    handler = prepared.spec.handler
    try:
        if prepared.is_async:
            value = run_on(env.portal, lambda: handler(**kwargs))
        else:
            value = handler(**kwargs)
    except (Exception, SystemExit) as exc:
        return failed(prepared, exc, call_id)
    return shape(prepared, value, call_id)


# ----------------------------------------------------------------- sync driver
def run_call(  # noqa: PLR0917
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    policy: Policy,
    call_id: str,
    extra: Mapping[str, Any] | None,
    lenient: bool,
    auth: AuthIdentity | None = None,
    deferral: Deferral | None = None,
) -> ToolResult:
    """The pipeline, driven from sync code; async hooks and handlers run on the portal."""
    started = time.perf_counter()
    steps = pipeline(prepared, arguments, env, policy, call_id, extra, lenient, auth, deferral)
    span = policy.open_span(prepared, call_id, arguments)
    if span is None:
        return _drive(steps, prepared, policy, env.portal)
    with span as current:
        result = _drive(steps, prepared, policy, env.portal)
        policy.close_span(current, result, started)
    return result


def _drive(
    steps: Generator[Effect, Any, ToolResult],
    prepared: PreparedTool,
    policy: Policy,
    portal: LoopPortal | None,
) -> ToolResult:
    try:
        effect = next(steps)
    except StopIteration as stop:  # nothing to carry out: invalid arguments, say
        return stop.value  # type: ignore[no-any-return]
    while True:
        outcome: Any = None
        try:
            if isinstance(effect, Attempt):
                outcome = _attempt_sync(prepared, effect, policy.pool, portal)
            elif isinstance(effect, Callback):
                outcome = _callback_sync(effect.callback(), portal)
            else:
                time.sleep(effect.seconds)
        except (Exception, SystemExit) as exc:
            try:
                effect = steps.throw(exc)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            continue
        try:
            effect = steps.send(outcome)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]


def _callback_sync(outcome: Any, portal: LoopPortal | None) -> Any:
    """A hook's or approver's answer from sync code; awaitables are run to completion."""
    if inspect.isawaitable(outcome):
        awaitable: Awaitable[Any] = outcome
        return run_on(portal, lambda: awaitable)
    return outcome


def _attempt_sync(
    prepared: PreparedTool, attempt: Attempt, pool: WorkerPool, portal: LoopPortal | None
) -> Any:
    handler, kwargs, timeout = prepared.spec.handler, attempt.kwargs, attempt.timeout
    if prepared.is_async:
        return run_on(portal, lambda: _with_timeout(handler(**kwargs), timeout))
    if timeout is None:
        return handler(**kwargs)
    context = contextvars.copy_context()
    future = pool.submit(lambda: context.run(handler, **kwargs))
    try:
        return future.result(timeout=timeout)
    except TimeoutError:
        if not future.done():
            pool.interrupt(future)  # a CPU-bound Python handler stops instead of running on
            raise TimedOut from None
        raise


async def _with_timeout(awaitable: Awaitable[Any], timeout: float | None) -> Any:
    import asyncio

    if timeout is None:
        return await awaitable
    try:
        async with asyncio.timeout(timeout) as scope:
            return await awaitable
    except TimeoutError:
        if scope.expired():
            raise TimedOut from None
        raise


# ---------------------------------------------------------------- async driver
async def arun_call(  # noqa: PLR0917
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    policy: Policy,
    call_id: str,
    extra: Mapping[str, Any] | None,
    lenient: bool,
    auth: AuthIdentity | None = None,
    deferral: Deferral | None = None,
) -> ToolResult:
    """The pipeline, driven on the event loop; sync handlers go to a worker thread unless inline."""
    started = time.perf_counter()
    steps = pipeline(prepared, arguments, env, policy, call_id, extra, lenient, auth, deferral)
    span = policy.open_span(prepared, call_id, arguments)
    if span is None:
        return await _adrive(steps, prepared, policy, env.portal)
    with span as current:
        result = await _adrive(steps, prepared, policy, env.portal)
        policy.close_span(current, result, started)
    return result


async def _adrive(
    steps: Generator[Effect, Any, ToolResult],
    prepared: PreparedTool,
    policy: Policy,
    portal: LoopPortal | None,
) -> ToolResult:
    import asyncio

    try:
        effect = next(steps)
    except StopIteration as stop:  # nothing to carry out: invalid arguments, say
        return stop.value  # type: ignore[no-any-return]
    while True:
        outcome: Any = None
        try:
            if isinstance(effect, Attempt):
                outcome = await _attempt_async(prepared, effect, policy.pool, portal)
            elif isinstance(effect, Callback):
                outcome = effect.callback()
                if inspect.isawaitable(outcome):
                    outcome = await arun_on(portal, partial(_identity, outcome))
            else:
                await asyncio.sleep(effect.seconds)
        except (Exception, SystemExit) as exc:
            try:
                effect = steps.throw(exc)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            continue
        try:
            effect = steps.send(outcome)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]


def _identity(value: Any) -> Any:
    return value


async def _attempt_async(
    prepared: PreparedTool, attempt: Attempt, pool: WorkerPool, portal: LoopPortal | None
) -> Any:
    import asyncio

    handler, kwargs, timeout = prepared.spec.handler, attempt.kwargs, attempt.timeout
    if prepared.is_async:
        return await arun_on(portal, lambda: _with_timeout(handler(**kwargs), timeout))
    if prepared.spec.inline:
        return handler(**kwargs)
    context = contextvars.copy_context()
    future = pool.submit_async(lambda: context.run(handler, **kwargs), asyncio.get_running_loop())
    if timeout is None:
        return await future  # cancelling the caller cancels the future: the outcome is dropped
    try:
        done, _ = await asyncio.wait({future}, timeout=timeout)
    except asyncio.CancelledError:
        future.cancel()  # asyncio.wait leaves it pending: drop the outcome (never "unretrieved")
        raise
    if not done:
        pool.interrupt(future)  # a CPU-bound Python handler stops instead of running on
        future.cancel()  # the thread's eventual outcome is dropped
        raise TimedOut
    return future.result()
