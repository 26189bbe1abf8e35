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

Run: ``.venv/bin/python benchmarks/startup.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
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


def _parse_script(folder: Path) -> str:
    return (
        "import sys, yaml\n"
        "from pathlib import Path\n"
        "loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)\n"
        f"for p in sorted(Path({str(folder)!r}).glob('*.yaml')):\n"
        "    yaml.load(p.read_text('utf-8'), Loader=loader)\n"
    )


def _run(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=False)
    return time.perf_counter() - started


def measure(variants: dict[str, list[str]], rounds: int) -> dict[str, float]:
    """Median seconds per variant over alternating rounds, the bare interpreter subtracted."""
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for argv in variants.values():  # warm the disk cache and .pyc files
        _run(argv)
    for _ in range(rounds):
        for name, argv in variants.items():
            samples[name].append(_run(argv))
    bare = statistics.median(samples["python -c pass"])
    return {
        name: max(statistics.median(times) - bare, 1e-6) if name != "python -c pass" else bare
        for name, times in samples.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_catalogue(folder)
        variants = {
            "python -c pass": [PYTHON, "-c", "pass"],
            "import yaml": [PYTHON, "-c", "import yaml"],
            "import yaml, jsonschema": [PYTHON, "-c", "import yaml, jsonschema"],
            "import tooldeck": [PYTHON, "-c", "import tooldeck"],
            "tooldeck --help": [TOOLDECK, "--help"],
            "bare parse of 50 files": [PYTHON, "-c", _parse_script(folder)],
            "tooldeck lint of 50 files": [TOOLDECK, "lint", str(folder)],
        }
        times = measure(variants, rounds)
    print(f"start-up, {rounds} alternating rounds; each figure is what the command adds to a")
    print(f"bare interpreter start ({times['python -c pass'] * 1000:.1f} ms):")
    for name, seconds in times.items():
        if name != "python -c pass":
            print(f"  {name:<28} {seconds * 1000:8.1f} ms")
    targets = [
        ("import tooldeck", "import yaml, jsonschema", 1.3),
        ("tooldeck --help", "import yaml", 1.2),
        ("tooldeck lint of 50 files", "bare parse of 50 files", 2.5),
    ]
    failed = False
    for subject, base, limit in targets:
        ratio = times[subject] / times[base]
        verdict = "PASS" if ratio <= limit else "MISS"
        failed |= ratio > limit
        print(f"target {subject} / {base} <= {limit}: {verdict} (measured {ratio:.2f}x)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
