"""``tooldeck list``: every tool, prompt, resource, MCP server and web search, as text or JSON.

Connects to ``via: client`` MCP servers first (``--offline`` does not), so
their tools are listed with the local ones and each server says how it is
doing: its tools, what was shadowed, which ``use:`` entries were left out.
"""

from __future__ import annotations

import sys

from ._common import (
    EXIT_OK,
    EXIT_PROBLEM,
    add_allow_errors,
    add_common,
    load,
    refuse_broken,
)

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from .._model import McpServerSpec, ResourceSpec
    from .._registry import ToolRegistry
    from ..mcp._attaching import McpAttachment
    from ._common import Resolved


__all__ = ["add_arguments", "run"]


def add_arguments(list_cmd: argparse.ArgumentParser) -> None:
    from ._attached import add_connect_options

    add_common(list_cmd)
    add_allow_errors(list_cmd)
    add_connect_options(list_cmd)
    list_cmd.add_argument("--json", action="store_true", help="print JSON instead of text")
    list_cmd.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also say which project settings file, manifests, project dir, config and "
        "import folders were used",
    )


def run(args: argparse.Namespace) -> int:
    import json

    from ._attached import with_attached

    loaded = load(args)
    failed = bool(loaded.result.errors)
    refuse_broken(loaded, args)
    registry = loaded.registry

    def listing_of(attachment: McpAttachment | None) -> dict[str, Any]:
        return _listing(registry, attachment, loaded.result.bundles)

    listing = registry.secrets.redact_data(with_attached(registry, args, listing_of))
    if args.verbose:
        listing = {"project": _project(loaded.resolved), **listing}
    if args.json:
        print(json.dumps(listing, indent=2, ensure_ascii=False))
    else:
        _print_listing(listing)
    return EXIT_PROBLEM if failed else EXIT_OK


def _listing(
    registry: ToolRegistry, attachment: McpAttachment | None, bundles: dict[str, Any]
) -> dict[str, Any]:
    from ..providers import definition_tokens, export_tools

    health = attachment.health() if attachment is not None else {}
    tokens = {
        d["name"]: definition_tokens(d)
        for d in export_tools(registry, "anthropic", include_hosted=False)
    }
    rows = [
        _tool_row(registry, spec, tokens[registry.safe_name(spec.name)])
        for spec in registry.tools()
    ]
    prompts = [_prompt_row(registry, p) for p in registry.prompts()]
    servers = [
        {
            "name": s.name,
            "via": s.via,
            "url": _shown_url(s),
            "command": list(s.command or []),
            "description": s.description,
            "source": _source(s.origin),
            "status": _status(health.get(s.name), s.via, attachment is not None),
        }
        for s in registry.mcp_servers()
    ]
    registered = {spec.name for spec in registry.tools()}
    uses: list[dict[str, Any]] = [
        {
            "name": u.name,
            "use": f"{u.server}/{u.tool}",
            "source": _source(u.origin),
        }
        for u in registry.tool_uses()
        if u.name not in registered
    ]
    uses += [
        {
            "name": u.name,
            "use": f"{u.server}/{u.prompt}",
            "source": _source(u.origin),
            "prompt": True,
        }
        for u in registry.prompt_uses()
        if registry.get_prompt(u.name) is None
    ]
    search = registry.web_search()
    listing: dict[str, Any] = {
        "tools": rows,
        "unattached_uses": uses,
        "prompts": prompts,
        "resources": [_resource_row(spec) for spec in registry.resources()],
        "resource_templates": [_resource_row(spec) for spec in registry.resource_templates()],
        "mcp_servers": servers,
        "web_search": None
        if search is None
        else {
            "type": search.type,
            "city": search.city,
            "country": search.country,
            "region": search.region,
            "timezone": search.timezone,
            "search_context_size": search.search_context_size,
            "allowed_domains": None
            if search.allowed_domains is None
            else list(search.allowed_domains),
        },
    }
    listing["inactive_bundles"] = [
        {"bundle": bundle.name, "file": file, "reason": bundle.inactive_reason}
        for file, bundle in bundles.items()
        if not bundle.active
    ]
    return listing


