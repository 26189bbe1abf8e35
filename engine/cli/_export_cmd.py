"""``tooldeck export``: print one provider's tool definitions as JSON.

``--strict auto|true|false`` (``--strict`` alone is ``true``) and the
selectors ``--bundle``, ``--tag`` and ``--tool`` (repeatable, a union) map
onto :func:`tooldeck.providers.export_tools`. What the export could not send
as declared (a tool sent non-strict, a hosted entry the provider cannot
take) is printed on standard error, one ``tooldeck: warning:`` line each;
standard output carries only the JSON.
"""

from __future__ import annotations

import sys

from ._common import (
    EXIT_OK,
    EXIT_PROBLEM,
    EXIT_USAGE,
    add_allow_errors,
    add_common,
    load,
    refuse_broken,
)

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse

    from ._common import Loaded


__all__ = ["add_arguments", "run"]

_STRICT = {"auto": None, "true": True, "false": False}


def add_arguments(export: argparse.ArgumentParser) -> None:
    from ._attached import add_connect_options

    add_common(export)
    add_allow_errors(export)
    add_connect_options(export)
    export.add_argument(
        "--provider",
        required=True,
        choices=(
            "openai-responses",
            "openai-chat",
            "anthropic",
            "gemini",
            "mcp",
        ),
    )
    export.add_argument(
        "--strict",
        nargs="?",
        const="true",
        default="auto",
        choices=tuple(_STRICT),
        help="OpenAI strict mode: auto (default: each tool's own setting, strict when its schema "
        "allows), true (--strict alone) or false; a tool that cannot be strict goes out "
        "without it, with a warning",
    )
    for flag, dest, what in (
        ("--bundle", "bundles", "the tools of this bundle"),
        ("--tag", "tags", "the tools with this tag"),
        ("--tool", "names", "this tool (or hosted entry: web_search, an MCP server's name)"),
    ):
        export.add_argument(
            flag,
            dest=dest,
            action="append",
            metavar=flag[2:].upper(),
            help=f"export {what}; repeatable, and all selectors add up (a union)",
        )
    from ._serve_settings import add_toolset_argument

    add_toolset_argument(export, "export")


def run(args: argparse.Namespace) -> int:
    import json

    from ..providers import ExportError, ExportWarning, export_tools
    from ._serve_settings import selectors_from_toolset

    selectors_from_toolset(args)
    loaded = load(args)
    failed = bool(loaded.result.errors)
    refuse_broken(loaded, args)
    from ._attached import with_attached

    registry = loaded.registry
    warnings: list[ExportWarning] = []
    try:
        definitions = with_attached(
            registry,
            args,
            lambda _: export_tools(
                registry,
                args.provider,
                strict=_STRICT[args.strict],
                redact=registry.secrets.redact,
                bundles=args.bundles,
                tags=args.tags,
                names=args.names,
                warnings=warnings,
            ),
        )
    except ExportError as exc:
        if exc.tool_name is None:  # a selector that matches nothing: the command line is wrong
            return _usage(loaded, args, exc)
        print(f"tooldeck: cannot export for {args.provider}: {exc}", file=sys.stderr)
        return EXIT_PROBLEM
    for warning in warnings:
        print(f"tooldeck: warning: {warning}", file=sys.stderr)
    print(json.dumps(definitions, indent=2, ensure_ascii=False))
    return EXIT_PROBLEM if failed else EXIT_OK


def _usage(loaded: Loaded, args: argparse.Namespace, exc: Exception) -> int:
    """Exit 2 for a selector that matches nothing, saying which bundles are inactive."""
    message = str(exc)
    inactive = {
        bundle.name: bundle.inactive_reason
        for bundle in loaded.result.bundles.values()
        if not bundle.active
    }
    for name in args.bundles or ():
        if name in inactive:
            message += f"; bundle {name!r} is not active here: {inactive[name]}"
    print(f"tooldeck: export: {message}", file=sys.stderr)
    return EXIT_USAGE
