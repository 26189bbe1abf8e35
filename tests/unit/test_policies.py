"""Execution policies with real timing: timeouts, retries, batches, approval, hooks, spans."""

import asyncio
import logging
import threading
import time

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tooldeck import (
    ApprovalRequest,
    CallEvent,
    Decision,
    Param,
    RetrySpec,
    ToolCall,
    ToolRegistry,
    ToolResult,
)
from tooldeck._calling.policies import WorkerPool

FAST_RETRY = RetrySpec(attempts=3, backoff=0.001, max_backoff=0.002)


def sleepy(seconds: float) -> str:
    """Sleep, then say so."""
    time.sleep(seconds)
    return "slept"


async def nap(seconds: float) -> str:
    """Sleep without blocking the loop."""
    await asyncio.sleep(seconds)
    return "napped"


# ------------------------------------------------------------------- timeouts
def test_sync_handler_past_its_timeout_returns_on_time():
    with ToolRegistry() as registry:
        registry.add_tool(None, None, sleepy, timeout=0.05)
        started = time.perf_counter()
        result = registry.call("sleepy", {"seconds": 2})
        elapsed = time.perf_counter() - started
    assert result.error.kind == "timeout"
    assert "'sleepy' did not finish within 0.05 s" in result.error.message
    assert elapsed < 1.0
    assert isinstance(result.error.exception, TimeoutError)


def test_async_handler_is_cancelled_at_its_timeout():
    cancelled = threading.Event()

    async def forever() -> str:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    registry = ToolRegistry()
    registry.add_tool(None, None, forever, timeout=0.05)
    started = time.perf_counter()
    assert registry.call("forever").error.kind == "timeout"
    assert time.perf_counter() - started < 5.0  # a hang bound: the handler sleeps 10 s
    assert cancelled.is_set()


async def test_timeouts_under_acall_for_sync_and_async_handlers():
    with ToolRegistry(default_timeout=0.05) as registry:
        registry.add_tool(None, None, sleepy)
        registry.add_tool(None, None, nap)
        started = time.perf_counter()
        results = await asyncio.gather(
            registry.acall("sleepy", {"seconds": 3}), registry.acall("nap", {"seconds": 3})
        )
        assert time.perf_counter() - started < 2.0  # the handlers take 3 s
        assert [r.error.kind for r in results] == ["timeout", "timeout"]
        assert (await registry.acall("nap", {"seconds": 0})).ok


def test_a_handler_raising_timeout_error_itself_is_an_execution_error():
    def own_timeout() -> str:
        raise TimeoutError("upstream took too long")

    registry = ToolRegistry()
    registry.add_tool(None, None, own_timeout, timeout=5)
    result = registry.call("own_timeout")
    assert result.error.kind == "execution_error"
    assert "upstream took too long" in result.error.message


def test_saturated_pool_answers_with_a_clear_error_instead_of_queueing():
    release = threading.Event()

    def stuck() -> str:
        release.wait(5)
        return "free"

    registry = ToolRegistry(max_workers=2)
    registry.add_tool(None, None, stuck, timeout=0.02)
    try:
        assert registry.call("stuck").error.kind == "timeout"
        assert registry.call("stuck").error.kind == "timeout"
        started = time.perf_counter()
        busy = registry.call("stuck")
        assert time.perf_counter() - started < 2.0  # queueing would wait up to 5 s
        assert busy.error.kind == "execution_error"
        assert "all 2 tool worker threads are busy" in busy.error.message
    finally:
        release.set()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # abandoned threads give their slots back
        if registry.call("stuck").ok:
            break
        time.sleep(0.01)
    else:
        pytest.fail("worker slots were never released")
    registry.close()


def test_worker_pool_bounds_threads():
    pool = WorkerPool(1)
    gate = threading.Event()
    first = pool.submit(gate.wait)
    with pytest.raises(RuntimeError, match="busy"):
        pool.submit(lambda: None)
    gate.set()
    first.result(timeout=5)
    pool.shutdown()


# -------------------------------------------------------------------- retries
def test_retries_io_errors_and_reports_attempts():
    calls = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("connection reset")
        return "ok"

    registry = ToolRegistry()
    registry.add_tool(None, None, flaky, retry=FAST_RETRY)
    result = registry.call("flaky")
    assert result.ok
    assert result.attempts == 3


