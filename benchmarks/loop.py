"""The model loop: what tooldeck's ``run`` costs over the openai client, next to openai-agents.

Run from the repository root::

    .venv/bin/python benchmarks/loop.py            # full run, ~55 s
    .venv/bin/python benchmarks/loop.py --quick    # smoke run, ~6 s
    .venv/bin/python benchmarks/loop.py --check    # exit 1 if a measured target is missed
    .venv/bin/python benchmarks/loop.py --gc       # garbage collector on while timing
    .venv/bin/python benchmarks/loop.py --api chat --rounds 31   # one API, steadier

The comparison with openai-agents needs it installed (it is not a dependency
of tooldeck, for its runtime or its tests)::

    .venv/bin/pip install openai-agents

Without it (or with ``TOOLDECK_BENCH_NO_AGENTS=1`` in the environment, which
makes ``import agents`` fail on purpose) the script still measures tooldeck
against the floor and reports the openai-agents comparison as skipped.

One scripted three-turn conversation: the model calls two tools
(``get_weather`` and ``add``), then one (``get_weather``), then answers with
text. The model is ``tests/integration/openai_server.py``'s loopback server,
run in a subprocess (this script with ``--serve``) so its CPU is not this
process's; it picks each reply from the request itself (how many tool outputs
the transcript holds) and answers 400 when an output is not what the tools
return, so every variant really runs the tools. Variants, per API (Responses,
and Chat Completions):

(c)  floor       a bare ``openai.OpenAI`` sending the three request bodies tooldeck
                 sends (captured once), doing nothing with the replies
(a)  tooldeck    ``tooldeck.providers.openai.run(OpenAI, registry=...)``, same sync tools;
                 and, for information, the same with ``parallel=False``
(c') floor       the same bodies through ``openai.AsyncOpenAI`` (for the async variants)
(a') tooldeck    ``arun(AsyncOpenAI, ...)``
(b)  agents      openai-agents' ``Runner.run`` with the same tools as ``@function_tool``s,
                 ``OpenAIResponsesModel`` / ``OpenAIChatCompletionsModel`` on the same
                 ``AsyncOpenAI``, tracing disabled
(d)  own time    ``run`` (and ``parallel=False``) over a stand-in client that replays the
                 recorded replies: no HTTP, no parsing, so its whole time is tooldeck's
                 (information; no floor, no target)
(e)  streamed    the floor: the same three bodies sent with ``stream=True`` through
                 ``openai.OpenAI``, every server-sent event read; and
                 ``tooldeck.providers.openai.stream(OpenAI, ...)`` read to its ``Finished``

Overhead = time - floor (sync variants against (c), async ones against (c'),
the streamed one against (e)'s floor), the median of the per-round differences.
Targets, for (a), (a') and (e) on each API: tooldeck's overhead <= 1/5 of
openai-agents' (``Runner.run``'s: its streamed runner is not measured), and
tooldeck <= 1.2x its floor end to end (the median of the per-round ratios). Benchmarks report,
they do not gate: the exit status is 0 unless ``--check`` is given and a
measured target is missed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# Python puts a script's folder first on sys.path, where benchmarks/mcp.py would shadow
# the mcp package that openai-agents imports: take the folder off (nothing is imported
# from it).
sys.path[:] = [p for p in sys.path if Path(p or os.curdir).resolve() != HERE]
sys.path.insert(0, str(ROOT))  # for tests.integration.openai_server

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Mapping  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from datetime import date  # noqa: E402
from importlib import metadata  # noqa: E402
from types import SimpleNamespace  # noqa: E402
from typing import Any  # noqa: E402

from tests.integration.openai_server import (  # noqa: E402
    ScriptedServer,
    Turn,
    _completion,
    _response,
    call,
    say,
)

NO_AGENTS_ENV = "TOOLDECK_BENCH_NO_AGENTS"
INSTALL_AGENTS = ".venv/bin/pip install openai-agents"
OVERHEAD_TARGET = 1 / 5
FLOOR_TARGET = 1.2
MODEL = "bench-model"
PROMPT = "Weather in Paris and Oslo, and what is 2 + 3?"
FINAL = "Sunny in Paris and in Oslo; 2 + 3 = 5."
APIS = ("responses", "chat")

# ----------------------------------------------------------------- the script
TURNS = (
    Turn(
        calls=(
            call("get_weather", {"city": "Paris"}, "call_1"),
            call("add", {"a": 2, "b": 3}, "call_2"),
        )
    ),
    Turn(calls=(call("get_weather", {"city": "Oslo"}, "call_3"),)),
    say(FINAL),
)
OUTPUTS = ("Sunny in Paris", "5", "Sunny in Oslo")
"""What the three tool calls return, in order: the server checks every output it is sent."""
TURN_BY_OUTPUTS = {0: 0, 2: 1, 3: 2}
"""How many tool outputs the transcript holds -> which turn to answer with."""


def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: City name.
    """
    return f"Sunny in {city}"


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


