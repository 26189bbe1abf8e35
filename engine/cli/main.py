"""``tooldeck`` subcommands: parse arguments, build the registry, execute, exit code.

Exit codes: 0 success, 1 the command ran and found a problem (an error
result, lint errors), 2 usage errors (bad flags, unreadable input).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.registry import ToolRegistry

__all__ = ["build_parser", "main"]

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tooldeck",
        description="Declare, validate, call and export LLM tools.",
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--project-dir",
        type=Path,
        default=None,
        help="directory file tools are confined to (default: the current directory)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    list_cmd = sub.add_parser("list", parents=[common], help="list tools and prompts")
    list_cmd.add_argument("--json", action="store_true", help="print JSON instead of text")

    call_cmd = sub.add_parser("call", parents=[common], help="call one tool and print its result")
    call_cmd.add_argument("name", help="tool name")
    call_cmd.add_argument("--args", default="{}", help="arguments as a JSON object")
    return parser


def build_registry(args: argparse.Namespace) -> ToolRegistry:
    """The bundled read-only file tools, registered through the programmatic API."""
    from handlers import files

    project_dir = args.project_dir or Path.cwd()
    registry = ToolRegistry(project_dir=project_dir)
    for handler in (files.read_file, files.list_dir, files.search_text, files.file_info):
        registry.add_tool(None, None, handler, bundle="files")
    return registry


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    registry = build_registry(args)
    if args.command == "list":
        return _list(registry, as_json=args.json)
    return _call(registry, args.name, args.args)


def _list(registry: ToolRegistry, *, as_json: bool) -> int:
    rows: list[dict[str, Any]] = []
    for spec in registry.tools():
        schema = registry.input_schema(spec.name)
        rows.append(
            {
                "name": spec.name,
                "bundle": spec.bundle,
                "description": spec.description,
                "params": list(schema["properties"]),
                "required": schema.get("required", []),
            }
        )
    if as_json:
        print(json.dumps({"tools": rows}, indent=2, ensure_ascii=False))
        return EXIT_OK
    for row in rows:
        params = ", ".join(p if p in row["required"] else f"[{p}]" for p in row["params"])
        summary = row["description"].splitlines()[0] if row["description"] else ""
        print(f"{row['name']}({params})  {summary}")
    return EXIT_OK


def _call(registry: ToolRegistry, name: str, arguments: str) -> int:
    result = registry.call(name, arguments)
    if result.ok:
        print(result.text)
        return EXIT_OK
    print(result.text, file=sys.stderr)
    return EXIT_PROBLEM
