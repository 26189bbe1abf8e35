"""The one pipeline of a call, with its policy steps, as a generator of effects.

    accept -> (from_auth) -> before hooks -> approval (side effects) -> bind
      -> attempt (timeout) -> retry? -> substitute? -> shape -> after hooks

:func:`pipeline` calls the steps of :mod:`tooldeck._calling.steps` in this
order and writes every policy decision around them once. Whatever needs a
thread, an event loop or the clock it asks for as an :data:`Effect`, and
receives the outcome back (or has its exception thrown in: :class:`TimedOut`
for an attempt past its timeout). The drivers in
:mod:`tooldeck._calling.drivers` carry the effects out, sync or async, so
this module has no I/O, thread or event loop in it (as
:func:`tooldeck.providers._loop.loop.conversation` is for the model loop).

With no policy in force (a plain tool on a registry without hooks, a default
timeout or a tracer) the generator asks for one :class:`Attempt` and
nothing else; a sync call then has the same steps called directly instead
(:func:`~tooldeck._calling.drivers.run_plain`), since a generator costs a
visible share of a plain call's overhead budget.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias

from .._binding import CallEnv, PreparedTool
from .._calltypes import ToolResult
from .._log import get_logger
from .policies import (
    ApprovalRequest,
    CallEvent,
    Decision,
    Deferral,
    Policy,
    PoolSaturated,
    as_decision,
)
from .results import error_result
from .steps import Refused, accept, bind, failed, fill_auth, shape

if TYPE_CHECKING:
    from .._identity import AuthIdentity

__all__ = ["Attempt", "Callback", "Effect", "Sleep", "TimedOut", "pipeline"]

log = get_logger("tooldeck.calls")


# -------------------------------------------------------------------- effects
@dataclass(frozen=True, slots=True)
class Callback:
    """Call a hook or the approver; its answer is sent back (awaited first if awaitable)."""

    callback: Callable[[], object]


@dataclass(frozen=True, slots=True)
class Attempt:
    """Run the handler once with ``kwargs``, within ``timeout`` seconds (None: no limit).

    Its value is sent back; its exception is thrown in, :class:`TimedOut`
    when the time ran out.
    """

    kwargs: dict[str, Any]
    timeout: float | None


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``seconds`` before the next attempt; None is sent back."""

    seconds: float


Effect: TypeAlias = Callback | Attempt | Sleep
"""What the pipeline asks its driver to do."""


class TimedOut(Exception):
    """Thrown into the pipeline when an :class:`Attempt` ran past its timeout."""


# ------------------------------------------------------------- policy results
def _denied(prepared: PreparedTool, call_id: str, message: str) -> ToolResult:
    return error_result("denied", message, tool_name=prepared.name, call_id=call_id)


def _no_approver(prepared: PreparedTool, call_id: str) -> ToolResult:
    effect = f" ({prepared.spec.effect})" if prepared.spec.effect else ""
    return _denied(
        prepared,
        call_id,
        f"tool {prepared.name!r} has side effects{effect} and needs approval, but no approver "
        "is configured; the call was not made",
    )


def _pending(prepared: PreparedTool, call_id: str, decision: Decision | None) -> ToolResult:
    """Waiting for a decision the caller (the model loop) will ask for and bring back.

    The deferring approver's reason, if any, is the result's ``value`` (the loop
    shows it on the interruption; nothing of a pending call reaches the model).
    """
    effect = f" ({prepared.spec.effect})" if prepared.spec.effect else ""
    said = decision.reason if decision is not None else ""
    reason = f": {said}" if said else ""
    result = error_result(
        "approval_pending",
        f"tool {prepared.name!r} has side effects{effect}; the call waits for approval{reason}",
        tool_name=prepared.name,
        call_id=call_id,
    )
    result.value = said
    return result


def _denied_by(prepared: PreparedTool, call_id: str, decision: Decision) -> ToolResult:
    reason = f": {decision.reason}" if decision.reason else ""
    if decision.deferred:  # "later" from a caller that cannot wait: not approved
        reason = f" (its approval was deferred, and this call cannot wait for it){reason}"
    return _denied(prepared, call_id, f"the call to {prepared.name!r} was not approved{reason}")


def _retry_allowed(prepared: PreparedTool) -> bool:
    spec = prepared.spec
    return spec.retry is not None and (not spec.side_effects or spec.idempotent)


def _timeout_of(prepared: PreparedTool, policy: Policy) -> float | None:
    timeout = prepared.spec.timeout
    return policy.default_timeout if timeout is None else timeout


def _timeout_result(prepared: PreparedTool, call_id: str, timeout: float) -> ToolResult:
    return error_result(
        "timeout",
        f"tool {prepared.name!r} did not finish within {timeout:g} s; try a smaller request",
        tool_name=prepared.name,
        call_id=call_id,
        exception=TimeoutError(f"{prepared.name} exceeded {timeout:g} s"),
    )