# ----------------------------------------------------------------- the server
class ConversationServer(ScriptedServer):
    """The scripted server, answering each request from the transcript it carries.

    Stateless, so any number of conversations (and clients) can run, one
    after another or at once; nothing is recorded.
    """

    def reply(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path.endswith("/responses"):
            outputs = [
                item.get("output")
                for item in body.get("input") or ()
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            ]
            answer = _response
        elif path.endswith("/chat/completions"):
            outputs = [
                message.get("content")
                for message in body.get("messages") or ()
                if isinstance(message, dict) and message.get("role") == "tool"
            ]
            answer = _completion
        else:
            return 404, {"error": {"message": f"no endpoint {path}", "type": "not_found"}}
        turn = TURN_BY_OUTPUTS.get(len(outputs))
        wrong = [
            (got, want) for got, want in zip(outputs, OUTPUTS, strict=False) if str(got) != want
        ]
        if turn is None or wrong:
            problem = f"{len(outputs)} tool outputs" if turn is None else f"outputs {wrong}"
            return 400, {"error": {"message": f"unexpected {problem}", "type": "bad_script"}}
        return 200, answer(TURNS[turn], turn + 1, body)


def serve() -> int:
    """``--serve``: run the server, print its URL, stop when stdin closes."""
    with ConversationServer() as server:
        print(server.url, flush=True)
        sys.stdin.read()
    return 0


class ServerProcess:
    """The server in a child process (this script with ``--serve``)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://"):
            self.close()
            raise SystemExit("loop benchmark: the server did not start")

    def close(self) -> None:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


# ----------------------------------------------------------------- variants
FLOOR, TOOLDECK, SEQUENTIAL = "floor", "tooldeck", "sequential"
AFLOOR, ATOOLDECK, AGENTS = "afloor", "atooldeck", "agents"
OWN, OWN_SEQUENTIAL = "own", "own_sequential"
SFLOOR, STREAMED = "sfloor", "streamed"


@dataclass(frozen=True)
class Variant:
    """How one variant is reported: its label, the floor it is measured against, its target."""

    label: str
    base: str | None
    """The variant its overhead is measured against (itself for a floor); None: no floor."""
    target: str = ""
    """The name its targets are printed under (``run``, ``arun``); empty: information only."""


VARIANTS: Mapping[str, Variant] = {
    FLOOR: Variant("(c)  floor: OpenAI, same 3 bodies", FLOOR),
    TOOLDECK: Variant("(a)  tooldeck run(OpenAI)", FLOOR, "run"),
    SEQUENTIAL: Variant("(a)  ... run(parallel=False) [info]", FLOOR),
    AFLOOR: Variant("(c') floor: AsyncOpenAI, same 3 bodies", AFLOOR),
    ATOOLDECK: Variant("(a') tooldeck arun(AsyncOpenAI)", AFLOOR, "arun"),
    AGENTS: Variant("(b)  openai-agents Runner.run", AFLOOR),
    OWN: Variant("(d)  run, replayed replies [own time]", None),
    OWN_SEQUENTIAL: Variant("(d)  ... run(parallel=False) [own time]", None),
    SFLOOR: Variant("(e)  floor: OpenAI, 3 bodies streamed", SFLOOR),
    STREAMED: Variant("(e)  tooldeck stream(OpenAI)", SFLOOR, "stream"),
}
"""Every variant, in report order. A new one (a streamed ``stream()``, say) is a row here,
its callable in :func:`sync_variants` or :func:`async_variants`, and, if it has targets,
a ``target`` name."""
ORDER = tuple(VARIANTS)
LABELS = {name: v.label for name, v in VARIANTS.items()}
BASE = {name: v.base for name, v in VARIANTS.items()}
"""The floor each variant's overhead is measured against (sync or async client)."""


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"loop benchmark: sanity check failed: {what}")


