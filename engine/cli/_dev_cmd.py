"""``tooldeck dev``: watch the manifests and print each change, or what kept the last good."""

from __future__ import annotations

import sys

from tooldeck.cli._common import (
    EXIT_OK,
    Resolved,
    add_allow_errors,
    add_common,
    load,
    refuse_broken,
)

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse


__all__ = ["add_arguments", "run"]


def add_arguments(dev: argparse.ArgumentParser) -> None:
    add_common(dev)
    add_allow_errors(dev)
    dev.add_argument(
        "--reload-handlers",
        action="store_true",
        help="also re-import edited handler modules (see README for the limits)",
    )


def run(args: argparse.Namespace) -> int:
    """The edit loop: every save prints what changed, or the errors that kept the last good."""
    import asyncio
    import time
    from pathlib import Path

    from tooldeck._config import load_config
    from tooldeck._registry import ToolRegistry
    from tooldeck._reload import watch
    from tooldeck._words import plural
    from tooldeck.cli._terminal import one_line
    from tooldeck.manifest._events import ReloadEvent

    refuse_broken(load(args, bundled=False), args)  # a first look, before watching
    resolved = Resolved(args, bundled=False)
    paths = resolved.manifests
    config = load_config(resolved.config)
    registry = ToolRegistry(project_dir=resolved.project_dir, config=config.data)
    first = True

    def show(event: ReloadEvent) -> None:
        nonlocal first
        stamp = time.strftime("%H:%M:%S")
        if first:
            first = False
            loaded = f"{plural(len(registry), 'tool')} from {plural(len(event.files), 'file')}"
            print(f"[{stamp}] loaded {loaded}")
            for line in event.lines():
                if not line.startswith("+ "):
                    print(f"  {one_line(line)}")  # one change or diagnostic per line
        else:
            lines = event.lines() or ["no change"]
            took = f" in {event.duration * 1000:.0f} ms" if event.ok else ""
            print(one_line(f"[{stamp}] {', '.join(Path(f).name for f in event.files)}{took}"))
            for line in lines:
                print(f"  {one_line(line)}")
        sys.stdout.flush()

    def armed() -> None:
        print(f"watching {', '.join(map(str, paths))} (Ctrl-C to stop)", flush=True)

    try:
        asyncio.run(
            watch(
                registry,
                paths,
                config=config,
                allow_handlers=resolved.allow_handlers,
                reload_handlers=args.reload_handlers,
                on_reload=show,
                ready=armed,
            )
        )
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    return EXIT_OK