def test_gives_up_after_attempts_and_keeps_the_last_exception():
    def down() -> str:
        raise OSError("disk on fire")

    registry = ToolRegistry()
    registry.add_tool(None, None, down, retry=FAST_RETRY)
    result = registry.call("down")
    assert result.error.kind == "execution_error"
    assert result.attempts == 3
    assert isinstance(result.error.exception, OSError)


def test_other_exceptions_and_invalid_arguments_are_not_retried():
    calls = []

    def buggy(n: int) -> str:
        calls.append(n)
        raise ValueError("bug")

    registry = ToolRegistry()
    registry.add_tool(None, None, buggy, retry=FAST_RETRY)
    assert registry.call("buggy", {"n": 1}).attempts == 1
    assert registry.call("buggy", {"n": "x"}).error.kind == "invalid_arguments"
    assert calls == [1]


def test_retry_on_named_exceptions_matches_subclasses():
    class FlakyApi(ConnectionError):
        pass

    calls = []

    def api() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise FlakyApi("503")
        return "ok"

    registry = ToolRegistry()
    registry.add_tool(
        None, None, api, retry=RetrySpec(attempts=2, backoff=0, on=("ConnectionError",))
    )
    assert registry.call("api").attempts == 2


def test_side_effecting_tools_retry_only_when_idempotent():
    calls = []

    def charge() -> str:
        calls.append(1)
        raise ConnectionError("gateway")

    registry = ToolRegistry(allow_side_effects=True)
    registry.add_tool("charge", "Charge.", charge, side_effects=True, retry=FAST_RETRY)
    assert registry.call("charge").attempts == 1
    registry.add_tool(
        "refresh", "Refresh.", charge, side_effects=True, idempotent=True, retry=FAST_RETRY
    )
    assert registry.call("refresh").attempts == 3
    assert len(calls) == 4


def test_timeouts_are_retried_as_timeout_errors():
    calls = []

    def slow_then_fast() -> str:
        calls.append(1)
        if len(calls) == 1:
            time.sleep(0.5)
        return "fast"

    with ToolRegistry() as registry:
        registry.add_tool(None, None, slow_then_fast, timeout=0.05, retry=FAST_RETRY)
        result = registry.call("slow_then_fast")
    assert result.ok
    assert result.attempts == 2


def test_backoff_grows_and_is_bounded_with_jitter():
    spec = RetrySpec(attempts=5, backoff=0.1, max_backoff=0.3)
    for attempt, ceiling in ((1, 0.1), (2, 0.2), (3, 0.3), (4, 0.3)):
        delay = spec.delay(attempt)
        assert ceiling * 0.5 <= delay <= ceiling


# -------------------------------------------------------------------- batches
def test_call_many_keeps_order_and_failures_do_not_cancel_others():
    registry = ToolRegistry()
    registry.add_tool(None, None, sleepy)
    calls = [
        ToolCall("sleepy", {"seconds": 0.03}, call_id="a"),
        ("nope", {}),
        {"name": "sleepy", "arguments": '{"seconds": 0}', "call_id": "c"},
        ("sleepy", {"seconds": "x"}),
    ]
    for strategy in ("sequential", "parallel"):
        results = registry.call_many(calls, strategy=strategy)
        assert [r.ok for r in results] == [True, False, True, False]
        assert [r.call_id for r in results][::2] == ["a", "c"]
        assert results[1].error.kind == "unknown_tool"
        assert results[3].error.kind == "invalid_arguments"


async def test_parallel_batch_of_async_handlers_overlaps():
    registry = ToolRegistry()
    registry.add_tool(None, None, nap)
    started = time.perf_counter()
    results = await registry.acall_many([("nap", {"seconds": 0.2})] * 20)
    elapsed = time.perf_counter() - started
    assert all(r.ok for r in results)
    assert elapsed < 0.2 * 20 / 2  # far below running them one after another (4 s)


async def test_limit_bounds_concurrency():
    running = 0
    peak = 0

    async def counted() -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1
        return "ok"

    registry = ToolRegistry()
    registry.add_tool(None, None, counted)
    results = await registry.acall_many([("counted", None)] * 12, limit=3)
    assert all(r.ok for r in results)
    assert peak == 3
    with pytest.raises(ValueError, match="strategy"):
        await registry.acall_many([], strategy="random")  # type: ignore[arg-type]