def _create(client: Any, api: str) -> Callable[..., Any]:
    return client.responses.create if api == "responses" else client.chat.completions.create  # type: ignore[no-any-return]


def _final_text(response: Any, api: str) -> str:
    if api == "responses":
        return str(response.output_text)
    return str(response.choices[0].message.content)


def tooldeck_registry() -> Any:
    from tooldeck import ToolRegistry

    registry = ToolRegistry()
    registry.add_tool(None, None, get_weather)
    registry.add_tool(None, None, add)
    return registry


def capture_bodies(client: Any, registry: Any, api: str) -> tuple[list[dict[str, Any]], list[Any]]:
    """The request bodies tooldeck's run sends in one conversation, as plain JSON, and the
    replies it got (the client's parsed objects, for :func:`replaying`)."""
    from tooldeck.providers.openai import run

    bodies: list[dict[str, Any]] = []
    replies: list[Any] = []
    create = _create(client, api)

    def recording(**body: Any) -> Any:
        bodies.append(json.loads(json.dumps(body)))
        replies.append(create(**body))
        return replies[-1]

    run(_client_of(recording), model=MODEL, input=PROMPT, registry=registry, api=api)
    _require(len(bodies) == 3, f"{api}: tooldeck sent {len(bodies)} requests, not 3")
    return bodies, replies


def _client_of(create: Callable[..., Any]) -> Any:
    """A stand-in client whose ``create`` methods (both APIs) are ``create``."""
    method = SimpleNamespace(create=create)
    return SimpleNamespace(responses=method, chat=SimpleNamespace(completions=method))


def replaying(replies: list[Any]) -> Any:
    """A client that answers one conversation's requests with the recorded ``replies``.

    No HTTP and no parsing: what ``run`` costs over it is tooldeck's own time (the
    tools, the transcript, the definitions), the part the floor comparison blurs.
    """
    answers = iter(replies)
    return _client_of(lambda **body: next(answers))


def check_loop_result(result: Any, api: str) -> None:
    _require(result.text == FINAL, f"{api}: tooldeck answered {result.text!r}")
    _require(result.turns == 3, f"{api}: tooldeck made {result.turns} requests")
    texts = [c.result.text for c in result.calls]
    _require(texts == list(OUTPUTS), f"{api}: tooldeck's tool outputs {texts}")


