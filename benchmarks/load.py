"""Manifest loading: what loading and linting 1,000 tools cost over parsing their YAML.

Run from the repository root::

    .venv/bin/python benchmarks/load.py            # full run (~15 rounds)
    .venv/bin/python benchmarks/load.py --quick    # smoke run, < 5 s
    .venv/bin/python benchmarks/load.py --check    # exit 1 if a target is missed
    .venv/bin/python benchmarks/load.py --profile  # also profile (b) and (c)

The script writes a realistic catalogue into a temporary folder: 50 manifest
files of 20 tools each (1,000 tools), every tool pointing at one of the real
``tooldeck.handlers.files`` functions with 1-5 parameters that match its signature,
some with ``result: {select: ...}``, ``timeout`` and ``tags``. It checks that
the catalogue loads with zero errors, then times, interleaved in the same
rounds, each round processing all 50 files ((a)-(c) read them from disk):

(a) bare parse   read + ``yaml.load(text, Loader=yaml.CSafeLoader)`` per file
(b) full load    ``load_manifests([folder], registry=ToolRegistry())``
(c) lint         what ``tooldeck lint FOLDER`` does in-process: load_config,
                 ToolRegistry, load_manifests, ``lint(result, registry,
                 LintSettings())`` and the text report
(d) jsonschema   ``Draft202012Validator(meta_schema).is_valid(doc)`` over the
                 50 already-parsed documents (reference: naive meta-schema
                 validation alone, no parsing)

Targets: full load <= 2.0x bare parse; lint <= 2.5x bare parse. In a full
run, a missed target is broken down by stage (wall clock) and profiled
(cProfile), and its hotspots printed. The real
``tooldeck lint FOLDER`` subprocess is timed once, for information.
Benchmarks report, they do not gate: the exit status is 0 unless ``--check``
is given and a target is missed.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaml
from _timing import Timing, interleaved_samples

import tooldeck
from tooldeck._config.configuration import load_config
from tooldeck._diagnostics import Diagnostic
from tooldeck._lint.runner import LintSettings, lint
from tooldeck._registry import ToolRegistry
from tooldeck.cli._reporters import get_reporter
from tooldeck.manifest._manifests import LoadResult, load_manifests

ROOT = Path(__file__).resolve().parent.parent
META_SCHEMA = ROOT / "schemas" / "manifest.schema.json"
FILES, TOOLS_PER_FILE = 50, 20
TARGETS = {"b": 2.0, "c": 2.5}
NAMES = {
    "a": "(a) bare parse: read + yaml.load CSafeLoader",
    "b": "(b) full load: load_manifests",
    "c": "(c) lint: load + lint + text report",
    "d": "(d) jsonschema is_valid (parsed docs)",
}

# 50 areas of a project; each becomes one bundle (file) of 20 tools.
TOPICS = (
    "api", "auth", "billing", "build", "cache", "catalog", "checkout", "ci", "cli", "config",
    "crm", "dashboards", "data", "deploy", "docs", "email", "events", "exports", "flags",
    "frontend", "gateway", "imports", "infra", "inventory", "invoices", "jobs", "legal",
    "logging", "metrics", "migrations", "mobile", "notifications", "onboarding", "orders",
    "payments", "pricing", "queue", "reports", "search", "security", "shipping", "storage",
    "support", "tax", "tests", "translations", "users", "vendors", "webhooks", "wiki",
)  # fmt: skip
GLOBS = ("*", "*.py", "*.md", "*.yaml", "*.json", "*.sql", "*.ts", "*.log")


# ---------------------------------------------------------------- catalogue
_PLAIN_FLOW = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*|[0-9.]+(ms|s|m|h)")
_PLAIN_BLOCK = re.compile(r"[A-Za-z][^#{}\[\]\"'\n]*[A-Za-z0-9.)]")
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n"})


def _q(value: Any, *, flow: bool = True) -> str:
    """``value`` as a person would write it in YAML: plain when that is safe, else quoted.

    JSON strings, numbers and booleans are valid YAML, so anything that needs
    quoting is written as JSON; lists become flow sequences.
    """
    if isinstance(value, list):
        return "[" + ", ".join(_q(item) for item in value) + "]"
    if isinstance(value, str) and value.lower() not in _YAML_WORDS:
        if _PLAIN_FLOW.fullmatch(value):
            return value
        if not flow and _PLAIN_BLOCK.fullmatch(value) and ": " not in value:
            return value
    return json.dumps(value, ensure_ascii=False)


def _flow(entry: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {_q(v)}" for k, v in entry.items()) + "}"


def _path_param(rng: random.Random, topic: str, *, required: bool, what: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": "path", "type": "string"}
    if required:
        entry["description"] = f"{what} relative to the project directory, e.g. {topic}/README.md"
        entry["min_length"] = 1
        if rng.random() < 0.5:
            entry["max_length"] = 512
    else:
        entry["default"] = rng.choice([topic, f"{topic}/src", f"docs/{topic}", "."])
        entry["description"] = f"{what} relative to the project directory"
    if rng.random() < 0.3:
        entry["pattern"] = "^[^~/]"
    return entry


def _read_file_tool(rng: random.Random, topic: str, k: int) -> dict[str, Any]:
    noun = rng.choice(["doc", "log", "source", "notes", "changelog", "spec", "runbook"])
    params = [_path_param(rng, topic, required=True, what=f"The {topic} {noun} file")]
    if rng.random() < 0.7:
        params.append(
            {"name": "start_line", "type": "integer", "default": 1, "minimum": 1,
             "description": "First line to return, counting from 1"}
        )  # fmt: skip
    if rng.random() < 0.6:
        params.append(
            {"name": "max_lines", "type": "integer", "default": rng.choice([100, 200, 400]),
             "minimum": 1, "maximum": rng.choice([1000, 2000, 5000]),
             "description": "How many lines to return at most"}
        )  # fmt: skip
    return {
        "name": f"{topic}_read_{noun}_{k}",
        "handler": "tooldeck.handlers.files:read_file",
        "description": f"Read part of a {topic} {noun} file as plain lines; "
        "long files are paged with a start_line marker at the end.",
        "params": params,
    }


def _list_dir_tool(rng: random.Random, topic: str, k: int) -> dict[str, Any]:
    noun = rng.choice(["files", "modules", "fixtures", "assets", "templates", "folders"])
    optional = [
        _path_param(rng, topic, required=False, what=f"Folder of {topic} {noun}"),
        {"name": "pattern", "type": "string", "default": "*",
         "enum": ["*", *rng.sample(GLOBS[1:], 3)],
         "description": "Glob the entry names must match"},
        {"name": "recursive", "type": "boolean", "default": False,
         "description": "Also list everything below the folder"},
        {"name": "max_entries", "type": "integer", "default": rng.choice([50, 100, 200]),
         "minimum": 1, "maximum": 5000, "description": "How many entries to return at most"},
    ]  # fmt: skip
    chosen = sorted(rng.sample(range(4), rng.randint(1, 4)))
    tool: dict[str, Any] = {
        "name": f"{topic}_list_{noun}_{k}",
        "handler": "tooldeck.handlers.files:list_dir",
        "description": f"List the {topic} {noun} in the project, sorted by path, "
        "skipping hidden and build folders.",
        "params": [optional[i] for i in chosen],
    }
    if rng.random() < 0.5:
        tool["result"] = {
            "select": rng.choice(["[].path", "[?type=='file'].path", "[].{path: path, size: size}"])
        }
        if rng.random() < 0.5:
            tool["result"]["format"] = "json"
    return tool


def _search_text_tool(rng: random.Random, topic: str, k: int) -> dict[str, Any]:
    noun = rng.choice(["code", "docs", "configs", "tests", "logs", "queries"])
    optional = [
        _path_param(rng, topic, required=False, what=f"Folder or file of {topic} {noun}"),
        {"name": "glob", "type": "string", "default": rng.choice(GLOBS),
         "description": "Only files whose name matches this glob"},
        {"name": "regex", "type": "boolean", "default": False,
         "description": "Treat pattern as a Python regular expression"},
        {"name": "max_results", "type": "integer", "default": rng.choice([20, 50, 100]),
         "minimum": 1, "maximum": 1000, "description": "Stop after this many matching lines"},
    ]  # fmt: skip
    chosen = sorted(rng.sample(range(4), rng.randint(0, 4)))
    tool: dict[str, Any] = {
        "name": f"{topic}_search_{noun}_{k}",
        "handler": "tooldeck.handlers.files:search_text",
        "description": f"Search the {topic} {noun} for lines containing a text or pattern; "
        "returns path, line number and text.",
        "params": [
            {"name": "pattern", "type": "string", "min_length": 1, "max_length": 200,
             "description": "Text to find (case-sensitive), or a regex with regex=true"},
            *(optional[i] for i in chosen),
        ],
    }  # fmt: skip
    if rng.random() < 0.4:
        tool["result"] = {"select": "[].{path: path, line: line}", "max_chars": 8000}
    return tool


def _file_info_tool(rng: random.Random, topic: str, k: int) -> dict[str, Any]:
    noun = rng.choice(["file", "artifact", "dump", "export", "bundle"])
    tool: dict[str, Any] = {
        "name": f"{topic}_{noun}_info_{k}",
        "handler": "tooldeck.handlers.files:file_info",
        "description": f"Describe a {topic} {noun}: type, size, modification time and line count.",
        "params": [_path_param(rng, topic, required=True, what=f"The {topic} {noun}")],
    }
    if rng.random() < 0.5:
        tool["result"] = {"select": rng.choice(["{size: size, lines: lines}", "modified", "size"])}
    return tool


MAKERS = (_read_file_tool, _list_dir_tool, _search_text_tool, _file_info_tool)


def _options(rng: random.Random, topic: str, tool: dict[str, Any]) -> None:
    """Per-tool options some tools set (the rest inherit the file's defaults)."""
    if rng.random() < 0.3:
        tool["timeout"] = rng.choice(["500ms", "2s", "30s", 5, 2.5])
    if rng.random() < 0.3:
        tool["tags"] = [topic, rng.choice(["read-only", "text-search", "paged", "slow"])]
    if rng.random() < 0.2:
        tool["idempotent"] = True
    if rng.random() < 0.1:
        tool["lenient"] = True


def _tool_yaml(tool: dict[str, Any], block_params: bool) -> list[str]:
    lines = [f"  - name: {tool['name']}", f"    handler: {tool['handler']}"]
    lines.append(f"    description: {_q(tool['description'], flow=False)}")
    for key in ("timeout", "tags", "idempotent", "lenient"):
        if key in tool:
            lines.append(f"    {key}: {_q(tool[key], flow=False)}")
    if "result" in tool:
        lines.append("    result:")
        lines.extend(f"      {k}: {_q(v, flow=False)}" for k, v in tool["result"].items())
    lines.append("    params:")
    for param in tool["params"]:
        if block_params:
            first, *rest = param.items()
            lines.append(f"      - {first[0]}: {_q(first[1], flow=False)}")
            lines.extend(f"        {k}: {_q(v, flow=False)}" for k, v in rest)
        else:
            lines.append(f"      - {_flow(param)}")
    return lines


def manifest_text(index: int, rng: random.Random) -> str:
    topic = TOPICS[index]
    lines = [
        "# yaml-language-server: $schema=../schemas/manifest.schema.json",
        f"# Read-only tools over the {topic} part of the project (generated for the benchmark).",
        "version: 1",
        f"bundle: {topic}",
        f"description: Read-only access to the {topic} files of the project.",
        "defaults:",
        f"  timeout: {rng.choice(['5s', '10s', '20s'])}",
        f"  tags: [{topic}, read-only]",
    ]
    if rng.random() < 0.3:
        lines.append("  idempotent: true")
    lines.append("tools:")
    for k in range(TOOLS_PER_FILE):
        tool = MAKERS[k % len(MAKERS)](rng, topic, k)
        _options(rng, topic, tool)
        lines.extend(_tool_yaml(tool, block_params=rng.random() < 0.25))
        lines.append("")
    return "\n".join(lines)


def write_catalogue(folder: Path) -> list[Path]:
    rng = random.Random(20261122)
    paths = []
    for index in range(FILES):
        path = folder / f"{index:02d}_{TOPICS[index]}.yaml"
        path.write_text(manifest_text(index, rng), encoding="utf-8")
        paths.append(path)
    return paths


# ----------------------------------------------------------------- variants
def bare_variant(paths: list[Path]) -> Callable[[], list[Any]]:
    load, loader = yaml.load, yaml.CSafeLoader

    def bare() -> list[Any]:
        return [load(p.read_text("utf-8"), Loader=loader) for p in paths]

    return bare


def load_variant(folder: Path) -> Callable[[], object]:
    def full_load() -> object:
        return load_manifests([folder], registry=ToolRegistry())

    return full_load


def run_lint(folder: Path) -> tuple[ToolRegistry, LoadResult, list[Diagnostic], str]:
    """What ``cmd_lint`` does, minus argument parsing and reading pyproject settings."""
    config = load_config(None)
    registry = ToolRegistry(project_dir=Path.cwd(), config=config.data)
    registry, result = load_manifests([folder], registry=registry, config=config)
    found = [*result.diagnostics, *lint(result, registry, LintSettings())]
    return (
        registry,
        result,
        found,
        get_reporter("text").render(found, files_checked=len(result.files)),
    )


def lint_variant(folder: Path) -> Callable[[], object]:
    def lint_run() -> object:
        return run_lint(folder)

    return lint_run


def jsonschema_variant(docs: list[Any]) -> Callable[[], object]:
    from jsonschema import Draft202012Validator

    meta = json.loads(META_SCHEMA.read_text("utf-8"))

    def naive() -> list[bool]:
        is_valid = Draft202012Validator(meta).is_valid
        return [is_valid(doc) for doc in docs]

    return naive


# ------------------------------------------------------------------- checks
def _fail(what: str) -> SystemExit:
    return SystemExit(f"load benchmark: sanity check failed: {what}")


def sanity_check(folder: Path, paths: list[Path], docs: list[Any]) -> int:
    """The catalogue must load cleanly, or the timing means nothing; returns lint findings."""
    gc.disable()  # not timed: just quicker
    try:
        registry, result, found, report = run_lint(folder)
    finally:
        gc.enable()
    if result.errors:
        shown = "\n  ".join(str(d) for d in result.errors[:10])
        raise _fail(f"{len(result.errors)} load errors, first ones:\n  {shown}")
    tools = len(registry.tools())
    if tools != FILES * TOOLS_PER_FILE or len(result.registered) != FILES:
        raise _fail(f"{tools} tools from {len(result.registered)} files registered")
    counts = [len(doc["tools"]) for doc in docs]
    if len(docs) != len(paths) or any(n != TOOLS_PER_FILE for n in counts):
        raise _fail(f"bare parse found {counts} tools per file")
    naive = jsonschema_variant(docs)()
    if not all(naive):  # type: ignore[arg-type]
        raise _fail("the meta-schema rejects a generated document")
    if not report.strip():
        raise _fail("the lint variant produced no report")
    return len(found)


# ------------------------------------------------------------------ profile
def _median_ms(samples: list[int]) -> float:
    return statistics.median(samples) / 1e6


def load_stages(folder: Path, paths: list[Path], reps: int) -> list[tuple[str, float]]:
    """Wall time of each step ``load_file``/``load_manifests`` takes, over all files (ms).

    Calls the loader's own building blocks in the order it does, garbage
    collector disabled like the timed rounds; medians over ``reps`` runs.
    """
    from tooldeck._config.configuration import Config
    from tooldeck._yaml.source import _Loader, read_yaml
    from tooldeck.manifest._build import build_bundle
    from tooldeck.manifest._interpolate import interpolate
    from tooldeck.manifest._loader import GROUP_PREFIX, discover
    from tooldeck.manifest._meta.check import check_document
    from tooldeck.manifest._resolve import DEFAULT_ALLOWED

    texts = [p.read_text("utf-8") for p in paths]
    clock = time.perf_counter_ns
    steps: dict[str, list[int]] = {}

    def note(name: str, ns: int) -> None:
        steps.setdefault(name, []).append(ns)

    for _ in range(reps):
        gc.collect()
        gc.disable()
        try:
            t0 = clock()
            for text in texts:
                yaml.compose(text, Loader=_Loader)
            note("  of which yaml.compose alone (C parser -> nodes)", clock() - t0)
            registry, config = ToolRegistry(), Config()
            t0 = clock()
            files, _ = discover([folder])
            t1 = clock()
            docs = [read_yaml(path) for path in files]
            t2 = clock()
            for doc in docs:
                check_document(doc)
            t3 = clock()
            datas = [
                interpolate(doc.data, config=config.data, secrets=registry.secrets)[0]
                for doc in docs
            ]
            t4 = clock()
            prepare_ns = [0]
            import tooldeck.manifest._build.builder as build_module

            real_prepare = build_module.prepare_tool

            def timed_prepare(
                spec: Any, ns: list[int] = prepare_ns, real: Any = real_prepare
            ) -> Any:
                start = clock()
                try:
                    return real(spec)
                finally:
                    ns[0] += clock() - start

            bundles = []
            build_module.prepare_tool = timed_prepare  # type: ignore[assignment]
            try:
                for doc, data in zip(docs, datas, strict=True):
                    bundles.append(
                        build_bundle(
                            doc,
                            data,
                            allowed=DEFAULT_ALLOWED,
                            search_root=config.search_root(),
                            app_class=None,
                        )
                    )
            finally:
                build_module.prepare_tool = real_prepare
            t5 = clock()
            for doc, bundle in zip(docs, bundles, strict=True):
                registry.replace_group(
                    GROUP_PREFIX + doc.file, list(bundle.prepared_tools.values())
                )
            t6 = clock()
        finally:
            gc.enable()
        if len(registry.tools()) != FILES * TOOLS_PER_FILE:
            raise RuntimeError(f"stage replay registered {len(registry.tools())} tools")
        note("discover (rglob)", t1 - t0)
        note("read_yaml: read + yaml.compose + node -> value conversion", t2 - t1)
        note("check_document (compiled meta-schema check)", t3 - t2)
        note("interpolate (${...} walk)", t4 - t3)
        note("build_bundle without prepare_tool (resolve, ToolSpec)", t5 - t4 - prepare_ns[0])
        note("prepare_tool (schema, checkers), inside build_bundle", prepare_ns[0])
        note("registry.replace_group (register, 50 swaps)", t6 - t5)
    order = [
        "discover (rglob)",
        "read_yaml: read + yaml.compose + node -> value conversion",
        "  of which yaml.compose alone (C parser -> nodes)",
        "check_document (compiled meta-schema check)",
        "interpolate (${...} walk)",
        "build_bundle without prepare_tool (resolve, ToolSpec)",
        "prepare_tool (schema, checkers), inside build_bundle",
        "registry.replace_group (register, 50 swaps)",
    ]
    return [(name, _median_ms(steps[name])) for name in order]


def lint_stages(folder: Path, reps: int) -> list[tuple[str, float]]:
    """Wall time of each lint rule and of the text report over the loaded catalogue (ms)."""
    from tooldeck._lint.runner import RULES, LintContext

    registry, result = load_manifests([folder], registry=ToolRegistry())
    settings = LintSettings()
    ctx = LintContext(result, registry, settings)
    steps: dict[str, list[int]] = {}
    for _ in range(reps):
        gc.collect()
        gc.disable()
        try:
            found: list[Diagnostic] = []
            for rule in RULES:
                start = time.perf_counter_ns()
                found.extend(rule.check(ctx))
                steps.setdefault(f"{rule.code} {rule.name}", []).append(
                    time.perf_counter_ns() - start
                )
            start = time.perf_counter_ns()
            get_reporter("text").render(found, files_checked=len(result.files))
            steps.setdefault("text report", []).append(time.perf_counter_ns() - start)
        finally:
            gc.enable()
    return [(name, _median_ms(samples)) for name, samples in steps.items()]


def _guarded(step: Callable[[], list[tuple[str, float]]]) -> list[tuple[str, float]] | None:
    """Stage timings use engine internals; if they moved, say so instead of failing."""
    try:
        return step()
    except Exception as exc:
        print(f"\n(stage breakdown unavailable: {exc!r})")
        return None


def print_stages(title: str, stages: list[tuple[str, float]], whole: float) -> None:
    print(f"\n{title} (wall time, GC off, median; share of the variant's median round):")
    for name, ms in stages:
        print(f"  {ms:8.1f} ms {ms / whole:6.1%}  {name}")


@dataclass(frozen=True)
class Hotspot:
    where: str
    own: float
    cumulative: float
    calls: int


def _short_path(file: str) -> str:
    for base, label in ((str(ROOT) + os.sep, ""), (sys.prefix + os.sep, "<venv>/")):
        if file.startswith(base):
            return label + file[len(base) :]
    marker = f"{os.sep}lib{os.sep}python"
    return "<stdlib>/" + file.split(marker, 1)[1].split(os.sep, 1)[1] if marker in file else file


def profile(fn: Callable[[], object], calls: int) -> tuple[float, list[Hotspot]]:
    """cProfile ``calls`` runs of ``fn`` (GC off, as in the timed rounds)."""
    profiler = cProfile.Profile()
    gc.collect()
    gc.disable()
    try:
        profiler.enable()
        for _ in range(calls):
            fn()
        profiler.disable()
    finally:
        gc.enable()
    stats: Any = pstats.Stats(profiler)
    total = stats.total_tt
    spots = [
        Hotspot(
            where=f"{_short_path(file)}:{line}({func})" if line else func,
            own=tt / total,
            cumulative=ct / total,
            calls=nc,
        )
        for (file, line, func), (_, nc, tt, ct, _) in stats.stats.items()
    ]
    return total, spots


def print_profile(label: str, fn: Callable[[], object], calls: int, top: int) -> None:
    total, spots = profile(fn, calls)
    print(
        f"\ncProfile of {label}: {calls} runs, {total / calls * 1000:.0f} ms/run under the "
        "profiler (it inflates many small Python calls; trust the stage times for shares)"
    )
    print("  top functions by own time:")
    for s in sorted(spots, key=lambda s: s.own, reverse=True)[:top]:
        print(
            f"    {s.own:6.1%} own {s.cumulative:6.1%} cum {s.calls // calls:>8} calls  {s.where}"
        )
    ours = [s for s in spots if s.where.startswith(("tooldeck", "handlers"))]
    print("  engine functions by cumulative time:")
    for s in sorted(ours, key=lambda s: s.cumulative, reverse=True)[:top]:
        print(
            f"    {s.cumulative:6.1%} cum {s.own:6.1%} own {s.calls // calls:>8} calls  {s.where}"
        )


# ------------------------------------------------------------------- report
def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def _fmt(us: float) -> str:
    return f"{us / 1000:9.2f} ms" if us >= 1000 else f"{us:9.1f} µs"


def _ratio(timing: Timing, base: Timing) -> float:
    """Median over rounds of the per-round ratio: variants of one round ran back to back,
    so a slow spell on a shared machine moves both sides of a ratio together."""
    ratios = [t / b for t, b in zip(timing.samples, base.samples, strict=True) if b > 0]
    return statistics.median(ratios) if ratios else float("nan")


def _line(label: str, timing: Timing, base: Timing) -> str:
    ratio = _ratio(timing, base)
    return (
        f"  {label:<46} {_fmt(timing.median)}/round  {ratio:6.2f}x (a)"
        f"   (rounds {timing.low / 1000:.1f}-{timing.high / 1000:.1f} ms)"
    )


def cli_wall_time(folder: Path) -> str:
    exe = Path(sys.executable).with_name("tooldeck")
    cmd = [str(exe), "lint", str(folder)] if exe.exists() else [sys.executable, "-m", "tooldeck"]
    if not exe.exists():
        cmd += ["lint", str(folder)]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    return f"{wall * 1000:.0f} ms wall, exit {done.returncode}, last line: {last!r}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round: a smoke run (< 5 s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    parser.add_argument("--rounds", type=int, help="rounds (default 15, --quick 1)")
    parser.add_argument(
        "--gc-rounds",
        type=int,
        help="rounds of the information-only pass with the garbage collector on "
        "(default 5, --quick 0 = skipped)",
    )
    parser.add_argument(
        "--profile", action="store_true", help="profile (b) and (c) even if they pass"
    )
    parser.add_argument("--no-profile", action="store_true", help="never profile")
    opts = parser.parse_args(argv)
    rounds = opts.rounds or (1 if opts.quick else 15)
    gc_rounds = opts.gc_rounds if opts.gc_rounds is not None else (0 if opts.quick else 5)

    with tempfile.TemporaryDirectory(prefix="tooldeck-load-") as tmp:
        folder = Path(tmp) / "manifests"
        folder.mkdir()
        paths = write_catalogue(folder)
        size = sum(p.stat().st_size for p in paths)
        bare = bare_variant(paths)
        docs = bare()  # also warms up (a)
        findings = sanity_check(folder, paths, docs)

        print(
            f"load benchmark  {date.today().isoformat()}  "
            f"Python {platform.python_version()} ({platform.python_implementation()})  "
            f"tooldeck {tooldeck.__version__}  PyYAML {yaml.__version__} (libyaml "
            f"{'yes' if yaml.__with_libyaml__ else 'no'})  jsonschema {_version('jsonschema')}"
        )
        print(
            f"catalogue: {FILES} files x {TOOLS_PER_FILE} tools = {FILES * TOOLS_PER_FILE} "
            f"tools, {size / 1024:.0f} KiB of YAML; loads with 0 errors; "
            f"lint finds {findings} problem(s)"
        )
        print(
            f"rounds={rounds}, each variant processes all {FILES} files once per round, "
            "interleaved; median per round, ratios = median of per-round ratios to (a)"
        )
        variants: dict[str, Callable[[], object]] = {
            NAMES["a"]: bare,
            NAMES["b"]: load_variant(folder),
            NAMES["c"]: lint_variant(folder),
            NAMES["d"]: jsonschema_variant(docs),
        }
        # the sanity check already ran every variant's code once, so --quick skips warming up
        results = interleaved_samples(variants, rounds, 1, warmup=0 if opts.quick else 1)
        base = results[NAMES["a"]]
        print()
        for key in "abcd":
            print(_line(NAMES[key], results[NAMES[key]], base))
        per_tool = {k: results[NAMES[k]].median / (FILES * TOOLS_PER_FILE) for k in "abc"}
        print("  per tool: " + ", ".join(f"({k}) {per_tool[k]:.1f} µs" for k in "abc"))

        print()
        failed = []
        for key, target in TARGETS.items():
            ratio = _ratio(results[NAMES[key]], base)
            verdict = "PASS" if ratio <= target else "FAIL"
            if verdict == "FAIL":
                failed.append(key)
            what = "full load" if key == "b" else "lint"
            print(
                f"target {what} / bare parse <= {target:.1f}: {verdict} "
                f"(measured {ratio:.2f}x: {_fmt(results[NAMES[key]].median).strip()} "
                f"vs {_fmt(base.median).strip()})"
            )

        if gc_rounds > 0:
            with_gc = interleaved_samples(variants, gc_rounds, 1, warmup=0, keep_gc=True)
            gc_base = with_gc[NAMES["a"]]
            print(
                f"\ninformation only: garbage collector ON during the calls, as in a real "
                f"process ({gc_rounds} rounds; the targets above are measured with it off):"
            )
            for key in "abcd":
                print(_line(NAMES[key], with_gc[NAMES[key]], gc_base))

        print(f"\none-off `tooldeck lint <dir>` subprocess: {cli_wall_time(folder)}")

        if opts.profile:
            to_profile = ["b", "c"]
        elif opts.no_profile or (opts.quick and failed):
            to_profile = []
            if failed:
                print("(missed targets are profiled in a full run; --profile forces it)")
        else:
            to_profile = failed
        reps, calls = (1, 1) if opts.quick else (5, 2)
        if "b" in to_profile or "c" in to_profile:
            stages = _guarded(lambda: load_stages(folder, paths, reps))
            if stages is not None:
                whole = results[NAMES["b"]].median / 1000
                print_stages(f"where (b) full load goes: {whole:.1f} ms per round", stages, whole)
                summed = sum(ms for name, ms in stages if not name.startswith(" "))
                print(f"  {summed:8.1f} ms {summed / whole:6.1%}  sum of the steps")
        if "c" in to_profile:
            stages = _guarded(lambda: lint_stages(folder, reps))
            if stages is not None:
                whole = results[NAMES["c"]].median / 1000
                print_stages(f"where (c) lint goes on top of loading: {whole:.1f} ms per round",
                             stages, whole)  # fmt: skip
        for key in to_profile:
            print_profile(NAMES[key], variants[NAMES[key]], calls, 15)
    return 1 if opts.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
