"""Dispatch overhead: what ``ToolRegistry.call`` costs over calling the function by hand.

Run from the repository root::

    .venv/bin/python benchmarks/dispatch.py            # full run (~15 rounds)
    .venv/bin/python benchmarks/dispatch.py --quick    # smoke run, < 3 s
    .venv/bin/python benchmarks/dispatch.py --check    # exit 1 if the target is missed

Variants, timed interleaved in the same rounds:

(a) bare       json.loads(payload) + add_order(**args) + json.dumps(result)
(b) registry   registry.call("add_order", payload)
(c) jsonschema Draft202012Validator(schema).validate(args) + call + dumps (reference)
(d) agents     openai-agents' FunctionTool.on_invoke_tool (only if ``agents`` imports)
(e) invalid    registry.call("add_order", '{"order_id": 5}') (information only)

Target: registry.call / bare <= 2.0. Benchmarks report, they do not gate:
the exit status is 0 unless ``--check`` is given and the target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Coroutine
from datetime import date
from importlib import metadata
from pathlib import Path
from typing import Any

# The script's folder goes last: first on the path, benchmarks/mcp.py would shadow the `mcp`
# package that openai-agents imports.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.append(str(_HERE))

from _timing import Timing, interleaved_samples  # noqa: E402

import tooldeck  # noqa: E402
from tooldeck import RetrySpec, ToolRegistry  # noqa: E402

TARGET = 2.0
PAYLOAD = '{"order_id":"O-1","quantity":3}'
INVALID_PAYLOAD = '{"order_id": 5}'
EXPECTED = {"order_id": "O-1", "quantity": 3, "express": False}


def add_order(order_id: str, quantity: int = 1, express: bool = False) -> dict[str, Any]:
    """Add an order."""
    return {"order_id": order_id, "quantity": quantity, "express": express}


def _as_value(text: str) -> Any:
    """A tool output as a value: JSON, or the Python repr openai-agents sends for a dict."""
    import ast

    try:
        return json.loads(text)
    except ValueError:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


# ------------------------------------------------------------------ variants
def bare_variant() -> Callable[[], object]:
    loads, dumps = json.loads, json.dumps

    def bare() -> str:
        return dumps(add_order(**loads(PAYLOAD)))

    return bare


def registry_variant(registry: ToolRegistry, payload: str) -> Callable[[], object]:
    call = registry.call

    def via_registry() -> object:
        return call("add_order", payload)

    return via_registry


def jsonschema_variant(registry: ToolRegistry) -> Callable[[], object]:
    from jsonschema import Draft202012Validator

    validate = Draft202012Validator(registry.input_schema("add_order")).validate
    loads, dumps = json.loads, json.dumps

    def via_jsonschema() -> str:
        args = loads(PAYLOAD)
        validate(args)
        return dumps(add_order(**args))

    return via_jsonschema


def _drive(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends without an event loop's per-call overhead."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("coroutine suspended")


def agents_variant() -> tuple[Callable[[], object] | None, str]:
    """openai-agents' FunctionTool.on_invoke_tool, or None and why it was skipped."""
    try:
        import agents
    except ImportError:
        return None, "openai-agents is not installed (the `agents` package does not import)"
    try:
        from agents.tool_context import ToolContext

        tool = agents.function_tool(add_order)
        ctx: Any = None
        attempts: tuple[Callable[[], Any], ...] = (
            lambda: ToolContext(
                context=None,
                tool_name="add_order",
                tool_call_id="call_1",
                tool_arguments=PAYLOAD,
            ),
            lambda: ToolContext(context=None, tool_call_id="call_1"),
        )
        for attempt in attempts:
            try:
                ctx = attempt()
                break
            except TypeError:
                continue
        if ctx is None:
            return None, "openai-agents is installed but its ToolContext could not be built"
        invoke = tool.on_invoke_tool
        dumps = json.dumps

        def finish(value: Any) -> str:
            return value if isinstance(value, str) else dumps(value)

        try:
            probe = _drive(invoke(ctx, PAYLOAD))
            how = "driven without an event loop"

            def via_agents() -> str:
                return finish(_drive(invoke(ctx, PAYLOAD)))

        except RuntimeError:
            import asyncio

            loop = asyncio.new_event_loop()
            probe = loop.run_until_complete(invoke(ctx, PAYLOAD))
            how = "includes event-loop run_until_complete overhead"

            def via_agents() -> str:
                return finish(loop.run_until_complete(invoke(ctx, PAYLOAD)))

        if probe != EXPECTED and _as_value(finish(probe)) != EXPECTED:
            return None, f"openai-agents returned an unexpected result: {probe!r}"
        return via_agents, f"openai-agents {_version('openai-agents')}, {how}"
    except Exception as exc:  # version drift: report, do not fail the benchmark
        return None, f"openai-agents is installed but could not be benchmarked: {exc!r}"


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"dispatch benchmark: sanity check failed: {what}")


