"""Hot reload with the real file watcher: saves on disk become registry changes.

Every test waits on the reload itself (``on_reload`` feeds a condition variable) with a
generous timeout; short sleeps appear only where a test is about separate saves.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.manifests import INFO, names, save, tools_yaml
from tooldeck import ToolRegistry
from tooldeck._reload import Watcher, watch
from tooldeck.manifest._events import ReloadEvent
from tooldeck.manifest._loader import GROUP_PREFIX

MODULE = "tests.manifests"  # where payload() lives
TIMEOUT = 10.0


# ------------------------------------------------------------------------------ helpers


def save_atomically(path: Path, text: str) -> Path:
    """Save as most editors do: write ``<name>.tmp`` and rename it over the file."""
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)
    return path


def description(registry: ToolRegistry, name: str) -> str | None:
    spec = registry.get_tool(name)
    return None if spec is None else spec.description


class Reloads:
    """The ``on_reload`` callback: records every event and wakes whoever waits for one."""

    def __init__(self) -> None:
        self.events: list[ReloadEvent] = []
        self._changed = threading.Condition()

    def __call__(self, event: ReloadEvent) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def mark(self) -> int:
        with self._changed:
            return len(self.events)

    def since(self, mark: int) -> list[ReloadEvent]:
        with self._changed:
            return list(self.events[mark:])

    def wait(
        self,
        done: Callable[[list[ReloadEvent]], bool],
        since: int,
        what: str,
        timeout: float = TIMEOUT,
    ) -> list[ReloadEvent]:
        """Block until ``done(events since the mark)`` holds; fail after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not done(self.events[since:]):
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [e.lines() for e in self.events[since:]]
                    raise AssertionError(f"timed out waiting for {what}; reloads seen: {seen}")
                self._changed.wait(left)
            return list(self.events[since:])

    def wait_until(
        self, condition: Callable[[], bool], since: int, what: str, timeout: float = TIMEOUT
    ) -> list[ReloadEvent]:
        """Wait for a reload after which ``condition()`` (about the registry) holds."""
        return self.wait(lambda events: bool(events) and condition(), since, what, timeout)


def lines(events: list[ReloadEvent]) -> list[str]:
    return [line for event in events for line in event.lines()]


Start = Callable[..., tuple[ToolRegistry, Reloads]]


@pytest.fixture
def start() -> Iterator[Start]:
    """Start a real Watcher on paths; every watcher is stopped (and checked) at teardown."""
    started: list[tuple[Watcher, ToolRegistry]] = []

    def run(paths: list[Path], **options: object) -> tuple[ToolRegistry, Reloads]:
        registry = ToolRegistry()
        reloads = Reloads()
        watcher = Watcher(registry, paths, on_reload=reloads, **options)
        started.append((watcher, registry))
        watcher.start(timeout=TIMEOUT)
        assert reloads.mark() == 1  # the first load, done before start() returns
        assert reloads.events[0].ok, reloads.events[0].lines()
        return registry, reloads

    yield run
    for watcher, registry in started:
        watcher.stop(timeout=TIMEOUT)
        registry.close()
        assert watcher._thread is not None
        assert not watcher._thread.is_alive(), "the watcher thread did not stop"


