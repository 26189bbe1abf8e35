"""The guarded call's steps, written once: a generator of effects for two drivers.

    validate -> before hooks -> approval (side effects) -> bind
      -> attempt (timeout) -> retry? -> finish -> after hooks

:func:`_steps` yields effects (``("callback", fn)``: call a hook or the
approver, and await its answer if it is awaitable; ``("attempt", (kwargs,
timeout))``: call the handler; ``("sleep", seconds)``: wait before a retry)
and receives their outcomes,
or has their exceptions thrown in (:class:`_TimedOut` for an attempt past
its timeout). :class:`Policy` holds the registry-wide settings the steps
apply.

Separate from the drivers in :mod:`tooldeck._calling.execution`, which perform the
effects sync or async: every policy decision is here, once, and no I/O,
thread or event loop is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .._binding import CallEnv, PreparedTool
from .._calltypes import ToolResult
from .._log import get_logger
from .._secrets import Secrets
from .calls import (
    bind_call,
    error_result,
    failed,
    finish,
    validate_call,
)
from .policies import (
    AfterHook,
    ApprovalCallback,
    ApprovalRequest,
    BeforeHook,
    CallEvent,
    Decision,
    PoolSaturated,
    WorkerPool,
)
from .tracing import end_span, start_span

__all__ = ["Effect", "Policy", "_TimedOut", "_steps"]

log = get_logger("tooldeck.calls")


@dataclass
class Policy:
    """Registry-wide settings the guarded path applies."""

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
        """Whether every call needs the guarded path (hooks, a default timeout, a tracer)."""
        return (
            self.default_timeout is not None
            or bool(self.before)
            or bool(self.after)
            or self.tracer_provider is not None
        )


class _TimedOut(Exception):
    pass


# -------------------------------------------------------------- shared steps
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


def as_decision(value: Any) -> Decision:
    """Only ``True`` or an approving :class:`Decision` approves; anything else denies.

    A truthy string, a non-empty list or ``1`` from a careless approver must
    not run a side effect: approval is explicit or it is not given.
    """
    if isinstance(value, Decision):
        return value if value.approved is True else Decision(False, value.reason)
    if value is True:
        return Decision(True)
    if value is False:
        return Decision(False)
    return Decision(
        False,
        f"the approver answered {type(value).__name__}, not True or a Decision; "
        "only an explicit approval runs a side effect",
    )


def _denied_by(prepared: PreparedTool, call_id: str, decision: Decision) -> ToolResult:
    reason = f": {decision.reason}" if decision.reason else ""
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


def _substitute(value: Any, args: Mapping[str, Any]) -> Any:
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


def _finish(
    prepared: PreparedTool, value: Any, args: Mapping[str, Any], call_id: str
) -> ToolResult:
    if prepared.spec.substitute_result:
        value = _substitute(value, args)
    return finish(prepared, value, call_id)


# ------------------------------------------------------- the steps, written once
# The policy logic is a generator that yields effects ("run this callback",
# "make an attempt", "sleep") and receives their outcomes; a sync and an async
# driver perform the effects. Each step exists once, whichever way it is called.

Effect = tuple[str, Any]


def _steps(  # noqa: PLR0917
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    policy: Policy,
    call_id: str,
    extra: Mapping[str, Any] | None,
    lenient: bool,
) -> Generator[Effect, Any, ToolResult]:
    """validate -> body -> after hooks; the result every caller gets."""
    args = validate_call(prepared, arguments, call_id, lenient)
    event = CallEvent(
        prepared.spec, {} if isinstance(args, ToolResult) else dict(args), call_id, extra or {}
    )
    if isinstance(args, ToolResult):
        result = args
    else:
        result = yield from _body(prepared, args, event, env, policy, extra)
    for hook in policy.after:
        try:
            yield ("callback", partial(hook, event, result))
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
) -> Generator[Effect, Any, ToolResult]:
    """before hooks -> approval -> bind -> attempts with retries -> finish."""
    call_id = event.call_id
    for hook in policy.before:
        try:
            outcome = yield ("callback", partial(hook, event))
        except Exception as exc:
            return _denied(prepared, call_id, f"refused by a before-call check: {exc}")
        if isinstance(outcome, ToolResult):
            return outcome
    if prepared.spec.side_effects and not policy.allow_side_effects:
        if policy.approve is None:
            return _no_approver(prepared, call_id)
        request = ApprovalRequest(prepared.spec, dict(args), call_id)
        try:
            answer = yield ("callback", partial(policy.approve, request))
        except Exception as exc:
            return _denied(prepared, call_id, f"approval failed: {type(exc).__name__}: {exc}")
        decision = as_decision(answer)
        if not decision.approved:
            return _denied_by(prepared, call_id, decision)
    kwargs = bind_call(prepared, args, env, call_id, extra)
    if isinstance(kwargs, ToolResult):
        return kwargs
    timeout = _timeout_of(prepared, policy)
    retry = prepared.spec.retry if _retry_allowed(prepared) else None
    attempt = 0
    while True:
        attempt += 1
        try:
            value = yield ("attempt", (kwargs, timeout))
        except _TimedOut:
            if retry and attempt < retry.attempts and "TimeoutError" in retry.on:
                yield ("sleep", retry.delay(attempt))
                continue
            result = _timeout_result(prepared, call_id, timeout or 0)
        except PoolSaturated as exc:
            result = failed(prepared, exc, call_id)
        except (Exception, SystemExit) as exc:
            if retry and attempt < retry.attempts and retry.matches(exc):
                yield ("sleep", retry.delay(attempt))
                continue
            result = failed(prepared, exc, call_id)
        else:
            result = _finish(prepared, value, args, call_id)
        result.attempts = attempt
        return result
