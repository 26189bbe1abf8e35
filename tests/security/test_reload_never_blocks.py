"""Hot reload never blocks and never reads without bound, whatever a manifest is replaced with.

A watched manifest swapped for a FIFO used to block the watcher thread in ``open()`` forever
(every later save was then ignored), and one swapped for a symlink to ``/dev/zero`` was read
until ``MemoryError``. Each swap below must end as a located TD200 on that file saying what
it became, with its last good version still registered, and the next good save must apply:
the watcher survived. Driven through the library's thread-backed ``Watcher`` in this process
and through the real ``tooldeck dev`` in a subprocess.

The swaps that a regression would read without end (``/dev/zero``, ``/dev/urandom``) run only
in subprocesses under an address-space limit, so a regression fails the test instead of
exhausting the machine's memory. The waits are deadlines for a loaded 2-CPU machine, not
delays: nothing sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.acceptance.test_cli_dev import EXIT, STAMP, STARTUP, Output
from tests.integration.test_reload import Reloads, description
from tests.manifests import save, tools_yaml
from tooldeck import ToolRegistry
from tooldeck._reload import Watcher
from tooldeck.manifest._events import ReloadEvent

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX special files")

WAIT = 60.0
"""For one reload to be reported: tens of milliseconds when the machine is idle."""
MEMORY = 4 * 1024**3
"""Address space of a subprocess: plenty for tooldeck, far less than a read of /dev/zero."""


def good(version: str) -> str:
    return tools_yaml("alpha", description=f"Describe a file in the project, version {version}.")


# ------------------------------------------------------------------ the swaps
def remove(path: Path) -> None:
    """Whatever is at ``path`` (file, symlink, FIFO, socket, folder) is gone afterwards."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def make_socket(path: Path) -> None:
    """A Unix socket file at ``path`` (bound under a short name: socket paths are short)."""
    with tempfile.TemporaryDirectory(dir="/tmp") as short:
        name = os.path.join(short, "s")
        with socket.socket(socket.AF_UNIX) as bound:
            bound.bind(name)
        try:
            os.rename(name, path)
        except OSError as exc:  # another file system: a socket cannot be moved there
            pytest.skip(f"cannot place a socket at {path}: {exc}")


def link_to_fifo(path: Path) -> None:
    """A symlink to a FIFO outside the watched folder (symlinked manifests are legitimate)."""
    target = path.parent.parent / "elsewhere.fifo"
    os.mkfifo(target)
    path.symlink_to(target)


SWAPS: dict[str, Callable[[Path], None]] = {
    "a FIFO": os.mkfifo,
    "a symlink to a FIFO": link_to_fifo,
    "a symlink to a character device": lambda p: p.symlink_to("/dev/null"),
    "a directory": lambda p: p.mkdir(),
    "a symlink to a directory": lambda p: p.symlink_to(p.parent.parent),
    "a socket": make_socket,
}
WHAT = {
    "a FIFO": "a named pipe (FIFO)",
    "a symlink to a FIFO": "a named pipe (FIFO)",
    "a symlink to a character device": "a character device",
    "a directory": "a directory",
    "a symlink to a directory": "a directory",
    "a socket": "a socket",
}


def reason(manifest: Path, kind: str) -> str:
    """What the TD200 says: a link out of the watched folder is not followed at all."""
    target = os.path.realpath(manifest)
    if os.path.islink(manifest) and not Path(target).is_relative_to(manifest.parent.resolve()):
        return (
            f"{manifest} is a link to {target}, outside {manifest.parent}; not read (name it "
            "with -m to read it anyway)"
        )
    return f"cannot read file: it is {kind}, not a regular file"


def release(path: Path) -> None:
    """Wake a reader stuck opening a FIFO (what a regression does), so no thread is left behind."""
    target = path.parent.parent / "elsewhere.fifo"
    for fifo in (path, target):
        with contextlib.suppress(OSError):
            if fifo.is_fifo():
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


# ------------------------------------------------------------------ the library watcher
@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, ToolRegistry, Reloads]]:
    folder = tmp_path / "manifests"
    manifest = save(folder / "tools.yaml", good("1"))
    registry, reloads = ToolRegistry(), Reloads()
    watcher = Watcher(registry, [folder], on_reload=reloads).start(timeout=WAIT)
    try:
        yield manifest, registry, reloads
    finally:
        release(manifest)
        watcher.stop(timeout=WAIT)
        registry.close()


def refused(events: list[ReloadEvent]) -> bool:
    return any(d.code == "TD200" for e in events for d in e.diagnostics)


@pytest.mark.parametrize("swap", list(SWAPS), ids=list(SWAPS))
def test_a_manifest_swapped_for_a_special_file_is_reported_and_the_next_save_applies(
    watched: tuple[Path, ToolRegistry, Reloads], swap: str
) -> None:
    manifest, registry, reloads = watched
    mark = reloads.mark()
    remove(manifest)
    SWAPS[swap](manifest)
    events = reloads.wait(refused, mark, f"the report of {swap}", timeout=WAIT)

    (problem,) = [d for e in events for d in e.diagnostics if d.code == "TD200"]
    assert problem.message == reason(manifest, WHAT[swap])
    assert problem.location is not None
    assert Path(problem.location.file).name == "tools.yaml"
    assert (problem.location.line, problem.location.column) == (1, 1)
    assert description(registry, "alpha") == "Describe a file in the project, version 1."
    assert registry.reload_status.ok is False

    mark = reloads.mark()
    remove(manifest)
    save(manifest, good("2"))
    reloads.wait(lambda es: any(e.ok and e.changes for e in es), mark, "the good save", WAIT)
    assert description(registry, "alpha") == "Describe a file in the project, version 2."
    assert registry.reload_status.ok is True