def sync_variants(
    client: Any, registry: Any, api: str, bodies: list[dict[str, Any]], replies: list[Any]
) -> dict[str, Callable[[], object]]:
    from tooldeck.providers.openai import Finished, run, stream

    create = _create(client, api)
    streaming = {"stream": True}
    if api == "chat":  # usage in the last chunk, as stream() asks for it
        streaming["stream_options"] = {"include_usage": True}  # type: ignore[assignment]

    def floor() -> object:
        for body in bodies:
            last = create(**body)
        return last

    def tooldeck() -> object:
        return run(client, model=MODEL, input=PROMPT, registry=registry, api=api)

    def sequential() -> object:
        return run(client, model=MODEL, input=PROMPT, registry=registry, api=api, parallel=False)

    def own() -> object:
        return run(replaying(replies), model=MODEL, input=PROMPT, registry=registry, api=api)

    def own_sequential() -> object:
        client = replaying(replies)
        return run(client, model=MODEL, input=PROMPT, registry=registry, api=api, parallel=False)

    def sfloor() -> object:
        events = 0
        for body in bodies:
            with create(**body, **streaming) as reply:
                for _ in reply:  # every server-sent event read and parsed, as stream() does
                    events += 1
        return events

    def streamed() -> object:
        events = list(stream(client, model=MODEL, input=PROMPT, registry=registry, api=api))
        last = events[-1]
        _require(isinstance(last, Finished), f"{api}: stream() ended without Finished")
        return last.result  # type: ignore[attr-defined]

    _require(_final_text(floor(), api) == FINAL, f"{api}: the floor's last reply")
    _require(sfloor() > 0, f"{api}: the streamed floor read no event")  # type: ignore[operator]
    for conversation in (tooldeck, sequential, own, own_sequential, streamed):
        check_loop_result(conversation(), api)
    return {
        FLOOR: floor,
        TOOLDECK: tooldeck,
        SEQUENTIAL: sequential,
        OWN: own,
        OWN_SEQUENTIAL: own_sequential,
        SFLOOR: sfloor,
        STREAMED: streamed,
    }


def async_variants(
    loop: asyncio.AbstractEventLoop,
    aclient: Any,
    registry: Any,
    api: str,
    bodies: list[dict[str, Any]],
) -> dict[str, Callable[[], object]]:
    from tooldeck.providers.openai import arun

    create = _create(aclient, api)
    run_until_complete = loop.run_until_complete

    async def afloor_conversation() -> object:
        for body in bodies:
            last = await create(**body)
        return last

    def afloor() -> object:
        return run_until_complete(afloor_conversation())

    def atooldeck() -> object:
        return run_until_complete(
            arun(aclient, model=MODEL, input=PROMPT, registry=registry, api=api)
        )

    _require(_final_text(afloor(), api) == FINAL, f"{api}: the async floor's last reply")
    check_loop_result(atooldeck(), api)
    return {AFLOOR: afloor, ATOOLDECK: atooldeck}


def import_agents() -> tuple[Any, str]:
    """The ``agents`` module, or None and why it is skipped."""
    if os.environ.get(NO_AGENTS_ENV):
        sys.modules["agents"] = None  # type: ignore[assignment]  # import agents -> ImportError
    try:
        import agents
    except ImportError as exc:
        if os.environ.get(NO_AGENTS_ENV):
            why = f"its import is blocked by {NO_AGENTS_ENV}"
        elif isinstance(exc, ModuleNotFoundError) and exc.name == "agents":
            why = "it is not installed"
        else:
            why = f"its import failed: {exc!r}"
        return None, (
            f"openai-agents comparison skipped: {why}; install it with `{INSTALL_AGENTS}` "
            "(it is not a tooldeck dependency)"
        )
    return agents, f"openai-agents {_version('openai-agents')}"


def agents_variant(
    agents: Any, loop: asyncio.AbstractEventLoop, aclient: Any, api: str
) -> tuple[Callable[[], object] | None, str]:
    """openai-agents' Runner.run over the same client and tools, or None and why not."""
    try:
        agents.set_tracing_disabled(True)
        model_class = (
            agents.OpenAIResponsesModel if api == "responses" else agents.OpenAIChatCompletionsModel
        )
        agent = agents.Agent(
            name="bench",
            tools=[agents.function_tool(get_weather), agents.function_tool(add)],
            model=model_class(model=MODEL, openai_client=aclient),
        )
        runner_run = agents.Runner.run
        run_until_complete = loop.run_until_complete

        def via_agents() -> object:
            return run_until_complete(runner_run(agent, PROMPT))

        result: Any = via_agents()
        outputs = [
            str(item.output)
            for item in result.new_items
            if isinstance(item, agents.ToolCallOutputItem)
        ]
    except Exception as exc:  # version drift: report, do not fail the benchmark
        return None, f"openai-agents could not be benchmarked: {exc!r}"
    _require(result.final_output == FINAL, f"{api}: openai-agents answered {result.final_output!r}")
    _require(outputs == list(OUTPUTS), f"{api}: openai-agents' tool outputs {outputs}")
    return via_agents, ""