# ------------------------------------------------------------------- approval
def remove(path: str) -> str:
    """Remove a file."""
    return f"removed {path}"


def test_side_effects_are_denied_without_an_approver():
    registry = ToolRegistry()
    registry.add_tool(None, None, remove, side_effects=True, effect="Deletes the file")
    result = registry.call("remove", {"path": "a"})
    assert result.error.kind == "denied"
    assert "needs approval" in result.error.message
    assert "Deletes the file" in result.error.message
    trusted = ToolRegistry(allow_side_effects=True)
    trusted.add_tool(None, None, remove, side_effects=True)
    assert trusted.call("remove", {"path": "a"}).text == "removed a"


def test_approver_sees_exact_arguments_and_can_deny_with_a_reason():
    seen: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> Decision:
        seen.append(request)
        if request.arguments["path"].startswith("/"):
            return Decision.deny("absolute paths are off limits")
        return Decision.approve()

    registry = ToolRegistry(approve=approve)
    registry.add_tool(
        "remove",
        "Remove a file.",
        lambda path, force: f"removed {path}",
        Param("path"),
        Param("force", "boolean", default=False),
        side_effects=True,
    )
    denied = registry.call("remove", {"path": "/etc"}, call_id="c1")
    assert denied.error.kind == "denied"
    assert "absolute paths are off limits" in denied.text
    assert registry.call("remove", {"path": "notes"}).ok
    assert [dict(r.arguments) for r in seen] == [
        {"path": "/etc", "force": False},
        {"path": "notes", "force": False},
    ]
    assert seen[0].call_id == "c1"
    assert seen[0].tool.name == "remove"
    assert len(seen) == 2  # an approval covers one call: every call asks again


async def test_async_approver_and_plain_booleans():
    async def approve(request: ApprovalRequest) -> bool:
        await asyncio.sleep(0)
        return request.arguments["path"] == "ok"

    registry = ToolRegistry(approve=approve)
    registry.add_tool(None, None, remove, side_effects=True)
    assert (await registry.acall("remove", {"path": "ok"})).ok
    assert (await registry.acall("remove", {"path": "no"})).error.kind == "denied"
    assert registry.call("remove", {"path": "ok"}).ok  # the async approver from sync code


def test_a_failing_approver_denies():
    def approve(request: ApprovalRequest) -> bool:
        raise RuntimeError("approval service down")

    registry = ToolRegistry(approve=approve)
    registry.add_tool(None, None, remove, side_effects=True)
    result = registry.call("remove", {"path": "a"})
    assert result.error.kind == "denied"
    assert "approval service down" in result.error.message


def test_invalid_arguments_are_reported_before_asking_for_approval():
    asked = []
    registry = ToolRegistry(approve=lambda request: asked.append(request) or True)
    registry.add_tool(None, None, remove, side_effects=True)
    assert registry.call("remove", {"path": 3}).error.kind == "invalid_arguments"
    assert asked == []


# ---------------------------------------------------------------------- hooks
def test_before_hook_can_stop_a_call_and_after_hook_sees_every_outcome():
    audit: list[tuple[str, bool]] = []
    budget = {"sleepy": 1}

    def rate_limit(event: CallEvent) -> ToolResult | None:
        if budget.get(event.tool.name, 1) <= 0:
            return ToolResult(
                False, "Error (denied): rate limit reached", tool_name=event.tool.name
            )
        budget[event.tool.name] = budget.get(event.tool.name, 1) - 1
        return None

    registry = ToolRegistry()
    registry.add_tool(None, None, sleepy)
    registry.on_call(
        before=rate_limit, after=lambda event, result: audit.append((event.tool.name, result.ok))
    )
    assert registry.call("sleepy", {"seconds": 0}).ok
    assert "rate limit" in registry.call("sleepy", {"seconds": 0}).text
    assert registry.call("sleepy", {"seconds": "bad"}).error.kind == "invalid_arguments"
    assert audit == [("sleepy", True), ("sleepy", False), ("sleepy", False)]


