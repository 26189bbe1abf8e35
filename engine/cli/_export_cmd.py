"""``tooldeck export``: print one provider's tool definitions as JSON."""

from __future__ import annotations

import sys

from tooldeck.cli._common import EXIT_OK, EXIT_PROBLEM, add_common, load, report_errors

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse


__all__ = ["add_arguments", "run"]


def add_arguments(export: argparse.ArgumentParser) -> None:
    from tooldeck.cli._attached import add_connect_options

    add_common(export)
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
    export.add_argument("--strict", action="store_true", help="provider strict mode (OpenAI)")


def run(args: argparse.Namespace) -> int:
    import json

    from tooldeck.providers import export_tools

    loaded = load(args)
    failed = report_errors(loaded)
    from tooldeck.cli._attached import with_attached

    registry = loaded.registry
    try:
        definitions = with_attached(
            registry,
            args,
            lambda _: export_tools(
                registry,
                args.provider,
                strict=True if args.strict else None,
                redact=registry.secrets.redact,
            ),
        )
    except ValueError as exc:  # strict mode refuses a schema; the message is already redacted
        print(f"tooldeck: cannot export for {args.provider}: {exc}", file=sys.stderr)
        return EXIT_PROBLEM
    print(json.dumps(definitions, indent=2, ensure_ascii=False))
    return EXIT_PROBLEM if failed else EXIT_OK
