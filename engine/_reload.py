"""Hot reload: watch manifest files (and, opt-in, handler modules) and apply edits live.

This is the leaf that imports watchfiles; the reload logic itself (per-file
last good, atomic swaps, events) is :class:`tooldeck.manifest._live.LiveManifests`.

Latency: watchfiles waits ``step_ms`` of quiet after a change before it
reports the batch (``debounce_ms`` at most), so an editor's burst of writes
(write to a temp file, rename over, several saves) arrives as one reload. The
defaults (15 ms / 400 ms) keep a save live in a few tens of milliseconds.

Re-importing handler modules (``reload_handlers=True``) has the usual limits
of :func:`importlib.reload`: only the edited module is re-executed (not the
modules it imports), objects other code still holds keep the old behaviour,
module-level state starts over, and classes defined there become new,
distinct classes. It is a development aid; restart for anything structural.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._lastreload import ReloadEvent
from ._log import get_logger
from ._registry import ToolRegistry
from .manifest._live import LiveManifests

if TYPE_CHECKING:
    from ._config import Config

__all__ = ["Watcher", "watch"]

log = get_logger("tooldeck.reload")

DEBOUNCE_MS = 400
STEP_MS = 15
_READY_TICK_MS = 200
_REARM_SECONDS = 1.0
"""Pause before watching again after the file watcher itself failed."""


def _roots(live: LiveManifests) -> list[Path]:
    roots: list[Path] = []
    for path in live.paths:
        root = path if path.is_dir() else path.parent
        roots.append(root.resolve())
    if live.reload_handlers:
        roots.extend(Path(f).parent for f in live.handler_files())
    unique: list[Path] = []
    for root in sorted(set(roots), key=lambda p: len(p.parts)):
        if not any(root.is_relative_to(u) for u in unique):
            unique.append(root)
    return unique


async def watch(
    registry: ToolRegistry,
    paths: Iterable[str | Path],
    *,
    config: Config | Mapping[str, Any] | str | Path | None = None,
    allow_handlers: Iterable[str] = (),
    app_class: type | None = None,
    reload_handlers: bool = False,
    on_reload: Callable[[ReloadEvent], Any] | None = None,
    stop_event: asyncio.Event | None = None,
    ready: Callable[[], Any] | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    step_ms: int = STEP_MS,
) -> None:
    """Load ``paths`` into ``registry`` and keep it in sync until ``stop_event`` is set.

    ``on_reload`` gets every :class:`ReloadEvent`, the initial load included,
    on this coroutine's loop (an ``async def`` one is awaited); ``ready`` is
    called once the file watcher is armed (edits from then on are seen).

    Reading, parsing and importing happen in a worker thread, so the loop
    this runs on keeps serving while a large manifest set loads: registry
    subscribers are called from that thread (see
    :meth:`ToolRegistry.subscribe <tooldeck.ToolRegistry.subscribe>`).
    """
    import watchfiles

    loop = asyncio.get_running_loop()

    live = LiveManifests(
        registry,
        paths,
        config=config,
        allow_handlers=allow_handlers,
        app_class=app_class,
        reload_handlers=reload_handlers,
    )
    if on_reload is not None:
        live.subscribe(_on_loop(loop, on_reload))
    await asyncio.to_thread(live.load)
    roots = _roots(live)
    handler_files = live.handler_files

    def relevant(_: watchfiles.Change, path: str) -> bool:
        try:
            if live.is_manifest(path) or (reload_handlers and path in handler_files()):
                return True
            # A folder moved in or out arrives as one event for the folder itself.
            candidate = Path(path)
            return candidate.is_dir() or not candidate.exists()
        except (OSError, ValueError):  # a name the OS refuses to look at: let apply decide
            return True

    armed = False
    while stop_event is None or not stop_event.is_set():
        try:
            async for changes in watchfiles.awatch(
                *roots,
                watch_filter=relevant,
                debounce=debounce_ms,
                step=step_ms,
                stop_event=stop_event,
                rust_timeout=_READY_TICK_MS,
                yield_on_timeout=True,
                recursive=True,
            ):
                if not armed:
                    armed = True
                    if ready is not None:
                        ready()
                if changes:
                    await asyncio.to_thread(_apply, live, sorted(path for _, path in changes))
            return
        except (Exception, SystemExit) as exc:  # the watch itself broke: re-arm, never end
            log.warning("the manifest watcher failed (%s: %s); re-arming", type(exc).__name__, exc)
            if stop_event is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop_event.wait(), _REARM_SECONDS)
            else:
                await asyncio.sleep(_REARM_SECONDS)
            roots = [root for root in _roots(live) if root.exists()] or roots


def _on_loop(
    loop: asyncio.AbstractEventLoop, callback: Callable[[ReloadEvent], Any]
) -> Callable[[ReloadEvent], None]:
    """``callback`` delivered on ``loop`` whichever thread reloads; coroutines are awaited."""

    running: set[asyncio.Task[None]] = set()  # referenced until done

    def deliver(event: ReloadEvent) -> None:
        try:
            outcome = callback(event)
            if inspect.isawaitable(outcome):
                task = loop.create_task(_await_logged(outcome))
                running.add(task)
                task.add_done_callback(running.discard)
        except (Exception, SystemExit) as exc:
            log.warning("on_reload callback %r failed: %s", callback, exc)

    def schedule(event: ReloadEvent) -> None:
        if loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(deliver, event)

    return schedule


async def _await_logged(awaitable: Any) -> None:
    """Await an async ``on_reload`` callback's coroutine; a failure is logged, not raised."""
    try:
        await awaitable
    except (Exception, SystemExit) as exc:
        log.warning("on_reload callback failed: %s", exc)


def _apply(live: LiveManifests, paths: list[str]) -> None:
    """Feed one batch to ``live``; nothing in a batch may end the watch loop."""
    try:
        live.apply(paths)
    except (Exception, SystemExit) as exc:  # LiveManifests contains file problems already
        log.error("a reload failed inside tooldeck: %s: %s", type(exc).__name__, exc)


class Watcher:
    """The thread-backed form of :func:`watch`, for synchronous applications.

    ``start()`` returns once the watcher is armed and the first load is done;
    ``stop()`` ends it. Also a context manager.
    """

    def __init__(self, registry: ToolRegistry, paths: Iterable[str | Path], **options: Any) -> None:
        self.registry = registry
        self.paths = list(paths)
        self.options = options
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self, timeout: float = 30.0) -> Watcher:
        self._thread = threading.Thread(target=self._run, name="tooldeck-reload", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the manifest watcher did not start in time")
        if self._error is not None:
            raise self._error
        return self

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            await watch(
                self.registry,
                self.paths,
                stop_event=self._stop,
                ready=self._ready.set,
                **self.options,
            )

        try:
            asyncio.run(main())
        except BaseException as exc:  # reported to start(); a running watcher just ends
            self._error = exc
            self._ready.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop watching and wait up to ``timeout`` for the thread; never raises."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(stop.set)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def __enter__(self) -> Watcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
