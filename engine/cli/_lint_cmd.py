"""``tooldeck lint``: load, run the lint rules, report in the chosen format; exit 1 on errors."""

from __future__ import annotations

import sys

from ._common import EXIT_OK, EXIT_PROBLEM, add_common, load

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping
    from typing import Any

    from .._diagnostics import Diagnostic
    from .._lint import LiveServer


__all__ = ["add_arguments", "run"]


def add_arguments(lint: argparse.ArgumentParser) -> None:
    from pathlib import Path

    from ._attached import add_connect_options

    add_common(lint)
    add_connect_options(lint)
    lint.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="manifest files or folders (default: ./manifests)",
    )
    lint.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text")
    lint.add_argument("--strict", action="store_true", help="warnings fail too")
    lint.add_argument(
        "--static",
        action="store_true",
        help="run nothing: read handler modules as source instead of importing them, and "
        "start or contact no MCP server (for CI on pull requests)",
    )


def run(args: argparse.Namespace) -> int:
    from .._diagnostics import Severity
    from .._lint import LintSettings, apply_severity, lint, settings_from
    from ._reporters import get_reporter

    loaded = load(args, args.paths or None, bundled=False, static=args.static)
    # The lint table lives in the project's settings file, read already while loading (a
    # second walk up from the cwd would find the same file, or none).
    project = loaded.resolved.project
    settings, setting_problems = (
        settings_from(project.lint, project.source) if project is not None else (LintSettings(), [])
    )
    found: list[Diagnostic] = [*setting_problems]
    found.extend(apply_severity(loaded.result.diagnostics, settings))
    found.extend(lint(loaded.result, loaded.registry, settings, live=_live(loaded, args)))
    reporter = get_reporter(args.format, secrets=loaded.registry.secrets)
    sys.stdout.write(reporter.render(found, files_checked=len(loaded.result.files)))
    failing = {Severity.ERROR, Severity.WARNING} if args.strict else {Severity.ERROR}
    return EXIT_PROBLEM if any(d.severity in failing for d in found) else EXIT_OK


def _live(loaded: Any, args: argparse.Namespace) -> Mapping[str, LiveServer] | None:
    """What the ``via: client`` MCP servers offer, for the live checks (None: not connected)."""
    from ._attached import client_servers

    if args.static or args.offline or not client_servers(loaded.registry):
        return None
    import asyncio

    from .._lint import list_servers

    return asyncio.run(
        list_servers(loaded.registry.mcp_servers(), connect_timeout=args.connect_timeout)
    )
