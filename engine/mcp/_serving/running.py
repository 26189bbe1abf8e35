"""Running a :class:`~tooldeck.mcp._serving.server.RegistryServer`: over stdio, with the
manifest watcher beside it (``--reload``), with the ``via: client`` servers attached.

:func:`with_reload` and :func:`with_attached` wrap the body that serves, for stdio here and
for HTTP in :mod:`tooldeck.mcp._http.run`, so both transports reload and attach alike.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .approval import DEFAULT_APPROVAL_TIMEOUT
from .observe import notify_observers
from .server import RegistryServer, build_server

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..._registry import ToolRegistry
    from ...manifest._events import ReloadEvent
    from ...providers import Toolset

__all__ = [
    "Reload",
    "serve_stdio",
    "tune_collector_for_serving",
    "with_attached",
    "with_reload",
]


class Reload:
    """What ``--reload`` needs: the manifests to watch and how to load them."""

    def __init__(
        self,
        paths: Sequence[Path],
        *,
        config: Any = None,
        allow_handlers: Sequence[str] = (),
    ) -> None:
        self.paths = list(paths)
        self.config = config
        self.allow_handlers = list(allow_handlers)


def tune_collector_for_serving() -> None:
    """Set the cyclic garbage collector up for a process that now only serves.

    Two changes, both measured under ``benchmarks/serve_load.py`` (16 clients,
    a reload a second), where collections took about a tenth of the server's CPU:

    - Everything alive now (the modules, the loaded registry) is collected
      once and frozen (:func:`gc.freeze`): it lives as long as the process, yet
      every full collection walked all of it again, pausing the server for up
      to 100 ms each time. Reference counting still frees a frozen object that
      is dropped later (a reload's replaced specs); what stays out of the
      collector's reach is a cycle among them that becomes garbage later,
      bounded by what existed at start, never growing with requests or reloads.
    - The second generation is collected 10 times less often (threshold 100
      instead of 10): each request of the ``mcp`` package leaves about 120
      objects in reference cycles, collected as before in the first
      generation; what reaches the second is mostly requests still in flight,
      which a collection walks without freeing. Collections there took a
      third of the collector's time; with the change, a tenth.
    """
    import gc

    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, max(middle, 100), old)


async def with_reload(
    served: RegistryServer, reload: Reload | None, body: Any, *, tune_gc: bool = False
) -> None:
    """Run ``body()`` beside the manifest watcher (when reloading), after the first load.

    ``tune_gc``: once loaded, before serving, set the garbage collector up for
    serving (:func:`tune_collector_for_serving`): for a process that exists to
    serve (the CLI), never for an application that embeds this.
    """
    import asyncio
    import contextlib

    registry = served.registry
    registry.use_loop(asyncio.get_running_loop())
    unsubscribe = registry.subscribe(served.on_registry_change)
    try:
        if reload is None:
            if tune_gc:
                tune_collector_for_serving()
            await body()
            return
        from ..._reload import watch

        loaded = asyncio.Event()
        stop = asyncio.Event()

        def report(event: ReloadEvent) -> None:
            notify_observers(served.reload_observers, event)
            if not event.ok:
                sys.stderr.write("".join(f"  {line}\n" for line in event.lines()))
                sys.stderr.flush()
            loaded.set()

        watcher = asyncio.create_task(
            watch(
                registry,
                reload.paths,
                config=reload.config,
                allow_handlers=reload.allow_handlers,
                on_reload=report,
                stop_event=stop,
            )
        )
        waiting = asyncio.create_task(loaded.wait())
        await asyncio.wait({watcher, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if watcher.done():
            waiting.cancel()
            await watcher  # raises what stopped it
            return
        if tune_gc:
            tune_collector_for_serving()
        try:
            await body()
        finally:
            stop.set()
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher
    finally:
        unsubscribe()


async def serve_stdio(
    registry: ToolRegistry,
    *,
    reload: Reload | None = None,
    name: str = "tooldeck",
    approval_timeout: float = DEFAULT_APPROVAL_TIMEOUT,
    attach: bool = True,
    connect_timeout: float = 30.0,
    toolset: Toolset | None = None,
    tune_gc: bool = False,
) -> None:
    """Serve over stdin/stdout until the client closes them (stdout carries only protocol).

    With ``attach`` (the default) the ``via: client`` servers the manifests
    declare are attached while serving, so their tools are served too.
    ``toolset``: serve only those tools and prompts. ``tune_gc``: see
    :func:`with_reload` (``tooldeck serve`` sets it: the process only serves).
    """
    from mcp.server.stdio import stdio_server

    from .stdin import daemon_stdin

    served = build_server(
        registry,
        name=name,
        list_changed=reload is not None,
        approval_timeout=approval_timeout,
        toolset=toolset,
    )
    # stdin read by a daemon thread: told to stop (SIGTERM, Ctrl-C), serving ends even
    # while the client keeps stdin open, after the attached servers are stopped.
    async with daemon_stdin() as stdin, stdio_server(stdin=stdin) as (read_stream, write_stream):

        async def body() -> None:
            await served.server.run(read_stream, write_stream, served.initialization_options())

        await with_reload(
            served,
            reload,
            with_attached(served, body, attach, connect_timeout),
            tune_gc=tune_gc,
        )


def with_attached(served: RegistryServer, body: Any, attach: bool, connect_timeout: float) -> Any:
    """``body`` with the registry's ``via: client`` servers attached around it.

    The attachment follows the registry: servers a reload declares later are
    attached then, and removed ones detached.
    """
    if not attach:
        return body

    async def attached_body() -> None:
        from .._attaching import attach_servers

        async with attach_servers(served.registry, connect_timeout=connect_timeout) as attachment:
            served.attachment = attachment
            try:
                await body()
            finally:
                served.attachment = None

    return attached_body