def test_a_raising_before_hook_denies_and_a_raising_after_hook_is_ignored(caplog):
    def strict(event: CallEvent) -> None:
        raise PermissionError("tool disabled for this user")

    def broken_audit(event: CallEvent, result: ToolResult) -> None:
        raise RuntimeError("audit log full")

    registry = ToolRegistry()
    registry.add_tool(None, None, sleepy)
    registry.on_call(after=broken_audit)
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        assert registry.call("sleepy", {"seconds": 0}).ok
    assert "audit log full" in caplog.text
    registry.on_call(before=strict)
    result = registry.call("sleepy", {"seconds": 0})
    assert result.error.kind == "denied"
    assert "tool disabled for this user" in result.error.message


async def test_async_hooks_under_acall():
    seen = []

    async def before(event: CallEvent) -> None:
        seen.append(("before", event.arguments["seconds"]))

    async def after(event: CallEvent, result: ToolResult) -> None:
        seen.append(("after", result.ok))

    registry = ToolRegistry()
    registry.add_tool(None, None, nap)
    registry.on_call(before, after)
    assert (await registry.acall("nap", {"seconds": 0})).ok
    assert seen == [("before", 0), ("after", True)]


# -------------------------------------------------------- substitution, logs
def test_string_results_get_argument_substitution_only_when_opted_in():
    def greet(name: str, times: int = 2) -> str:
        return "Hello ${name} x${times}! ${missing} ${config:shop.name}"

    registry = ToolRegistry(config={"shop": {"name": "Acme"}})
    registry.add_tool("greet", "Greet.", greet)
    registry.add_tool("greet2", "Greet.", greet, substitute_result=True)
    plain = registry.call("greet", {"name": "Ada"}).text
    assert plain == "Hello ${name} x${times}! ${missing} ${config:shop.name}"
    filled = registry.call("greet2", {"name": "Ada"}).text
    assert filled == "Hello Ada x2! ${missing} ${config:shop.name}"


def test_one_log_line_per_failed_call_without_secret_values(caplog):
    registry = ToolRegistry()
    registry.secrets.add("hunter2-token")

    def leak() -> str:
        raise RuntimeError("auth failed with hunter2-token")

    registry.add_tool(None, None, leak)
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        result = registry.call("leak", call_id="c9")
    assert "hunter2-token" not in result.text
    assert "***" in result.text
    (record,) = [r for r in caplog.records if r.name == "tooldeck.registry"]
    assert "tool='leak' kind=execution_error call_id=c9" in record.getMessage()
    assert "hunter2" not in caplog.text


# -------------------------------------------------------------------- tracing
@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def test_each_call_produces_a_span(spans):
    provider, exporter = spans
    registry = ToolRegistry(tracer_provider=provider)
    registry.add_tool(None, None, sleepy, bundle="naps")

    def fail() -> str:
        raise ConnectionError("down")

    registry.add_tool(None, None, fail, retry=FAST_RETRY)
    registry.call("sleepy", {"seconds": 0}, call_id="s1")
    registry.call("fail")
    ok_span, failed_span = exporter.get_finished_spans()
    assert ok_span.name == "execute_tool sleepy"
    assert ok_span.attributes["gen_ai.tool.name"] == "sleepy"
    assert ok_span.attributes["gen_ai.tool.call.id"] == "s1"
    assert ok_span.attributes["tooldeck.bundle"] == "naps"
    assert ok_span.attributes["tooldeck.outcome"] == "ok"
    assert ok_span.attributes["tooldeck.attempts"] == 1
    assert ok_span.attributes["tooldeck.duration_ms"] >= 0
    assert "tooldeck.arguments" not in ok_span.attributes
    assert failed_span.attributes["tooldeck.outcome"] == "execution_error"
    assert failed_span.attributes["tooldeck.attempts"] == 3
    assert failed_span.status.status_code.name == "ERROR"


async def test_arguments_and_results_only_when_opted_in(spans):
    provider, exporter = spans
    registry = ToolRegistry(tracer_provider=provider, trace_arguments=True)
    registry.add_tool(None, None, nap)
    await registry.acall("nap", '{"seconds": 0}')
    (span,) = exporter.get_finished_spans()
    assert span.attributes["tooldeck.arguments"] == '{"seconds": 0}'
    assert span.attributes["tooldeck.result"] == "napped"
