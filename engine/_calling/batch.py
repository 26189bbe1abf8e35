"""A parallel batch from sync code, on the worker threads, without an event loop.

``call_many(strategy="parallel")`` used to run ``acall_many`` on an event
loop (the portal's, or a fresh one per batch: 0.5-1 ms before the first
tool ran). A batch of sync tools needs no loop: :func:`run_parallel` drives
each call's :func:`~tooldeck._calling.pipeline.pipeline` on the calling
thread, as ``acall`` drives it on a loop, and sends each :class:`Attempt` to
the registry's :class:`~tooldeck._calling.workers.WorkerPool`; the calling
thread waits on one queue that the attempts' futures report to, and wakes for
the nearest deadline (an attempt's timeout, a retry's delay). So every
result is the one ``acall_many`` gives, step for step:

- at most ``limit`` calls are under way at once, started in the batch's order;
- hooks and the approver run on the calling thread, one at a time (on the
  loop they ran one at a time too); an ``inline`` handler runs there as well;
- a timeout interrupts the handler and answers ``timeout``; a saturated pool
  answers :class:`PoolSaturated` as a failed result; one failure never stops
  the others; results come back in the calls' order, secrets masked;
- each call runs in a copy of the caller's context (as a task would), entered
  for each of its steps, so an OpenTelemetry span stays the current one for
  its own call only.

Returns None when a call needs the event loop: an ``async def`` handler, an
``async def`` hook or approver, or a name the registry does not hold while
attached sources might provide it (their refresh is awaited on a loop).
``call_many`` then takes the loop route, as before.
"""

from __future__ import annotations

import contextvars
import inspect
import queue
import time
from collections.abc import Generator, Mapping
from concurrent.futures import Future
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from .._identity import missing_scopes
from .drivers import _callback_sync, run_plain
from .pipeline import Attempt, Callback, Effect, TimedOut, pipeline
from .results import new_call_id, not_permitted
from .steps import Refused, accept, bind, failed, shape
from .workers import PoolSaturated

if TYPE_CHECKING:
    from .._binding import CallEnv, PreparedTool
    from .._calltypes import ToolCall, ToolResult
    from .._identity import AuthIdentity
    from .._sources import Sources
    from .policies import Deferral, Policy

__all__ = ["run_parallel"]


class CallDispatch(Protocol):
    """What a batch uses of :class:`~tooldeck._calling.dispatch.CallDispatch` (the registry)."""

    _env: CallEnv
    _policy: Policy
    _lenient: bool
    _sources: Sources

    def _resolve(self, name: str) -> PreparedTool | None: ...
    def _plain(self, entry: PreparedTool) -> bool: ...
    def _missing(self, name: str, call_id: str, auth: AuthIdentity | None) -> ToolResult: ...
    def _hand_back(self, result: ToolResult, raise_errors: bool | None) -> ToolResult: ...


class _Call:
    """One call of the batch while it is under way."""

    __slots__ = (
        "call_id",
        "context",
        "current",
        "deadline",
        "future",
        "index",
        "prepared",
        "span",
        "started",
        "steps",
    )

    def __init__(
        self,
        index: int,
        prepared: PreparedTool,
        steps: Generator[Effect, Any, ToolResult] | None,
        context: contextvars.Context,
        call_id: str,
    ) -> None:
        self.index = index
        self.call_id = call_id
        self.prepared = prepared
        self.steps = steps
        """The pipeline; None for a plain call, whose one attempt is all there is to it."""
        self.context = context
        self.span: Any = None
        """The span's context manager, when something traces; ``current`` is what it entered."""
        self.current: Any = None
        self.started = 0.0
        self.future: Future[Any] | None = None
        """The running attempt; None while the call sleeps before a retry."""
        self.deadline: float | None = None
        """When the attempt times out, or the sleep ends (``time.monotonic``)."""


def needs_loop(dispatch: CallDispatch, batch: list[ToolCall]) -> bool:
    """Whether some call of ``batch`` can only run on an event loop (see the module docstring)."""
    policy = dispatch._policy
    for call in batch:
        entry = dispatch._resolve(call.name)
        if entry is None:
            if dispatch._sources:
                return True
        elif entry.is_async:
            return True
    hooks = (*policy.before, *policy.after, policy.approve)
    return any(inspect.iscoroutinefunction(hook) for hook in hooks if hook is not None)