# ----------------------------------------------------------------- timing
@dataclass(frozen=True)
class Samples:
    """Per-conversation times of one variant over the rounds, in milliseconds."""

    wall: tuple[float, ...]
    cpu: tuple[float, ...]


def measure(
    variants: Mapping[str, Callable[[], object]], rounds: int, number: int, *, keep_gc: bool
) -> dict[str, Samples]:
    """``number`` conversations per variant per round, in alternating rounds (order rotating).

    Wall time (``perf_counter_ns``) and this process's CPU time (all threads:
    ``process_time_ns``), per conversation. The garbage collector is
    collected before each round and, unless ``keep_gc``, off while timing.
    """
    names = list(variants)
    for fn in variants.values():  # warm-up: connections, caches, lazy imports
        for _ in range(max(2, number // 2)):
            fn()
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        gc.collect()
        for name in names[shift:] + names[:shift]:
            fn = variants[name]
            if not keep_gc:
                gc.disable()
            try:
                c0, w0 = time.process_time_ns(), time.perf_counter_ns()
                for _ in range(number):
                    fn()
                w1, c1 = time.perf_counter_ns(), time.process_time_ns()
            finally:
                gc.enable()
            wall[name].append((w1 - w0) / number / 1e6)
            cpu[name].append((c1 - c0) / number / 1e6)
    return {name: Samples(tuple(wall[name]), tuple(cpu[name])) for name in names}


def median_of(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


@dataclass(frozen=True)
class Figures:
    wall: float
    cpu: float
    overhead: float
    """Median of the per-round wall differences to the variant's floor, ms."""
    cpu_overhead: float
    ratio: float
    """Median of the per-round wall ratios to the variant's floor."""


def figures(results: Mapping[str, Samples], name: str) -> Figures:
    mine = results[name]
    if BASE[name] is None:  # no floor: its whole time is tooldeck's
        wall, cpu = median_of(list(mine.wall)), median_of(list(mine.cpu))
        return Figures(wall=wall, cpu=cpu, overhead=wall, cpu_overhead=cpu, ratio=float("nan"))
    base = results[BASE[name]]  # type: ignore[index]
    return Figures(
        wall=median_of(list(mine.wall)),
        cpu=median_of(list(mine.cpu)),
        overhead=median_of([m - b for m, b in zip(mine.wall, base.wall, strict=True)]),
        cpu_overhead=median_of([m - b for m, b in zip(mine.cpu, base.cpu, strict=True)]),
        ratio=median_of([m / b for m, b in zip(mine.wall, base.wall, strict=True)]),
    )


# ----------------------------------------------------------------- report
def report_api(api: str, results: Mapping[str, Samples]) -> dict[str, Figures]:
    title = "Responses API" if api == "responses" else "Chat Completions"
    print(f"\n{title}: ms per conversation (3 requests, 3 tool calls), medians over rounds")
    print(
        f"  {'variant':<40} {'wall':>7} {'CPU':>7} {'overhead':>9} {'CPU ovh':>8} "
        f"{'/ floor':>8}  wall range"
    )
    out = {}
    for name in ORDER:
        if name not in results:
            continue
        f = out[name] = figures(results, name)
        floor = name == BASE[name] or BASE[name] is None
        overhead = "" if floor else f"{f.overhead:+9.3f}"
        cpu_overhead = "" if floor else f"{f.cpu_overhead:+8.3f}"
        ratio = "" if BASE[name] is None else f"{f.ratio:7.2f}x"
        samples = results[name].wall
        print(
            f"  {LABELS[name]:<40} {f.wall:7.3f} {f.cpu:7.3f} {overhead:>9} {cpu_overhead:>8} "
            f"{ratio:>8}  {min(samples):.3f}-{max(samples):.3f}"
        )
    return out


def verdicts(api: str, found: Mapping[str, Figures]) -> list[str]:
    """Print the targets of one API; return their verdicts ("PASS"/"MISS"/"SKIP")."""
    out = []
    for mine, variant in VARIANTS.items():
        label = variant.target
        if not label or mine not in found:
            continue
        f = found[mine]
        verdict = "PASS" if f.ratio <= FLOOR_TARGET else "MISS"
        out.append(verdict)
        print(
            f"  {api}: tooldeck {label} / floor <= {FLOOR_TARGET:.1f}x end to end: "
            f"{verdict} (measured {f.ratio:.2f}x, overhead {f.overhead:+.3f} ms)"
        )
        if AGENTS not in found:
            out.append("SKIP")
            print(
                f"  {api}: tooldeck {label} overhead <= 1/5 of openai-agents': SKIP "
                "(openai-agents not measured: see the note above)"
            )
            continue
        theirs = found[AGENTS].overhead
        share = f.overhead / theirs if theirs > 0 else float("nan")
        verdict = "PASS" if theirs > 0 and f.overhead <= OVERHEAD_TARGET * theirs else "MISS"
        out.append(verdict)
        print(
            f"  {api}: tooldeck {label} overhead <= 1/5 of openai-agents': {verdict} "
            f"(measured {f.overhead:+.3f} ms vs {theirs:+.3f} ms = {share:.2f}; "
            f"CPU {f.cpu_overhead:+.3f} vs {found[AGENTS].cpu_overhead:+.3f} ms)"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few rounds: a smoke run")
    parser.add_argument("--check", action="store_true", help="exit 1 if a measured target misses")
    parser.add_argument("--rounds", type=int, help="rounds (default 15, --quick 3)")
    parser.add_argument("--number", type=int, help="conversations per variant per round")
    parser.add_argument("--api", choices=[*APIS, "both"], default="both")
    parser.add_argument("--gc", action="store_true", help="keep the garbage collector on")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.serve:
        return serve()
    rounds = opts.rounds or (3 if opts.quick else 15)
    number = opts.number or (2 if opts.quick else 20)
    apis = APIS if opts.api == "both" else (opts.api,)

    import openai

    import tooldeck

    agents, agents_note = import_agents()
    print(
        f"loop benchmark  {date.today().isoformat()}  "
        f"Python {platform.python_version()} ({platform.python_implementation()})  "
        f"tooldeck {tooldeck.__version__}  openai {_version('openai')}  "
        + (agents_note if agents is not None else "openai-agents: not measured")
    )
    server = ServerProcess()
    loop = asyncio.new_event_loop()
    client = openai.OpenAI(base_url=server.url, api_key="bench", max_retries=0)
    aclient = openai.AsyncOpenAI(base_url=server.url, api_key="bench", max_retries=0)
    try:
        print(
            f"server: tests/integration/openai_server.py in a subprocess at {server.url}; "
            f"{rounds} rounds x {number} conversations per variant, interleaved"
            + (", GC on" if opts.gc else ", GC off while timing")
        )
        if agents is None:
            print(f"note: {agents_note}")
        found_verdicts: list[str] = []
        for api in apis:
            registry = tooldeck_registry()
            bodies, replies = capture_bodies(client, registry, api)
            variants = {
                **sync_variants(client, registry, api, bodies, replies),
                **async_variants(loop, aclient, registry, api, bodies),
            }
            if agents is not None:
                via_agents, why = agents_variant(agents, loop, aclient, api)
                if via_agents is not None:
                    variants[AGENTS] = via_agents
                else:
                    print(f"note: {why}")
            results = measure(variants, rounds, number, keep_gc=opts.gc)
            found = report_api(api, results)
            print("targets:")
            found_verdicts += verdicts(api, found)
    finally:
        client.close()
        loop.run_until_complete(aclient.close())
        loop.close()
        server.close()
    missed = "MISS" in found_verdicts
    print(
        "\ntarget summary: "
        + ("some measured target MISSED" if missed else "every measured target met")
        + (" (the openai-agents comparison was skipped)" if "SKIP" in found_verdicts else "")
    )
    return 1 if opts.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
