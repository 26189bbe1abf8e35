"""``tooldeck dev``: watch the manifests and print each change, or what kept the last good."""

from __future__ import annotations

import sys

from ._common import (
    EXIT_OK,
    Resolved,
    add_allow_errors,
    add_common,
    add_media_cap,
    load,
    refuse_broken,
)

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from .._registry import ToolRegistry
    from ..mcp._attaching import McpAttachment


__all__ = ["add_arguments", "run"]


def add_arguments(dev: argparse.ArgumentParser) -> None:
    from ._attached import add_connect_options

    add_common(dev)
    add_media_cap(dev)
    add_allow_errors(dev)
    add_connect_options(dev)
    dev.add_argument(
        "--reload-handlers",
        action="store_true",
        help="also re-import edited handler modules (see docs/guides/hot-reload.md for the limits)",
    )


def run(args: argparse.Namespace) -> int:
    """The edit loop: every save prints what changed, or the errors that kept the last good.

    The ``via: client`` servers the manifests declare are attached (unless
    ``--offline``), as ``serve`` attaches them: the tool count includes the
    ``use:`` entries, and after each save what the servers left out (a
    ``use:`` entry naming a tool the server does not have) is printed with
    the change, instead of "no change".
    """
    import asyncio
    import contextlib
    import time
    from pathlib import Path

    from .._config import load_config
    from .._registry import ToolRegistry
    from .._reload import watch
    from .._words import plural
    from ..manifest._events import ReloadEvent
    from ._attached import client_servers
    from ._terminal import one_line

    first_look = load(args, bundled=False)  # judged before watching, as serve judges it
    refuse_broken(first_look, args)
    attach = not args.offline and bool(client_servers(first_look.registry))
    first_look.registry.close()
    resolved = Resolved(args, bundled=False)
    paths = resolved.manifests
    config = load_config(resolved.config)
    registry = ToolRegistry(
        project_dir=resolved.project_dir,
        config=config.data,
        max_media_bytes=resolved.max_media_bytes,
    )
    first = True
    attachment: McpAttachment | None = None
    reported: set[str] = set()

    async def servers_say() -> list[str]:
        """What the attached servers newly left out or failed on, since the last save."""
        if attachment is None:
            return []
        await registry.arefresh_sources()  # lazy and expired servers, to report on them too
        now = set(_health_lines(attachment))
        new = sorted(now - reported)
        reported.clear()
        reported.update(now)
        return new

    async def show(event: ReloadEvent) -> None:
        nonlocal first
        stamp = time.strftime("%H:%M:%S")
        said = await servers_say()
        if first:
            first = False
            loaded = f"{plural(len(registry), 'tool')} from {plural(len(event.files), 'file')}"
            print(f"[{stamp}] loaded {loaded}")
            lines = [line for line in event.lines() if not line.startswith("+ ")]
            for line in [*lines, *said]:
                print(f"  {one_line(line)}")  # one change or diagnostic per line
        else:
            lines = [*event.lines(), *said] or ["no change"]
            took = f" in {event.duration * 1000:.0f} ms" if event.ok else ""
            print(one_line(f"[{stamp}] {', '.join(Path(f).name for f in event.files)}{took}"))
            for line in lines:
                print(f"  {one_line(line)}")
        sys.stdout.flush()

    def armed() -> None:
        print(f"watching {', '.join(map(str, paths))} (Ctrl-C to stop)", flush=True)

    async def watching() -> None:
        nonlocal attachment
        registry.use_loop(asyncio.get_running_loop())
        following = (
            _attached(registry, args.connect_timeout) if attach else contextlib.nullcontext()
        )
        async with following as attached:
            attachment = attached
            await watch(
                registry,
                paths,
                config=config,
                allow_handlers=resolved.allow_handlers,
                reload_handlers=args.reload_handlers,
                on_reload=show,
                ready=armed,
            )

    try:
        asyncio.run(watching())
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    return EXIT_OK


def _attached(registry: ToolRegistry, connect_timeout: float) -> Any:
    """The attachment that follows the registry: servers a save declares are attached then."""
    from ..mcp._attaching import attach_servers

    return attach_servers(registry, connect_timeout=connect_timeout)


def _health_lines(attachment: McpAttachment) -> list[str]:
    """One line per server failure, tool left out or use: entry unresolved."""
    from ._attached import shadowed_words
    from ._terminal import quoted

    lines = []
    for name, health in attachment.health().items():
        where = f"MCP server {quoted(name)}"
        if health.error is not None:
            lines.append(f"! {where}: {health.error}")
        lines.extend(f"! {where}: {shadowed_words(lost)}" for lost in health.shadowing)
        lines.extend(f"! {where}: left out {line}" for line in health.unresolved)
    return [attachment.registry.secrets.redact(line) for line in lines]
