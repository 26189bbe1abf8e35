"""``tooldeck list``: every tool, prompt, MCP server and web search, as text or JSON."""

from __future__ import annotations

import sys

from tooldeck.cli._common import EXIT_OK, EXIT_PROBLEM, add_common, load, report_errors

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from tooldeck._registry import ToolRegistry


__all__ = ["add_arguments", "run"]


def add_arguments(list_cmd: argparse.ArgumentParser) -> None:
    add_common(list_cmd)
    list_cmd.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args: argparse.Namespace) -> int:
    import json

    from tooldeck.providers import definition_tokens, export_tools

    loaded = load(args)
    failed = report_errors(loaded)
    registry = loaded.registry
    tokens = {
        d["name"]: definition_tokens(d)
        for d in export_tools(registry, "anthropic", include_hosted=False)
    }
    rows = [
        _tool_row(registry, spec, tokens[registry.safe_name(spec.name)])
        for spec in registry.tools()
    ]
    prompts = [
        {
            "name": p.name,
            "role": p.role,
            "description": p.description,
            "bundle": p.bundle,
            "params": [x.name for x in p.params],
            "source": _source(p.origin),
        }
        for p in registry.prompts()
    ]
    servers = [
        {
            "name": s.name,
            "via": s.via,
            "url": s.url,
            "command": list(s.command or []),
            "description": s.description,
            "source": _source(s.origin),
        }
        for s in registry.mcp_servers()
    ]
    search = registry.web_search()
    listing = {
        "tools": rows,
        "prompts": prompts,
        "mcp_servers": servers,
        "web_search": None
        if search is None
        else {
            "type": search.type,
            "city": search.city,
            "country": search.country,
            "region": search.region,
        },
    }
    listing["inactive_bundles"] = [
        {"bundle": bundle.name, "file": file, "reason": bundle.inactive_reason}
        for file, bundle in loaded.result.bundles.items()
        if not bundle.active
    ]
    listing = registry.secrets.redact_data(listing)
    if args.json:
        print(json.dumps(listing, indent=2, ensure_ascii=False))
    else:
        _print_listing(listing)
    return EXIT_PROBLEM if failed else EXIT_OK


def _tool_row(registry: ToolRegistry, spec: Any, tokens: int) -> dict[str, Any]:
    schema = registry.input_schema(spec.name)
    required = set(schema.get("required", []))
    params = [
        {
            "name": name,
            "type": prop.get("type", "any"),
            "required": name in required,
            "description": prop.get("description", ""),
        }
        for name, prop in schema.get("properties", {}).items()
    ]
    return {
        "name": spec.name,
        "bundle": spec.bundle,
        "description": spec.description,
        "params": params,
        "source": _source(spec.origin),
        "tokens": tokens,
        "side_effects": spec.side_effects,
        "return_direct": spec.return_direct,
    }


def _source(origin: Any) -> str | None:
    return None if origin is None else str(origin)


def _print_listing(listing: dict[str, Any]) -> None:
    for row in listing["tools"]:
        params = ", ".join(p["name"] if p["required"] else f"[{p['name']}]" for p in row["params"])
        summary = row["description"].splitlines()[0] if row["description"] else "(no description)"
        where = f"  {row['source']}" if row["source"] else ""
        print(f"{row['name']}({params})  [{row['bundle'] or '-'}]  ~{row['tokens']} tokens{where}")
        print(f"    {summary}")
    for prompt in listing["prompts"]:
        print(f"prompt {prompt['name']} ({prompt['role']})  {prompt['description']}")
    for server in listing["mcp_servers"]:
        target = server["url"] or " ".join(server["command"])
        print(f"mcp server {server['name']} via {server['via']}: {target}")
    if listing["web_search"]:
        print(f"web search: {listing['web_search']['type']}")
    for bundle in listing["inactive_bundles"]:
        print(f"bundle {bundle['bundle']} ({bundle['file']}) is not active: {bundle['reason']}")
    if not listing["tools"]:
        print("no tools", file=sys.stderr)