def _sanity_check(registry: ToolRegistry, plain: dict[str, Callable[[], object]]) -> None:
    """Every variant must do the work it claims, or the timing means nothing."""
    ok = registry.call("add_order", PAYLOAD)
    _require(ok.ok and json.loads(ok.text) == EXPECTED, f"registry.call -> {ok.text!r}")
    bad = registry.call("add_order", INVALID_PAYLOAD)
    kind = bad.error.kind if bad.error is not None else None
    _require(not bad.ok and kind == "invalid_arguments", f"invalid call -> {bad.text!r}")
    for name, fn in plain.items():
        value = fn()
        _require(json.loads(str(value)) == EXPECTED, f"{name} -> {value!r}")


# -------------------------------------------------------------------- report
def _line(label: str, timing: Timing, base: float) -> str:
    ratio = timing.median / base if base > 0 else float("nan")
    return (
        f"  {label:<42} {timing.median:8.2f} µs/call  {ratio:6.2f}x bare"
        f"   (rounds {timing.low:.2f}-{timing.high:.2f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few rounds: a smoke run (< 3 s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the target is missed")
    parser.add_argument("--rounds", type=int, help="rounds (default 15, --quick 5)")
    parser.add_argument("--number", type=int, help="calls per variant per round")
    opts = parser.parse_args(argv)
    rounds = opts.rounds or (5 if opts.quick else 15)
    number = opts.number or (200 if opts.quick else 2000)

    registry = ToolRegistry()
    registry.add_tool("add_order", "Add an order.", add_order)

    names = {
        "a": "(a) bare json.loads + call + json.dumps",
        "b": "(b) registry.call",
        "c": "(c) jsonschema validate + call + dumps",
        "d": "(d) openai-agents on_invoke_tool",
        "e": "(e) registry.call, invalid arguments",
        "f": "(f) registry.call, tool with timeout+retry",
    }
    variants: dict[str, Callable[[], object]] = {
        names["a"]: bare_variant(),
        names["b"]: registry_variant(registry, PAYLOAD),
        names["c"]: jsonschema_variant(registry),
    }
    agents_fn, agents_note = agents_variant()
    if agents_fn is not None:
        variants[names["d"]] = agents_fn
    _sanity_check(registry, {n: f for n, f in variants.items() if n != names["b"]})
    variants[names["e"]] = registry_variant(registry, INVALID_PAYLOAD)
    guarded = ToolRegistry()
    guarded.add_tool(
        "add_order", "Add an order.", add_order, timeout=5.0, retry=RetrySpec(attempts=2)
    )
    variants[names["f"]] = registry_variant(guarded, PAYLOAD)

    print(
        f"dispatch benchmark  {date.today().isoformat()}  "
        f"Python {platform.python_version()} ({platform.python_implementation()})  "
        f"tooldeck {tooldeck.__version__}  jsonschema {_version('jsonschema')}"
    )
    print(
        f"payload {PAYLOAD}  rounds={rounds} x {number} calls per variant, interleaved; "
        "median per-call time, timing-loop overhead subtracted"
    )
    results = interleaved_samples(variants, rounds, number)
    base = results[names["a"]].median

    print("\nvalid call:")
    for key in "abcd":
        if names[key] in results:
            print(_line(names[key], results[names[key]], base))
    print(f"  note: (d) {agents_note}")

    print("\ninformation only, no target:")
    print(_line(names["e"], results[names["e"]], base))
    print(_line(names["f"], results[names["f"]], base))

    ratio = results[names["b"]].median / base
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    print(
        f"\ntarget registry.call / bare <= {TARGET:.1f} (policies present, unused): "
        f"{verdict} (measured {ratio:.2f}x)"
    )
    batch_ratio = batch_benchmark(rounds=3 if opts.quick else 7)
    batch_verdict = "PASS" if batch_ratio < BATCH_TARGET else "FAIL"
    print(
        f"target call_many(parallel) of {BATCH_SIZE} async handlers sleeping {SLEEP * 1000:.0f} ms "
        f"< {BATCH_TARGET:.0f}x one sleep: {batch_verdict} (measured {batch_ratio:.2f}x)"
    )
    failed = "FAIL" in (verdict, batch_verdict)
    return 1 if opts.check and failed else 0


BATCH_SIZE = 100
SLEEP = 0.010
BATCH_TARGET = 3.0


async def _sleeper(i: int) -> int:
    await asyncio.sleep(SLEEP)
    return i


def batch_benchmark(rounds: int) -> float:
    """Median wall time of call_many(parallel) over BATCH_SIZE sleepers, in units of SLEEP."""
    registry = ToolRegistry()
    registry.add_tool("sleeper", "Sleep 10 ms.", _sleeper)
    calls = [("sleeper", {"i": i}) for i in range(BATCH_SIZE)]
    registry.call_many(calls, strategy="parallel")  # warm-up
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        results = registry.call_many(calls, strategy="parallel")
        times.append(time.perf_counter() - started)
        _require(all(r.ok for r in results), "every batched call succeeds")
    return statistics.median(times) / SLEEP


if __name__ == "__main__":
    sys.exit(main())