def test_every_swap_in_turn_then_a_good_save_applies(
    watched: tuple[Path, ToolRegistry, Reloads],
) -> None:
    manifest, registry, reloads = watched
    for swap, make in SWAPS.items():
        mark = reloads.mark()
        remove(manifest)
        make(manifest)
        reloads.wait(refused, mark, f"the report of {swap}", timeout=WAIT)
        release(manifest)
        remove(manifest.parent.parent / "elsewhere.fifo")
    mark = reloads.mark()
    remove(manifest)
    save(manifest, good("2"))
    reloads.wait(lambda es: any(e.ok and e.changes for e in es), mark, "the good save", WAIT)
    assert description(registry, "alpha") == "Describe a file in the project, version 2."


# ------------------------------------------------------------------ subprocesses, memory capped
def _capped() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def spawn(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        preexec_fn=_capped,  # noqa: PLW1509 - only setrlimit, before exec
    )


DEV_SWAPS: list[tuple[str, Callable[[Path], None], str]] = [
    ("a FIFO", os.mkfifo, "a named pipe (FIFO)"),
    ("a symlink to /dev/zero", lambda p: p.symlink_to("/dev/zero"), "a character device"),
    ("a symlink to /dev/urandom", lambda p: p.symlink_to("/dev/urandom"), "a character device"),
    ("a directory", lambda p: p.mkdir(), "a directory"),
    ("a socket", make_socket, "a socket"),
]


def stop(proc: subprocess.Popen[str], output: Output, manifest: Path) -> None:
    release(manifest)
    if proc.poll() is None:
        proc.kill()
        proc.wait(EXIT)
    output.close()


def test_tooldeck_dev_reports_each_swap_and_applies_the_next_good_save(tmp_path: Path) -> None:
    folder = tmp_path / "manifests"
    manifest = save(folder / "tools.yaml", good("1"))
    scripts = Path(sys.executable).parent
    proc = spawn([str(scripts / "tooldeck"), "dev", "-m", str(folder)], tmp_path)
    output = Output(proc)
    try:
        output.expect(rf"{STAMP} loaded 1 tool from 1 file", timeout=STARTUP)
        output.expect(re.escape(f"watching {folder} (Ctrl-C to stop)"), timeout=WAIT)
        for _what, swap, kind in DEV_SWAPS:
            remove(manifest)
            swap(manifest)
            message = reason(manifest, kind)
            output.expect(rf"  {re.escape(str(manifest))}:1:1: TD200 {re.escape(message)}", WAIT)
            output.expect(re.escape(f"  kept the last good version of {manifest}"), WAIT)
        remove(manifest)
        save(manifest, good("2"))
        output.expect(rf"{STAMP} tools\.yaml in \d+ ms", WAIT)
        output.expect(re.escape(f"  ~ alpha  ({manifest})"), WAIT)

        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=EXIT) == 0
        output.rest()
        assert not any("Traceback" in line or "MemoryError" in line for line in output.seen)
    finally:
        stop(proc, output, manifest)


WATCH_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from tooldeck import ToolRegistry, watch

    def show(event):
        for diagnostic in event.diagnostics:
            print("diagnostic", diagnostic.format(), flush=True)
        if event.ok and event.changes:
            print("applied", flush=True)

    async def main():
        await watch(ToolRegistry(), [sys.argv[1]], on_reload=show,
                    ready=lambda: print("ready", flush=True))

    asyncio.run(main())
    """
)


@pytest.mark.parametrize(
    ("what", "swap", "kind"), DEV_SWAPS, ids=[what for what, _, _ in DEV_SWAPS]
)
def test_the_library_watch_reports_each_swap_and_applies_the_next_good_save(
    tmp_path: Path, what: str, swap: Callable[[Path], None], kind: str
) -> None:
    folder = tmp_path / "manifests"
    manifest = save(folder / "tools.yaml", good("1"))
    proc = spawn([sys.executable, "-c", WATCH_SCRIPT, str(folder)], tmp_path)
    output = Output(proc)
    try:
        output.expect("ready", timeout=STARTUP)
        remove(manifest)
        swap(manifest)
        message = reason(manifest, kind)
        output.expect(rf"diagnostic {re.escape(str(manifest))}:1:1: TD200 {re.escape(message)}")
        remove(manifest)
        save(manifest, good("2"))
        output.expect("applied", timeout=WAIT)
    finally:
        stop(proc, output, manifest)


async def test_the_async_watch_survives_a_fifo_on_this_loop(tmp_path: Path) -> None:
    from tooldeck import watch

    folder = tmp_path / "manifests"
    manifest = save(folder / "tools.yaml", good("1"))
    registry, reloads, stop_event = ToolRegistry(), Reloads(), asyncio.Event()
    armed = asyncio.Event()
    task = asyncio.create_task(
        watch(registry, [folder], on_reload=reloads, stop_event=stop_event, ready=armed.set)
    )
    try:
        await asyncio.wait_for(armed.wait(), WAIT)
        mark = reloads.mark()
        remove(manifest)
        os.mkfifo(manifest)
        await asyncio.to_thread(reloads.wait, refused, mark, "the FIFO", WAIT)
        mark = reloads.mark()
        remove(manifest)
        save(manifest, good("2"))
        await asyncio.to_thread(
            reloads.wait, lambda es: any(e.ok and e.changes for e in es), mark, "the save", WAIT
        )
        assert description(registry, "alpha") == "Describe a file in the project, version 2."
    finally:
        release(manifest)
        stop_event.set()
        await asyncio.wait_for(task, WAIT)
        registry.close()