def _shown_url(server: McpServerSpec) -> str | None:
    """The server's url with its password and query values as ``***``, as its errors show it."""
    from .._secrets import server_credentials

    return None if server.url is None else server_credentials(server).redact(server.url)


def _status(health: Any, via: str | None, connected: bool) -> dict[str, Any] | None:
    """A client-side server's state as ``list`` shows it (None for hosted servers)."""
    if via != "client":
        return None
    if not connected or health is None:
        return {"checked": False}
    return {
        "checked": True,
        "ok": health.ok,
        "error": health.error,
        "tools": list(health.tools),
        "shadowed": list(health.shadowed),
        "shadowed_by": {
            lost.name: {
                "kind": lost.holder.kind,
                "name": lost.holder.name,
                "server": lost.holder.server,
                "tool": lost.holder.tool,
            }
            for lost in health.shadowing
        },
        "skipped": list(health.skipped),
        "unresolved": list(health.unresolved),
        "prompts": list(health.prompts),
        "prompts_left_out": list(health.prompts_left_out),
        "resources": list(health.resources),
        "resources_left_out": list(health.resources_left_out),
    }


def _prompt_row(registry: ToolRegistry, prompt: Any) -> dict[str, Any]:
    """A prompt as ``list`` shows it; an attached server's says which server renders it."""
    use = registry.prompt_use(prompt.name)
    remote = prompt.renderer is not None
    server = next((t[4:] for t in prompt.tags if t.startswith("mcp:")), None) if remote else None
    return {
        "name": prompt.name,
        "role": None if remote else prompt.role,  # (a server's prompt: each message's own)
        "description": prompt.description,
        "bundle": prompt.bundle,
        "params": [x.name for x in prompt.params],
        "source": _source(prompt.origin),
        "server": server,
        "use": None if use is None else f"{use.server}/{use.prompt}",
    }


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
        "side_effects": bool(spec.side_effects),  # whether a call waits for approval
        "return_direct": spec.return_direct,
        # What a caller needs (serve --auth, run(auth=)): a token carrying these scopes,
        # and the claims that fill the parameters the model never sees.
        "scopes": list(spec.scopes),
        "from_auth": [
            {"name": param.name, "claim": param.from_auth}
            for param in spec.params
            if param.from_auth is not None
        ],
    }


def _resource_row(spec: ResourceSpec) -> dict[str, Any]:
    """A resource or template as ``list`` shows it: what a client reads, and where it comes from."""
    mime_type = spec.mime_type
    if mime_type is None and spec.file is not None:  # as the reader guesses it
        import mimetypes

        mime_type = mimetypes.guess_type(spec.file)[0] or "application/octet-stream"
    handler = spec.handler
    return {
        "uri": spec.uri,
        "uri_template": spec.uri_template,
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "mime_type": mime_type,
        "file": spec.file,
        "handler": None
        if handler is None
        else f"{getattr(handler, '__module__', '?')}:{getattr(handler, '__qualname__', '?')}",
        "params": [p.name for p in spec.params],
        "bundle": spec.bundle,
        "tags": list(spec.tags),
        "scopes": list(spec.scopes),
        "source": _source(spec.origin),
    }


def _source(origin: Any) -> str | None:
    return None if origin is None else str(origin)


def _project(resolved: Resolved) -> dict[str, Any]:
    """Where this command's configuration came from (``list -v``)."""
    settings = resolved.project
    return {
        "settings": str(settings.source) if settings is not None else None,
        "manifests": [str(m) for m in resolved.manifests],
        "project_dir": str(resolved.project_dir),
        "config": str(resolved.config) if resolved.config is not None else None,
        "allow_handlers": list(resolved.allow_handlers),
        "import_folders": list(resolved.search_last),
    }


def _project_lines(project: dict[str, Any]) -> list[str]:
    settings = project["settings"] or "none found (above the project dir, the manifests, the cwd)"
    return [
        f"settings: {settings}",
        f"manifests: {', '.join(project['manifests'])}",
        f"project dir: {project['project_dir']}",
        f"config: {project['config'] or 'none'}",
        f"allow_handlers: {', '.join(project['allow_handlers']) or '(only tooldeck.handlers)'}",
        f"handler modules import from: {', '.join(project['import_folders'])} "
        "(after installed packages)",
        "",
    ]