def run_parallel(  # noqa: PLR0917
    dispatch: CallDispatch,
    batch: list[ToolCall],
    limit: int | None,
    context: Mapping[str, Any] | None,
    auth: AuthIdentity | None,
    deferral: Deferral | None = None,
) -> list[ToolResult]:
    """Run ``batch`` concurrently on the worker threads; see the module docstring.

    The caller has checked :func:`needs_loop` first.
    """
    results: list[ToolResult | None] = [None] * len(batch)
    runner = _Runner(dispatch, results)
    waiting = list(enumerate(batch))
    waiting.reverse()  # popped from the end: the batch's order
    room = limit or len(batch) or 1
    while waiting or runner.under_way:
        while waiting and runner.under_way < room:
            index, call = waiting.pop()
            runner.start(index, call, context, auth, deferral)
        if runner.under_way:
            runner.wait()
    return [dispatch._hand_back(result, None) for result in results]  # type: ignore[arg-type]


class _Runner:
    """Carries out the effects of the calls under way; wakes for futures and deadlines."""

    def __init__(self, dispatch: CallDispatch, results: list[ToolResult | None]) -> None:
        self.dispatch = dispatch
        self.policy: Policy = dispatch._policy
        self.results = results
        self.under_way = 0
        self.reports: queue.SimpleQueue[Future[Any]] = queue.SimpleQueue()
        self.attempts: dict[Future[Any], _Call] = {}
        self.timed: list[_Call] = []
        """Calls with a deadline: an attempt with a timeout, or a sleep before a retry."""

    def start(
        self,
        index: int,
        call: ToolCall,
        extra: Mapping[str, Any] | None,
        auth: AuthIdentity | None,
        deferral: Deferral | None = None,
    ) -> None:
        """Resolve the call and take it as far as it goes without waiting (``acall``'s steps)."""
        dispatch, call_id = self.dispatch, call.call_id or new_call_id()
        entry = dispatch._resolve(call.name)
        if entry is None:
            self.results[index] = dispatch._missing(call.name, call_id, auth)
            return
        if auth is not None and entry.spec.scopes:
            lacking = missing_scopes(entry.spec.scopes, auth)
            if lacking:
                self.results[index] = not_permitted(entry.name, lacking, call_id)
                return
        env, lenient, context = dispatch._env, dispatch._lenient, contextvars.copy_context()
        if dispatch._plain(entry):
            if entry.spec.inline:  # acall's shortcut: nothing to wait for
                self.results[index] = context.run(
                    run_plain, entry, call.arguments, env, call_id, extra, lenient, auth
                )
            else:
                self._start_plain(_Call(index, entry, None, context, call_id), call, extra, auth)
            return
        steps = pipeline(
            entry, call.arguments, env, self.policy, call_id, extra, lenient, auth, deferral
        )
        one = _Call(index, entry, steps, context, call_id)
        span = self.policy.open_span(entry, call_id, call.arguments)
        if span is not None:
            one.started = time.perf_counter()
            one.span = span
            one.current = context.run(span.__enter__)
        self.under_way += 1
        self._advance(one, None)

    def _start_plain(
        self,
        one: _Call,
        call: ToolCall,
        extra: Mapping[str, Any] | None,
        auth: AuthIdentity | None,
    ) -> None:
        """A plain call: the pipeline would ask for one attempt without a timeout, nothing else.

        So its steps are called directly, as :func:`~tooldeck._calling.drivers.run_plain`
        does (a generator per call is a visible share of a small batch's cost).
        """
        prepared, call_id, env = one.prepared, one.call_id, self.dispatch._env
        try:
            args = accept(prepared, call.arguments, call_id, self.dispatch._lenient)
            kwargs = bind(prepared, args, env, call_id, extra, auth)
        except Refused as refused:
            self.results[one.index] = refused.result
            return
        try:
            self._submit(one, kwargs, None)
        except PoolSaturated as exc:
            self.results[one.index] = failed(prepared, exc, call_id)
            return
        self.under_way += 1

    def wait(self) -> None:
        """Wait for the next attempt to end or the nearest deadline, and carry on from there."""
        timeout = None
        if self.timed:
            nearest = min(c.deadline for c in self.timed)  # type: ignore[type-var]
            timeout = max(0.0, nearest - time.monotonic())  # type: ignore[operator]
        try:
            future = self.reports.get(timeout=timeout)
        except queue.Empty:
            pass
        else:
            self._attempt_ended(future)
        if self.timed:
            self._deadlines()

    def _attempt_ended(self, future: Future[Any]) -> None:
        one = self.attempts.pop(future, None)
        if one is None:
            return  # it timed out before it reported
        one.future = None
        if one.deadline is not None:
            one.deadline = None
            self.timed.remove(one)
        self._outcome(one, future)

    def _deadlines(self) -> None:
        now = time.monotonic()
        for one in [c for c in self.timed if c.deadline <= now]:  # type: ignore[operator]
            self.timed.remove(one)
            one.deadline = None
            future = one.future
            if future is None:  # the sleep before a retry is over
                self._advance(one, None)
                continue
            del self.attempts[future]
            one.future = None
            if future.done():  # it ended just now: its outcome counts, as under asyncio.wait
                self._outcome(one, future)
                continue
            self.policy.pool.interrupt(future)  # a CPU-bound Python handler stops
            future.cancel()  # not started yet: never runs; its eventual outcome is dropped
            self._advance(one, TimedOut(), thrown=True)

    def _outcome(self, one: _Call, future: Future[Any]) -> None:
        error = future.exception()
        if one.steps is None:  # a plain call: its one attempt is its result
            if error is None:
                self._finish(
                    one, shape(one.prepared, future.result(), one.call_id, self.dispatch._env)
                )
            elif isinstance(error, Exception | SystemExit):
                self._finish(one, failed(one.prepared, error, one.call_id))
            else:
                raise error
            return
        if error is None:
            self._advance(one, future.result())
        elif isinstance(error, Exception | SystemExit):
            self._advance(one, error, thrown=True)
        else:
            raise error  # as the drivers do: only what a call may answer goes into it

    def _advance(self, one: _Call, value: Any, thrown: bool = False) -> None:
        """Send ``value`` (or throw it) into the call's steps, until it waits or ends."""
        run, steps = one.context.run, one.steps
        assert steps is not None
        step = steps.throw if thrown else steps.send
        while True:
            try:
                effect = run(step, value)
            except StopIteration as stop:
                self._finish(one, stop.value)
                return
            step, value = steps.send, None
            try:
                if isinstance(effect, Attempt):
                    if one.prepared.spec.inline:  # runs right here, as on the loop
                        value = run(one.prepared.spec.handler, **effect.kwargs)
                    else:
                        self._submit(one, effect.kwargs, effect.timeout)
                        return
                elif isinstance(effect, Callback):
                    value = _callback_sync(run(effect.callback), self.dispatch._env.portal)
                else:  # Sleep: wake when it is over
                    self._wait_until(one, time.monotonic() + effect.seconds)
                    return
            except (Exception, SystemExit) as exc:
                step, value = steps.throw, exc

    def _submit(self, one: _Call, kwargs: dict[str, Any], timeout: float | None) -> None:
        """Start an attempt on a worker; raises :class:`PoolSaturated` when every one is busy."""
        handler = one.prepared.spec.handler
        context = one.context.run(contextvars.copy_context)
        future = self.policy.pool.submit(partial(context.run, handler, **kwargs))
        one.future = future
        self.attempts[future] = one
        if timeout is not None:
            self._wait_until(one, time.monotonic() + timeout)
        future.add_done_callback(self.reports.put)

    def _wait_until(self, one: _Call, deadline: float) -> None:
        one.deadline = deadline
        self.timed.append(one)

    def _finish(self, one: _Call, result: ToolResult) -> None:
        self.under_way -= 1
        self.results[one.index] = result
        if one.span is not None:
            run = one.context.run
            try:
                run(self.policy.close_span, one.current, result, one.started)
            finally:
                run(one.span.__exit__, None, None, None)
