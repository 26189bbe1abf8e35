"""A parallel batch from sync code runs on the worker threads, with no event loop in between.

Every check is of what happened (order, who ran where, how many at once), never of how
long it took: concurrency is shown with a barrier that only opens when ``limit`` calls
wait at it together.
"""

import asyncio
import threading

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import tooldeck._calling.dispatch as dispatch_module
from tooldeck import AuthIdentity, Decision, RetrySpec, ToolCall, ToolContext, ToolRegistry
from tooldeck._calling import batch as batch_module
from tooldeck._calling.workers import PoolSaturated

SAFETY = 30.0
"""Seconds a barrier or event waits at most: only reached when the code under test is broken."""


def echo(text: str) -> str:
    """Say it back."""
    return text


def boom(text: str) -> str:
    """Always fails."""
    raise RuntimeError(f"boom {text}")


@pytest.fixture
def no_loop(monkeypatch):
    """Fail the test if the batch goes through an event loop."""

    def refuse(*args, **kwargs):
        raise AssertionError("the batch went through an event loop")

    monkeypatch.setattr(dispatch_module, "run_on", refuse)


def _same(a, b):
    return [(r.ok, r.text, r.call_id, r.error and r.error.kind) for r in a] == [
        (r.ok, r.text, r.call_id, r.error and r.error.kind) for r in b
    ]


def test_results_in_order_and_identical_to_acall_many(no_loop):
    registry = ToolRegistry()
    registry.add_tool(None, None, echo)
    registry.add_tool(None, None, boom)
    calls = [
        ToolCall("echo", {"text": "a"}, call_id="1"),
        ToolCall("boom", {"text": "b"}, call_id="2"),
        ToolCall("nope", {}, call_id="3"),
        ToolCall("echo", {"text": 5}, call_id="4"),
        ToolCall("echo", '{"text": "e"}', call_id="5"),
    ]
    results = registry.call_many(calls, strategy="parallel")
    assert [r.call_id for r in results] == ["1", "2", "3", "4", "5"]
    assert [r.ok for r in results] == [True, False, False, False, True]
    assert results[1].error.kind == "execution_error"
    assert "boom b" in results[1].text
    assert results[2].error.kind == "unknown_tool"
    assert results[3].error.kind == "invalid_arguments"
    assert _same(results, asyncio.run(registry.acall_many(calls)))


def test_calls_without_an_id_get_one(no_loop):
    registry = ToolRegistry()
    registry.add_tool(None, None, echo)
    results = registry.call_many([("echo", {"text": "x"})] * 2, strategy="parallel")
    ids = [r.call_id for r in results]
    assert all(ids)
    assert ids[0] != ids[1]


def test_at_most_limit_run_at_once_and_they_do_overlap(no_loop):
    limit = 3
    barrier = threading.Barrier(limit, timeout=SAFETY)
    lock = threading.Lock()
    running, peak, threads = 0, 0, set()

    def meet(n: int) -> int:
        """Wait until ``limit`` calls run together."""
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
            threads.add(threading.current_thread().name)
        try:
            barrier.wait()  # opens only when `limit` calls are here at once
        finally:
            with lock:
                running -= 1
        return n

    registry = ToolRegistry()
    registry.add_tool(None, None, meet)
    results = registry.call_many(
        [("meet", {"n": i}) for i in range(9)], limit=limit, strategy="parallel"
    )
    assert [r.text for r in results] == [str(i) for i in range(9)]
    assert peak == limit
    assert threads
    assert all(name == "tooldeck-tool" for name in threads)


def test_an_async_handler_in_the_batch_still_runs():
    async def later(text: str) -> str:
        """Say it back after a turn of the loop."""
        await asyncio.sleep(0)
        return text.upper()

    registry = ToolRegistry()
    registry.add_tool(None, None, echo)
    registry.add_tool(None, None, later)
    results = registry.call_many(
        [("echo", {"text": "a"}), ("later", {"text": "b"})], strategy="parallel"
    )
    assert [r.text for r in results] == ["a", "B"]
    assert batch_module.needs_loop(registry, [ToolCall("later", {})])
    assert not batch_module.needs_loop(registry, [ToolCall("echo", {})])


def test_an_async_hook_takes_the_loop_route():
    seen = []

    async def before(event):
        seen.append(event.tool.name)

    registry = ToolRegistry()
    registry.add_tool(None, None, echo)
    registry.on_call(before=before)
    assert batch_module.needs_loop(registry, [ToolCall("echo", {})])
    results = registry.call_many([("echo", {"text": "a"})] * 2, strategy="parallel")
    assert [r.text for r in results] == ["a", "a"]
    assert seen == ["echo", "echo"]


def test_a_timeout_answers_timeout_and_stops_the_handler(no_loop):
    release = threading.Event()
    stopped = threading.Event()

    def stuck() -> str:
        """Wait for a release that never comes (Python code, so it can be interrupted)."""
        try:
            while not release.wait(0.01):
                pass
        except BaseException:
            stopped.set()
            raise
        return "released"

    registry = ToolRegistry()
    registry.add_tool(None, None, stuck, timeout=0.05)
    registry.add_tool(None, None, echo)
    try:
        results = registry.call_many(
            [("stuck", None), ("echo", {"text": "ok"})], strategy="parallel"
        )
        assert results[0].error.kind == "timeout"
        assert results[1].text == "ok"
        assert stopped.wait(SAFETY)  # interrupted, not left running
    finally:
        release.set()


