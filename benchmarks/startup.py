"""Start-up cost of whole processes, as ratios against a baseline measured in the same run.

A CLI that runs in pre-commit on every commit pays its import each time, so
these targets are about fresh interpreters, not warm calls. Each variant is a
subprocess; variants alternate round by round (so machine noise lands on all
of them alike), and every figure is the median of the rounds *minus* a bare
``python -c pass`` measured in the same rounds, so the ratios compare what
each command adds to an interpreter start.

Targets (issue 9):

- ``import tooldeck``        <= 1.3x ``import yaml, jsonschema``
- ``tooldeck --help``        <= 1.2x ``python -c "import yaml"``
- ``tooldeck lint`` of 1,000 tools in 50 files <= 2.5x a bare CSafeLoader parse process

The targets time the real console script (``.venv/bin/tooldeck``). The other
variants are the pieces, for information: ``python -m tooldeck --help``, the
same help from ``main(['--help'])`` without the console-script wrapper, and
the imports alone of what ``tooldeck lint`` uses (so lint's work is the
difference).

Bytecode: child processes run with ``PYTHONDONTWRITEBYTECODE`` removed from
their environment, so the warm-up run writes ``__pycache__`` (gitignored) and
the rounds load ``.pyc`` files, as any installed copy does (pip compiles them
at install time). With that variable set, every tooldeck module would be
compiled from source in every process (~80 ms of ``tooldeck lint``) while
the baselines' standard-library modules still load from ``.pyc``.
``--keep-env`` measures with the environment exactly as inherited instead.

Run: ``.venv/bin/python benchmarks/startup.py [--rounds N] [--keep-env]``.
Benchmarks report, they do not gate: the exit status is 0 unless ``--check`` is given
and a target is missed (as in the other scripts here).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import write_catalogue  # the load benchmark's 1,000-tool catalogue

PYTHON = sys.executable
TOOLDECK = str(Path(PYTHON).parent / "tooldeck")
BARE = "python -c pass"
LINT_IMPORTS = (
    "import atexit, gc\n"
    "gc.disable()\n"
    "atexit.register(gc.freeze)\n"
    "import tooldeck.cli._main, tooldeck.cli._lint_cmd, tooldeck.cli._reporters, "
    "tooldeck._config.configuration, "
    "tooldeck._registry, tooldeck.manifest._manifests, "
    "tooldeck.manifest._loader, tooldeck._lint.runner, tooldeck._importpath"
)
"""What ``tooldeck lint`` imports before it reads a file, collector set as the CLI sets it."""


def _parse_script(folder: Path) -> str:
    return (
        "import sys, yaml\n"
        "from pathlib import Path\n"
        "loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)\n"
        f"for p in sorted(Path({str(folder)!r}).glob('*.yaml')):\n"
        "    yaml.load(p.read_text('utf-8'), Loader=loader)\n"
    )


def _run(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=False, env=env)
    return time.perf_counter() - started


def measure(
    variants: dict[str, list[str]], rounds: int, env: dict[str, str]
) -> dict[str, list[float]]:
    """Seconds per round for each variant, in alternating rounds (the order rotates)."""
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for argv in variants.values():  # warm the disk cache and write the .pyc files
        _run(argv, env)
    names = list(variants)
    for index in range(rounds):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(_run(variants[name], env))
    return samples


def added(samples: dict[str, list[float]]) -> dict[str, float]:
    """Median seconds each variant adds to a bare interpreter (median minus median)."""
    bare = statistics.median(samples[BARE])
    return {
        name: max(statistics.median(times) - bare, 1e-6)
        for name, times in samples.items()
        if name != BARE
    }


def round_ratios(samples: dict[str, list[float]], subject: str, base: str) -> list[float]:
    """The ratio in each round, each side minus that round's bare start (for the spread)."""
    out = []
    for bare, top, bottom in zip(samples[BARE], samples[subject], samples[base], strict=True):
        if bottom - bare > 0:
            out.append((top - bare) / (bottom - bare))
    return sorted(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument(
        "--keep-env",
        action="store_true",
        help="run children with the inherited environment (PYTHONDONTWRITEBYTECODE kept)",
    )
    options = parser.parse_args()
    rounds = options.rounds
    env = dict(os.environ)
    if not options.keep_env:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_catalogue(folder)
        variants = {
            BARE: [PYTHON, "-c", "pass"],
            "import yaml": [PYTHON, "-c", "import yaml"],
            "import yaml, jsonschema": [PYTHON, "-c", "import yaml, jsonschema"],
            "import tooldeck": [PYTHON, "-c", "import tooldeck"],
            "tooldeck --help": [TOOLDECK, "--help"],
            "python -m tooldeck --help": [PYTHON, "-m", "tooldeck", "--help"],
            "main(['--help']) in -c": [
                PYTHON,
                "-c",
                "from tooldeck.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
                "    pass",
            ],
            "bare parse of 50 files": [PYTHON, "-c", _parse_script(folder)],
            "tooldeck lint of 50 files": [TOOLDECK, "lint", str(folder)],
            "lint's imports only": [PYTHON, "-c", LINT_IMPORTS],
        }
        samples = measure(variants, rounds, env)
    times = added(samples)
    bare = statistics.median(samples[BARE])
    pyc = "as inherited" if options.keep_env else "PYTHONDONTWRITEBYTECODE unset: .pyc used"
    print(f"start-up, {rounds} alternating rounds ({pyc}); each figure is what the command")
    print(f"adds to a bare interpreter start ({bare * 1000:.1f} ms), median [p25-p75]:")
    for name, seconds in times.items():
        ordered = sorted(t - bare for t in samples[name])
        low, high = ordered[len(ordered) // 4], ordered[(3 * len(ordered)) // 4]
        print(f"  {name:<28} {seconds * 1000:8.1f} ms  [{low * 1000:.1f}-{high * 1000:.1f}]")
    script = times["tooldeck --help"] - times["main(['--help']) in -c"]
    work = times["tooldeck lint of 50 files"] - times["lint's imports only"]
    print(f"  console-script wrapper (tooldeck --help - main(['--help'])): {script * 1000:+.1f} ms")
    print(f"  lint's work after its imports (lint - lint's imports):      {work * 1000:.1f} ms")
    targets = [
        ("import tooldeck", "import yaml, jsonschema", 1.3),
        ("tooldeck --help", "import yaml", 1.2),
        ("tooldeck lint of 50 files", "bare parse of 50 files", 2.5),
    ]
    failed = False
    for subject, base, limit in targets:
        ratio = times[subject] / times[base]
        spread = round_ratios(samples, subject, base)
        if spread:
            low, high = spread[len(spread) // 4], spread[(3 * len(spread)) // 4]
            rounds = f"per-round ratios p25-p75 {low:.2f}-{high:.2f}"
        else:  # a noisy machine: no round where the base outlasted a bare start
            rounds = "no per-round ratio: the base never outlasted a bare start"
        verdict = "PASS" if ratio <= limit else "MISS"
        failed |= ratio > limit
        print(f"target {subject} / {base} <= {limit}: {verdict} (measured {ratio:.2f}x; {rounds})")
    return 1 if failed and options.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