@pytest.fixture
def two_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A fresh folder with a.yaml (alpha) and b.yaml (beta)."""
    folder = tmp_path / "manifests"
    a = save(folder / "a.yaml", tools_yaml("alpha"))
    b = save(folder / "b.yaml", tools_yaml("beta"))
    return folder, a, b


# ---------------------------------------------------------------- edit, add, delete
def test_an_edit_in_place_is_applied(start: Start, two_files: tuple[Path, Path, Path]) -> None:
    folder, a, _ = two_files
    registry, reloads = start([folder])
    new = "Describe one file or directory of the project - edited in place."
    mark = reloads.mark()
    save(a, tools_yaml("alpha", description=new))
    events = reloads.wait_until(
        lambda: description(registry, "alpha") == new, mark, "the edit of a.yaml"
    )
    assert all(event.ok for event in events)
    assert f"~ alpha  ({a})" in lines(events)
    assert names(registry) == {"alpha", "beta"}
    assert registry.reload_status.ok


@pytest.mark.parametrize("root", ["folder", "file"])
def test_a_save_by_rename_over_is_applied(
    start: Start, two_files: tuple[Path, Path, Path], root: str
) -> None:
    folder, a, _ = two_files
    registry, reloads = start([folder] if root == "folder" else [a])
    new = "Describe one file or directory of the project - saved by rename."
    mark = reloads.mark()
    save_atomically(a, tools_yaml("alpha", "alpha_two", description=new))
    events = reloads.wait_until(
        lambda: description(registry, "alpha") == new and "alpha_two" in registry,
        mark,
        "the rename-over of a.yaml",
    )
    assert all(event.ok for event in events)
    assert {f"~ alpha  ({a})", f"+ alpha_two  ({a})"} <= set(lines(events))
    assert not any(file.endswith(".tmp") for event in events for file in event.files)
    assert registry.group_of("alpha") == GROUP_PREFIX + str(a)


def test_a_deleted_file_removes_its_tools(start: Start, two_files: tuple[Path, Path, Path]) -> None:
    folder, a, _ = two_files
    registry, reloads = start([folder])
    mark = reloads.mark()
    a.unlink()
    events = reloads.wait_until(lambda: "alpha" not in registry, mark, "the deletion of a.yaml")
    assert all(event.ok and not event.kept for event in events)
    assert f"- alpha  ({a})" in lines(events)
    assert names(registry) == {"beta"}
    assert registry.reload_status.ok


def test_a_new_file_adds_its_tools(start: Start, two_files: tuple[Path, Path, Path]) -> None:
    folder, _, _ = two_files
    registry, reloads = start([folder])
    mark = reloads.mark()
    c = save(folder / "c.yaml", tools_yaml("gamma", "delta"))
    events = reloads.wait_until(
        lambda: {"gamma", "delta"} <= names(registry), mark, "the new file c.yaml"
    )
    assert all(event.ok for event in events)
    assert {f"+ gamma  ({c})", f"+ delta  ({c})"} <= set(lines(events))
    assert registry.group_of("gamma") == GROUP_PREFIX + str(c)


def test_a_burst_of_saves_is_coalesced_and_the_last_one_wins(
    start: Start, two_files: tuple[Path, Path, Path]
) -> None:
    folder, a, b = two_files
    registry, reloads = start([folder])
    versions = [f"Describe a file or directory in the project - version {i}." for i in range(10)]
    mark = reloads.mark()
    for version in versions:  # back to back, as an editor's autosave or a formatter does
        save(a, tools_yaml("alpha", description=version))
    reloads.wait_until(
        lambda: description(registry, "alpha") == versions[-1], mark, "the last of 10 saves"
    )
    # A save to another file flushes anything of the burst still on its way: the
    # watcher reports changes in order, so once b's reload is in, a's are all in.
    save(b, tools_yaml("beta", "beta_sentinel"))
    events = reloads.wait_until(lambda: "beta_sentinel" in registry, mark, "the sentinel save")
    of_a = [event for event in events if str(a) in event.files]
    assert 1 <= len(of_a) <= 4, f"{len(of_a)} reloads for 10 saves: {[e.lines() for e in of_a]}"
    assert description(registry, "alpha") == versions[-1]
    assert events[-1].ok
    assert registry.reload_status.ok


# --------------------------------------------------------------- errors and conflicts
def test_a_broken_edit_keeps_the_last_good_version_until_fixed(
    start: Start, two_files: tuple[Path, Path, Path]
) -> None:
    folder, a, _ = two_files
    registry, reloads = start([folder])
    mark = reloads.mark()
    save(a, "version: 1\ntools: [\n")
    events = reloads.wait(
        lambda events: any(str(a) in e.kept for e in events), mark, "the broken save"
    )
    broken = next(e for e in events if str(a) in e.kept)
    assert not broken.ok
    assert [d.code for d in broken.diagnostics] == ["TD204"]
    assert broken.lines()[-1] == f"kept the last good version of {a}"
    assert description(registry, "alpha") == INFO
    assert not registry.reload_status.ok
    assert list(registry.reload_status.errors) == [str(a)]

    fixed = "Describe a file or directory in the project - fixed after the break."
    mark = reloads.mark()
    save(a, tools_yaml("alpha", description=fixed))
    events = reloads.wait_until(
        lambda: description(registry, "alpha") == fixed, mark, "the fix of a.yaml"
    )
    assert events[-1].ok
    assert registry.reload_status.ok
    assert registry.reload_status.errors == {}


def test_a_cross_file_duplicate_keeps_the_previous_version(
    start: Start, two_files: tuple[Path, Path, Path]
) -> None:
    folder, a, b = two_files
    registry, reloads = start([folder])
    mark = reloads.mark()
    save(b, tools_yaml("beta", "alpha", "beta_two"))  # alpha's name: line 6, column 11
    events = reloads.wait(
        lambda events: any(str(b) in e.kept for e in events), mark, "the duplicate in b.yaml"
    )
    clash = next(e for e in events if str(b) in e.kept)
    places = {
        (d.location.file, d.location.line, d.location.column)
        for d in clash.diagnostics
        if d.code == "TD220" and d.location is not None
    }
    assert places == {(str(a), 3, 11), (str(b), 6, 11)}
    assert names(registry) == {"alpha", "beta"}
    assert registry.group_of("alpha") == GROUP_PREFIX + str(a)

    mark = reloads.mark()
    save(b, tools_yaml("beta", "alpha_in_b", "beta_two"))
    events = reloads.wait_until(lambda: "beta_two" in registry, mark, "the renamed duplicate")
    assert events[-1].ok
    assert names(registry) == {"alpha", "alpha_in_b", "beta", "beta_two"}
    assert registry.reload_status.ok


@pytest.mark.parametrize("direction", ["in", "out"])
def test_a_folder_of_manifests_moved_in_or_out_is_loaded_or_unloaded(
    start: Start, two_files: tuple[Path, Path, Path], tmp_path: Path, direction: str
) -> None:
    folder, _, b = two_files
    outside, inside = tmp_path / "elsewhere", folder / "bundle"
    save((outside if direction == "in" else inside) / "c.yaml", tools_yaml("gamma"))
    registry, reloads = start([folder])
    assert ("gamma" in registry) is (direction == "out")
    mark = reloads.mark()
    if direction == "in":
        os.rename(outside, inside)
    else:
        os.rename(inside, outside)
    # The watcher reports changes in order: once this later save is in, so is the move.
    save(b, tools_yaml("beta", "beta_sentinel"))
    reloads.wait_until(lambda: "beta_sentinel" in registry, mark, "the sentinel save")
    assert ("gamma" in registry) is (direction == "in")


# ------------------------------------------------------------------- handler modules
def test_reload_handlers_reimports_an_edited_handler_module(
    start: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module_name = f"td_reload_handler_{uuid.uuid4().hex[:12]}"
    source = tmp_path / f"{module_name}.py"
    handler = (
        "def word() -> str:\n"
        "    '''Return a fixed word that the test edits.'''\n"
        "    return {value!r}\n"
    )
    save(source, handler.format(value="before"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.delitem(sys.modules, module_name, raising=False)  # removed again at teardown
    manifest = save(
        tmp_path / "manifests" / "m.yaml",
        "version: 1\ntools:\n  - name: word\n"
        f"    handler: {module_name}:word\n"
        "    description: Return a fixed word from a handler module the test edits.\n",
    )
    registry, reloads = start([manifest.parent], allow_handlers=[module_name], reload_handlers=True)
    assert registry.call("word").text == "before"

    mark = reloads.mark()
    save(source, handler.format(value="after the edit"))
    events = reloads.wait(
        lambda events: f"~ word  ({manifest})" in lines(events), mark, "the handler reload"
    )
    assert all(event.ok for event in events)
    assert registry.call("word").text == "after the edit"

    # a module that no longer imports keeps the tool as it was; the fix is picked up
    mark = reloads.mark()
    save(source, "def word() -> str:\n    return (\n")
    events = reloads.wait(
        lambda events: any(str(manifest) in e.kept for e in events), mark, "the broken module"
    )
    assert [d.code for e in events for d in e.diagnostics] == ["TD311"]
    assert registry.call("word").text == "after the edit"
    mark = reloads.mark()
    save(source, handler.format(value="fixed again"))
    events = reloads.wait(
        lambda events: f"~ word  ({manifest})" in lines(events), mark, "the fixed module"
    )
    assert events[-1].ok
    assert registry.call("word").text == "fixed again"
    assert registry.reload_status.ok


# ---------------------------------------------------------------------- concurrency
SHAPED = (
    "version: 1\ntools:\n  - name: word\n"
    f"    handler: {MODULE}:payload\n"
    "    description: {description}\n"
    "    result: {{select: {select}}}\n"
)
VERSIONS = [
    ("Return the old word of the payload, picked by the result select.", "old", "v1"),
    ("Return the new word of the payload, picked by the result select.", "new", "v2"),
]


@pytest.mark.slow
def test_calls_during_50_reloads_always_succeed(start: Start, tmp_path: Path) -> None:
    manifest = tmp_path / "manifests" / "shaped.yaml"
    text, select, _ = VERSIONS[0]
    save(manifest, SHAPED.format(description=text, select=select))
    registry, reloads = start([manifest.parent], allow_handlers=["tests.manifests"])
    assert registry.call("word").text == "v1"

    stop = threading.Event()
    failures: list[str] = []
    answers: dict[str, int] = {"v1": 0, "v2": 0}
    lock = threading.Lock()

    def caller() -> None:
        try:
            while not stop.is_set():
                result = registry.call("word")
                with lock:
                    if not result.ok or result.text not in answers:
                        failures.append(f"ok={result.ok} text={result.text!r}")
                    else:
                        answers[result.text] += 1
        except BaseException as exc:  # reported below, never lost in the thread
            failures.append(repr(exc))

    # Switch threads very often: the callers get to run in the middle of reloads, and the
    # watcher thread is not starved by them.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    callers = [threading.Thread(target=caller, name=f"caller-{i}") for i in range(3)]
    for thread in callers:
        thread.start()
    mark = reloads.mark()
    try:
        for i in range(1, 51):
            text, select, _ = VERSIONS[i % 2]
            before = reloads.mark()
            # Atomic saves: with the callers holding the GIL, an in-place save can be seen
            # half done (truncated, TD205) - reported and kept, but not what this is about.
            save_atomically(manifest, SHAPED.format(description=text, select=select))
            reloads.wait_until(
                lambda text=text: description(registry, "word") == text,
                before,
                f"reload {i} of 50",
            )
    finally:
        stop.set()
        for thread in callers:
            thread.join(TIMEOUT)
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in callers)

    assert failures == []
    events = reloads.since(mark)
    changed = [e for e in events if f"~ word  ({manifest})" in e.lines()]
    assert len(changed) >= 50
    assert all(event.ok for event in events), [e.lines() for e in events if not e.ok]
    assert answers["v1"] > 0
    assert answers["v2"] > 0
    assert sum(answers.values()) > 500  # the calls really ran all through the reloads
    assert registry.call("word").text == "v1"  # the 50th save is the first version again


# -------------------------------------------------------------------- asyncio form
async def test_watch_under_asyncio_applies_an_edit(tmp_path: Path) -> None:
    a = save(tmp_path / "a.yaml", tools_yaml("alpha"))
    registry = ToolRegistry()
    ready = asyncio.Event()
    stop = asyncio.Event()
    changed = asyncio.Event()
    events: list[ReloadEvent] = []

    def on_reload(event: ReloadEvent) -> None:
        events.append(event)
        changed.set()

    task = asyncio.create_task(
        watch(registry, [tmp_path], on_reload=on_reload, ready=ready.set, stop_event=stop)
    )
    new = "Describe one file or directory of the project - edited under asyncio."
    try:
        await asyncio.wait_for(ready.wait(), TIMEOUT)
        assert [e.lines() for e in events] == [[f"+ alpha  ({a})"]]
        changed.clear()
        save(a, tools_yaml("alpha", description=new))
        async with asyncio.timeout(TIMEOUT):
            while description(registry, "alpha") != new:
                await changed.wait()
                changed.clear()
        assert f"~ alpha  ({a})" in lines(events)
    finally:
        stop.set()
        await asyncio.wait_for(task, TIMEOUT)
        registry.close()


async def test_watch_keeps_its_loop_serving_while_a_slow_load_runs(tmp_path: Path) -> None:
    """Reading and importing run in a worker thread: a handler module that takes a
    while to import (or a large manifest set) never freezes the application's loop."""
    package = f"slowpkg_{uuid.uuid4().hex[:8]}"
    (tmp_path / "code" / package).mkdir(parents=True)
    (tmp_path / "code" / package / "__init__.py").write_text(
        "import time\ntime.sleep(0.6)\n\ndef info(path: str) -> str:\n    return path\n",
        encoding="utf-8",
    )
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    save(
        manifests / "slow.yaml",
        "version: 1\ntools:\n  - name: info\n    description: Slow to import.\n"
        f"    handler: {package}:info\n"
        "    params:\n      - {name: path, type: string, required: true}\n",
    )
    sys.path.insert(0, str(tmp_path / "code"))
    registry = ToolRegistry()
    ready, stop = asyncio.Event(), asyncio.Event()
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    at_registration: list[int] = []
    registry.subscribe(lambda group, change: at_registration.append(ticks))
    beating = asyncio.create_task(heartbeat())
    await asyncio.sleep(0)
    task = asyncio.create_task(
        watch(registry, [manifests], allow_handlers=[package], ready=ready.set, stop_event=stop)
    )
    try:
        await asyncio.wait_for(ready.wait(), TIMEOUT)
        assert "info" in registry
        # Frozen for the 0.6 s import, the heartbeat would not have ticked before the
        # tools were registered; the subscriber ran in the loading thread.
        assert at_registration[0] >= 10
    finally:
        stop.set()
        beating.cancel()
        await asyncio.wait_for(task, TIMEOUT)
        sys.path.remove(str(tmp_path / "code"))
        sys.modules.pop(package, None)
        registry.close()