_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def substitute(value: Any, args: Mapping[str, Any]) -> Any:
    """Result substitution as the Java functional-tools SPI does it, opt-in: ``${param}``
    in a string result becomes that argument's value in this call.

    Only the call's own validated arguments are used, in one pass: a
    substituted value is never scanned again, and ``${config:...}`` or
    ``${env:...}`` in a result (text a model may have sent through a file or
    an argument) is left exactly as it is, so no configuration value or
    secret can be pulled out through a result.
    """
    if not isinstance(value, str) or "${" not in value:
        return value

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in args:
            return match.group(0)
        found = args[name]
        if isinstance(found, str):
            return found
        try:
            return json.dumps(found, ensure_ascii=False)
        except (TypeError, ValueError):
            return match.group(0)

    return _PLACEHOLDER.sub(one, value)


# ------------------------------------------------------------------ the pipeline
def pipeline(  # noqa: PLR0917
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    policy: Policy,
    call_id: str,
    extra: Mapping[str, Any] | None,
    lenient: bool,
    auth: AuthIdentity | None = None,
    deferral: Deferral | None = None,
) -> Generator[Effect, Any, ToolResult]:
    """accept -> body -> after hooks; the result every caller gets.

    ``deferral``: the caller can wait for approvals (see :class:`Deferral`).
    """
    try:
        args = accept(prepared, arguments, call_id, lenient)
        if prepared.from_auth is not None:  # decided at registration (never a plain tool)
            fill_auth(prepared, args, call_id, auth)
    except Refused as refused:
        event = CallEvent(prepared.spec, {}, call_id, extra or {}, auth)
        result = refused.result
    else:
        event = CallEvent(prepared.spec, dict(args), call_id, extra or {}, auth)
        result = yield from _body(prepared, args, event, env, policy, extra, deferral)
    for hook in policy.after:
        try:
            yield Callback(partial(hook, event, result))
        except Exception as exc:  # an audit hook must never break the call
            log.warning("after-call hook %r failed: %s: %s", hook, type(exc).__name__, exc)
    return result


def _body(  # noqa: PLR0917
    prepared: PreparedTool,
    args: dict[str, Any],
    event: CallEvent,
    env: CallEnv,
    policy: Policy,
    extra: Mapping[str, Any] | None,
    deferral: Deferral | None = None,
) -> Generator[Effect, Any, ToolResult]:
    """before hooks -> approval -> bind -> attempts with retries -> shape."""
    call_id = event.call_id
    for hook in policy.before:
        try:
            outcome = yield Callback(partial(hook, event))
        except Exception as exc:
            return _denied(prepared, call_id, f"refused by a before-call check: {exc}")
        if isinstance(outcome, ToolResult):
            return outcome
    if prepared.spec.side_effects and not policy.allow_side_effects:
        decided = deferral.decided.get(call_id) if deferral is not None else None
        if decided is not None:  # decided already (a paused conversation resumed)
            decision = as_decision(decided)
        elif policy.approve is None:
            if deferral is not None:
                return _pending(prepared, call_id, None)
            return _no_approver(prepared, call_id)
        else:
            request = ApprovalRequest(prepared.spec, dict(args), call_id, event.auth, event.context)
            try:
                answer = yield Callback(partial(policy.approve, request))
            except Exception as exc:
                return _denied(prepared, call_id, f"approval failed: {type(exc).__name__}: {exc}")
            decision = as_decision(answer)
        if decision.deferred and deferral is not None:
            return _pending(prepared, call_id, decision)
        if not decision.approved:
            return _denied_by(prepared, call_id, decision)
    try:
        kwargs = bind(prepared, args, env, call_id, extra, event.auth)
    except Refused as refused:
        return refused.result
    timeout = _timeout_of(prepared, policy)
    retry = prepared.spec.retry if _retry_allowed(prepared) else None
    attempt = 0
    while True:
        attempt += 1
        try:
            value = yield Attempt(kwargs, timeout)
        except TimedOut:
            if retry and attempt < retry.attempts and "TimeoutError" in retry.on:
                yield Sleep(retry.delay(attempt))
                continue
            result = _timeout_result(prepared, call_id, timeout or 0)
        except PoolSaturated as exc:
            result = failed(prepared, exc, call_id)
        except (Exception, SystemExit) as exc:
            if retry and attempt < retry.attempts and retry.matches(exc):
                yield Sleep(retry.delay(attempt))
                continue
            result = failed(prepared, exc, call_id)
        else:
            if prepared.spec.substitute_result:
                value = substitute(value, args)
            result = shape(prepared, value, call_id, env)
        result.attempts = attempt
        return result