def _print_listing(listing: dict[str, Any]) -> None:
    """The listing as text: one line per entry, and a tool's summary on the line below it.

    Each is kept to one line (:func:`~tooldeck.cli._terminal.one_line`): a
    parameter an attached server named, a file name or a server's reply with
    a line break in it must not look like another entry.
    """
    from ._terminal import one_line

    header = _project_lines(listing["project"]) if "project" in listing else []
    for line in [*header, *_lines(listing)]:
        print(one_line(line))
    if not listing["tools"]:
        print("no tools", file=sys.stderr)


def _lines(listing: dict[str, Any]) -> list[str]:
    from .._words import plural

    lines = []
    for row in listing["tools"]:
        params = ", ".join(p["name"] if p["required"] else f"[{p['name']}]" for p in row["params"])
        where = f"  {row['source']}" if row["source"] else ""
        lines.append(
            f"{row['name']}({params})  [{row['bundle'] or '-'}]  "
            f"~{plural(row['tokens'], 'token')}{where}"
        )
        summary = _first_line(row["description"]) if row["description"] else "(no description)"
        lines.append(f"    {summary}")
        if row["scopes"]:
            lines.append(f"    needs scopes: {', '.join(row['scopes'])}")
        for bound in row["from_auth"]:
            lines.append(f"    {bound['name']}: from the caller's token ({bound['claim']})")
    for prompt in listing["prompts"]:
        if prompt["server"] is None:
            how = prompt["role"]
        else:
            how = f"use: {prompt['use']}" if prompt["use"] else f"MCP server {prompt['server']}"
        lines.append(f"prompt {prompt['name']} ({how})  {_first_line(prompt['description'])}")
    for kind, key in (("resource", "resources"), ("resource template", "resource_templates")):
        for resource in listing[key]:
            served = f"file {resource['file']}" if resource["file"] else resource["handler"]
            where = f"  {resource['source']}" if resource["source"] else ""
            lines.append(
                f"{kind} {resource['uri'] or resource['uri_template']}  {resource['name']}  "
                f"[{resource['bundle'] or '-'}]  {resource['mime_type'] or '-'}  {served}{where}"
            )
            if resource["description"]:
                lines.append(f"    {_first_line(resource['description'])}")
            if resource["scopes"]:
                lines.append(f"    needs scopes: {', '.join(resource['scopes'])}")
    for use in listing["unattached_uses"]:
        where = f"  {use['source']}" if use["source"] else ""
        kind = "prompt " if use.get("prompt") else ""
        lines.append(f"{kind}{use['name']}  (use: {use['use']}; not attached){where}")
    for server in listing["mcp_servers"]:
        target = server["url"] or " ".join(server["command"])
        lines.append(f"mcp server {server['name']} via {server['via']}: {target}{_said(server)}")
    if listing["web_search"]:
        lines.append(f"web search: {listing['web_search']['type']}")
    for bundle in listing["inactive_bundles"]:
        lines.append(
            f"bundle {bundle['bundle']} ({bundle['file']}) is not active: {bundle['reason']}"
        )
    return lines


def _first_line(text: str | None) -> str:
    return text.splitlines()[0] if text else ""


def _said(server: dict[str, Any]) -> str:
    from .._words import plural

    status = server.get("status")
    if status is None:
        return ""
    if not status["checked"]:
        return "  (not connected)"
    if status["error"]:
        return f"  (unavailable: {status['error']})"
    count = len(status["tools"])
    parts = [plural(count, "tool")]
    if status["prompts"]:
        parts.append(plural(len(status["prompts"]), "prompt"))
    if status["resources"]:
        parts.append(plural(len(status["resources"]), "resource"))
    if status["shadowed"]:
        parts.append("shadowed: " + ", ".join(status["shadowed"]))
    left_out = status["unresolved"] + status["prompts_left_out"] + status["resources_left_out"]
    if left_out:
        parts.append("left out: " + "; ".join(left_out))
    return "  (" + "; ".join(parts) + ")"
