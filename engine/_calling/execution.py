"""The guarded call path: timeouts, retries, approval, hooks, tracing, result substitution.

Tools that need none of it take the fast path in :mod:`tooldeck._calling.calls`; this
module runs the rest through the same steps (``validate_call``,
``bind_call``, ``finish``) with the policies around them:

    validate -> before hooks -> approval (side effects) -> bind
      -> attempt (timeout) -> retry? -> finish -> after hooks, span, log

The steps are written once, as a generator of effects
(:mod:`tooldeck._calling.steps`, with :class:`Policy`); this module is the
sync and the async driver that carry the effects out, and the one the
registry imports from.

A sync handler past its timeout: the caller gets a ``timeout`` result on
time, and :meth:`~tooldeck._calling.workers.WorkerPool.interrupt` raises
:class:`~tooldeck._calling.workers.HandlerTimedOut` inside it, which stops Python code
at its next bytecode (a blocking C call finishes first, still inside the
bounded pool, so abandoned threads never pile up). Async handlers are
cancelled.
"""

from __future__ import annotations

import contextvars
import inspect
import time
from collections.abc import Awaitable, Generator, Mapping
from functools import partial
from typing import Any

from .._binding import CallEnv, PreparedTool
from .._calltypes import ToolResult
from .._portal import LoopPortal, arun_on, run_on
from .policies import WorkerPool
from .steps import Effect, Policy, _steps, _TimedOut

__all__ = ["Policy", "arun_guarded", "run_guarded"]


# ----------------------------------------------------------------- sync driver
def run_guarded(
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    policy: Policy,
    *,
    call_id: str,
    extra: Mapping[str, Any] | None,
    lenient: bool,
) -> ToolResult:
    started = time.perf_counter()
    steps = _steps(prepared, arguments, env, policy, call_id, extra, lenient)
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
    except StopIteration as stop:  # nothing to perform: invalid arguments, say
        return stop.value  # type: ignore[no-any-return]
    while True:
        try:
            kind, payload = effect
            if kind == "callback":
                outcome = _callback_sync(payload(), portal)
            elif kind == "attempt":
                kwargs, timeout = payload
                outcome = _attempt_sync(prepared, kwargs, timeout, policy.pool, portal)
            else:
                time.sleep(payload)
                outcome = None
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
    prepared: PreparedTool,
    kwargs: dict[str, Any],
    timeout: float | None,
    pool: WorkerPool,
    portal: LoopPortal | None,
) -> Any:
    handler = prepared.spec.handler
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
            raise _TimedOut from None
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
            raise _TimedOut from None
        raise


# ---------------------------------------------------------------- async driver
async def arun_guarded(
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    policy: Policy,
    *,
    call_id: str,
    extra: Mapping[str, Any] | None,
    lenient: bool,
) -> ToolResult:
    started = time.perf_counter()
    steps = _steps(prepared, arguments, env, policy, call_id, extra, lenient)
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
    except StopIteration as stop:  # nothing to perform: invalid arguments, say
        return stop.value  # type: ignore[no-any-return]
    while True:
        try:
            kind, payload = effect
            if kind == "callback":
                outcome = payload()
                if inspect.isawaitable(outcome):
                    outcome = await arun_on(portal, partial(_identity, outcome))
            elif kind == "attempt":
                kwargs, timeout = payload
                outcome = await _attempt_async(prepared, kwargs, timeout, policy.pool, portal)
            else:
                await asyncio.sleep(payload)
                outcome = None
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
    prepared: PreparedTool,
    kwargs: dict[str, Any],
    timeout: float | None,
    pool: WorkerPool,
    portal: LoopPortal | None,
) -> Any:
    import asyncio

    handler = prepared.spec.handler
    if prepared.is_async:
        return await arun_on(portal, lambda: _with_timeout(handler(**kwargs), timeout))
    if prepared.spec.inline:
        return handler(**kwargs)
    context = contextvars.copy_context()
    future = pool.submit_async(lambda: context.run(handler, **kwargs), asyncio.get_running_loop())
    if timeout is None:
        return await future
    done, _ = await asyncio.wait({future}, timeout=timeout)
    if not done:
        pool.interrupt(future)  # a CPU-bound Python handler stops instead of running on
        future.cancel()  # the thread's eventual outcome is dropped
        raise _TimedOut
    return future.result()
