"""Small timing helpers shared by the benchmark scripts.

The main entry point is :func:`interleaved`: it times several zero-argument
callables in alternating rounds, so machine noise (other processes, CPU
frequency changes, a neighbour's build) lands on every variant alike instead
of on whichever happened to run during the disturbance. Each variant's result
is the median over rounds of the per-call time, in microseconds.

Timed loops run with the garbage collector disabled (it is collected once
before each round instead), and the cost of the timing loop itself (calling
an empty callable ``number`` times) is measured in the same rounds and
subtracted, so ratios between variants are not flattened by loop overhead.
"""

from __future__ import annotations

import gc
import itertools
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["Timing", "interleaved", "interleaved_samples", "time_loop", "warm_up"]

_EMPTY = "<empty loop>"


def _empty() -> None:
    return None


def time_loop(fn: Callable[[], object], number: int, *, keep_gc: bool = False) -> int:
    """Nanoseconds for ``number`` calls of ``fn``, garbage collector disabled.

    With ``keep_gc`` the collector stays as it is (enabled, normally), so the
    time includes the collections the calls' allocations trigger, as in a
    real process.
    """
    repeat = itertools.repeat(None, number)
    gc_was_enabled = gc.isenabled()
    if not keep_gc:
        gc.disable()
    try:
        start = time.perf_counter_ns()
        for _ in repeat:
            fn()
        return time.perf_counter_ns() - start
    finally:
        if gc_was_enabled:
            gc.enable()


def warm_up(variants: Mapping[str, Callable[[], object]], number: int) -> None:
    """Run every variant ``number`` times untimed (caches, lazy imports, branch predictors)."""
    for fn in variants.values():
        for _ in range(number):
            fn()


@dataclass(frozen=True)
class Timing:
    """Per-call times of one variant over the rounds, in microseconds."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)


def interleaved_samples(
    variants: Mapping[str, Callable[[], object]],
    rounds: int,
    number: int,
    *,
    warmup: int | None = None,
    subtract_loop: bool = True,
    keep_gc: bool = False,
) -> dict[str, Timing]:
    """Time ``variants`` in ``rounds`` alternating rounds of ``number`` calls each.

    The order of variants rotates from round to round so none always runs
    first (right after the collection) or last. ``warmup`` calls per variant
    run first (default: ``number // 10``, at least 10). With ``subtract_loop``
    the median per-call cost of the bare timing loop is subtracted from every
    sample. ``keep_gc`` leaves the garbage collector enabled during the timed
    loops (see :func:`time_loop`); it is still collected before each round.
    """
    if rounds < 1 or number < 1:
        raise ValueError("rounds and number must be at least 1")
    if _EMPTY in variants:
        raise ValueError(f"{_EMPTY!r} is reserved")
    warm_up(variants, max(10, number // 10) if warmup is None else warmup)
    names = list(variants)
    fns: dict[str, Callable[[], object]] = dict(variants)
    if subtract_loop:
        names.append(_EMPTY)
        fns[_EMPTY] = _empty
    raw: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        order = names[shift:] + names[:shift]
        gc.collect()
        for name in order:
            raw[name].append(time_loop(fns[name], number, keep_gc=keep_gc) / number / 1000.0)
    overhead = statistics.median(raw.pop(_EMPTY)) if subtract_loop else 0.0
    return {
        name: Timing(tuple(max(0.0, s - overhead) for s in samples))
        for name, samples in raw.items()
    }


def interleaved(
    variants: dict[str, Callable[[], object]], rounds: int, number: int
) -> dict[str, float]:
    """Median per-call time of each variant in microseconds, measured interleaved."""
    return {
        name: timing.median
        for name, timing in interleaved_samples(variants, rounds, number).items()
    }