def test_a_retry_sleeps_and_tries_again(no_loop):
    attempts = []

    def flaky() -> str:
        """Fails once."""
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("first")
        return "second"

    registry = ToolRegistry()
    registry.add_tool(
        None, None, flaky, retry=RetrySpec(attempts=3, backoff=0.001, max_backoff=0.002)
    )
    registry.add_tool(None, None, echo)
    results = registry.call_many([("flaky", None), ("echo", {"text": "x"})], strategy="parallel")
    assert results[0].text == "second"
    assert results[0].attempts == 2
    assert results[1].text == "x"


def test_approval_and_hooks_run_on_the_calling_thread(no_loop):
    asked, before, after = [], [], []
    caller = threading.current_thread()

    def approve(request):
        asked.append((request.tool.name, dict(request.arguments), threading.current_thread()))
        return Decision.deny("not today") if request.arguments["text"] == "no" else True

    def remove(text: str) -> str:
        """Remove something."""
        return f"removed {text}"

    registry = ToolRegistry(approve=approve)
    registry.add_tool(None, None, remove, side_effects=True)
    registry.add_tool(None, None, echo)
    registry.on_call(
        before=lambda event: before.append(event.call_id),
        after=lambda event, result: after.append((event.call_id, result.ok)),
    )
    calls = [
        ToolCall("remove", {"text": "yes"}, call_id="a"),
        ToolCall("remove", {"text": "no"}, call_id="b"),
        ToolCall("echo", {"text": "c"}, call_id="c"),
    ]
    results = registry.call_many(calls, strategy="parallel")
    assert results[0].text == "removed yes"
    assert results[1].error.kind == "denied"
    assert "not today" in results[1].text
    assert results[2].text == "c"
    assert [(name, args) for name, args, _ in asked] == [
        ("remove", {"text": "yes"}),
        ("remove", {"text": "no"}),
    ]
    assert all(thread is caller for _, _, thread in asked)
    assert before == ["a", "b", "c"]
    assert sorted(after) == [("a", True), ("b", False), ("c", True)]


def test_a_saturated_pool_is_a_result_not_an_exception(no_loop):
    release = threading.Event()

    def hold() -> str:
        """Hold the only worker until released."""
        release.wait(SAFETY)
        return "held"

    def after(event, result):
        if not result.ok:
            release.set()  # the refused call is answered: let the first one finish

    registry = ToolRegistry(max_workers=1)
    registry.add_tool(None, None, hold)
    registry.on_call(after=after)
    results = registry.call_many([("hold", None), ("hold", None)], strategy="parallel")
    assert results[0].text == "held"
    assert not results[1].ok
    assert "busy" in results[1].text


def test_a_saturated_pool_answers_a_plain_call_too(no_loop):
    release = threading.Event()

    def hold() -> str:
        """Hold the only worker until released."""
        release.wait(SAFETY)
        return "held"

    registry = ToolRegistry(max_workers=1)
    registry.add_tool(None, None, hold)
    pool = registry._policy.pool
    submit = pool.submit

    def refused_then_release(fn):
        try:
            return submit(fn)
        except PoolSaturated:
            release.set()  # the second call was refused: let the first one finish
            raise

    pool.submit = refused_then_release
    results = registry.call_many([("hold", None), ("hold", None)], strategy="parallel")
    assert results[0].text == "held"
    assert results[1].error.kind == "execution_error"
    assert "busy" in results[1].text


def test_context_auth_and_secrets_reach_each_call(no_loop):
    seen = []

    def whoami(ctx: ToolContext) -> str:
        """Who is asking."""
        seen.append((ctx.extra.get("user"), ctx.auth.subject if ctx.auth else None))
        return "token-abcdef-123456 in the reply"

    registry = ToolRegistry()
    registry.secrets.add("token-abcdef-123456")
    registry.add_tool(None, None, whoami)
    identity = AuthIdentity(subject="ada")
    results = registry.call_many(
        [("whoami", None)] * 2, strategy="parallel", context={"user": "u1"}, auth=identity
    )
    assert seen == [("u1", "ada"), ("u1", "ada")]
    assert all("token-abcdef-123456" not in r.text for r in results)


def test_an_inline_handler_runs_on_the_calling_thread(no_loop):
    where = []

    def here() -> str:
        """Where it ran."""
        where.append(threading.current_thread())
        return "here"

    registry = ToolRegistry()
    registry.add_tool(None, None, here, inline=True)
    results = registry.call_many([("here", None)] * 2, strategy="parallel")
    assert [r.text for r in results] == ["here", "here"]
    assert where == [threading.current_thread()] * 2


def test_each_call_has_its_own_span(no_loop):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    registry = ToolRegistry(tracer_provider=provider)
    registry.add_tool(None, None, echo)
    registry.add_tool(None, None, boom)
    registry.call_many(
        [("echo", {"text": "a"}), ("boom", {"text": "b"}), ("echo", {"text": "c"})],
        strategy="parallel",
    )
    spans = exporter.get_finished_spans()
    assert sorted(s.name for s in spans) == [
        "execute_tool boom",
        "execute_tool echo",
        "execute_tool echo",
    ]
    assert all(s.parent is None for s in spans)  # none became another call's child
    outcomes = sorted(s.attributes["tooldeck.outcome"] for s in spans)
    assert outcomes == ["execution_error", "ok", "ok"]
