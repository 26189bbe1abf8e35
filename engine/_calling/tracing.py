"""OpenTelemetry spans for tool calls (the GenAI ``execute_tool`` conventions).

opentelemetry-api is imported on first use, and only checked for an
installed SDK at most once a second, so an application without tracing pays
nothing per call.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._binding import PreparedTool
    from .._calltypes import ToolResult

__all__ = ["end_span", "start_span", "tracing_active"]

_otel: Any = None


def _trace_api() -> Any:
    global _otel  # noqa: PLW0603 - imported once, on first use, to keep `import tooldeck` light
    if _otel is None:
        try:
            from opentelemetry import trace
        except ImportError:  # pragma: no cover - opentelemetry-api comes with mcp
            _otel = False
        else:
            _otel = trace
    return _otel


_tracing = {"active": False, "next_check": 0.0}


def tracing_active() -> bool:
    """True once the application installed an OpenTelemetry SDK tracer provider.

    Checked at most once a second while inactive (the OpenTelemetry lookup
    reads the environment, too slow for every call); once active it stays so,
    since a global provider can only be set once.
    """
    if _tracing["active"]:
        return True
    now = time.monotonic()
    if now < _tracing["next_check"]:
        return False
    _tracing["next_check"] = now + 1.0
    api = _trace_api()
    if api is False:
        return False
    active = type(api.get_tracer_provider()).__name__ != "ProxyTracerProvider"
    _tracing["active"] = active
    return active


def start_span(
    prepared: PreparedTool,
    call_id: str,
    arguments: Any,
    *,
    provider: Any,
    trace_arguments: bool,
    redact: Callable[[str], str],
) -> Any:
    """A span context manager for one call, or None when nothing is being traced."""
    if provider is None:
        if not tracing_active():
            return None
        provider = _otel.get_tracer_provider()
    from .._version import __version__

    tracer = provider.get_tracer("tooldeck", __version__)
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": prepared.name,
        "gen_ai.tool.call.id": call_id,
        "tooldeck.bundle": prepared.spec.bundle or "",
    }
    if trace_arguments:
        attributes["tooldeck.arguments"] = redact(
            arguments if isinstance(arguments, str) else repr(arguments)
        )
    return tracer.start_as_current_span(f"execute_tool {prepared.name}", attributes=attributes)


def end_span(
    span: Any,
    result: ToolResult,
    started: float,
    *,
    trace_arguments: bool,
    redact: Callable[[str], str],
) -> None:
    """Record the outcome (and, if asked, the redacted result) on ``span``."""
    span.set_attribute("tooldeck.outcome", "ok" if result.ok else result.error.kind)  # type: ignore[union-attr]
    span.set_attribute("tooldeck.attempts", result.attempts)
    span.set_attribute("tooldeck.duration_ms", (time.perf_counter() - started) * 1000)
    if trace_arguments and result.ok:
        span.set_attribute("tooldeck.result", redact(result.text)[:4096])
    if not result.ok:
        from opentelemetry.trace import Status, StatusCode

        span.set_status(Status(StatusCode.ERROR, result.error.kind))  # type: ignore[union-attr]
