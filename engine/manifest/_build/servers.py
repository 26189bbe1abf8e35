"""A manifest's MCP servers and its web search -> McpServerSpec and WebSearchSpec.

Declarations the registry hands on rather than runs: an ``mcp_servers``
entry (durations parsed, ``command`` and ``args`` joined into one argv) and
the file's ``web_search:`` block (its location given one way or the other).
The specs check themselves; their :class:`~tooldeck.RegistrationError` is
reported at the key it names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..._errors import RegistrationError
from ..._model import McpServerSpec, WebSearchSpec
from .._resolve import ResolveError, parse_duration
from .bundle import Path_

if TYPE_CHECKING:
    from .builder import _Builder

__all__ = ["build_server", "build_web_search"]

_LOCATION_KEYS = ("city", "country", "region", "timezone")


def build_server(builder: _Builder, entry: Mapping[str, Any], path: Path_) -> None:
    """One ``mcp_servers`` entry -> the bundle's McpServerSpec; a problem is reported at its key."""
    if builder.duplicate("MCP server", entry["name"], path, builder.bundle.server_paths):
        return
    options = dict(entry)
    try:
        for key in ("cache_ttl", "timeout"):
            if key in options:
                try:
                    options[key] = parse_duration(options[key])
                except ResolveError as exc:
                    builder.report((*path, key), exc.code, exc.message, tool=entry.get("name"))
                    return
        if "command" in options:
            command = options["command"]
            argv = (command,) if isinstance(command, str) else tuple(command)
            options["command"] = argv + tuple(options.pop("args", ()))
        elif "args" in options:
            builder.report(
                (*path, "args"), "TD114", "args applies to a command", tool=entry.get("name")
            )
            return
        for key in ("allowed_tools", "denied_tools"):
            if key in options:
                options[key] = tuple(options[key])
        spec = McpServerSpec(origin=builder.locate(path), bundle=builder.bundle.name, **options)
    except RegistrationError as exc:
        where = path if exc.param is None or exc.param not in entry else (*path, exc.param)
        builder.report(where, exc.code, exc.message, tool=entry.get("name"))
        return
    builder.bundle.servers.append(spec)
    builder.bundle.server_paths[spec.name] = path


def build_web_search(builder: _Builder, entry: Mapping[str, Any]) -> None:
    """``web_search:`` -> the bundle's WebSearchSpec; a bad combination is TD118 at its key."""
    path: Path_ = ("web_search",)
    flat = {k: entry[k] for k in _LOCATION_KEYS if k in entry}
    location = entry.get("user_location")
    if location is not None and flat:
        builder.report(
            (*path, "user_location"),
            "TD118",
            "give the location either as user_location or as "
            f"{', '.join(flat)} directly under web_search, not both",
        )
        return
    filters = entry.get("filters") or {}
    try:
        builder.bundle.web_search = WebSearchSpec(
            type=entry.get("type", "default"),
            search_context_size=entry.get("search_context_size"),
            allowed_domains=(
                tuple(filters["allowed_domains"]) if "allowed_domains" in filters else None
            ),
            bundle=builder.bundle.name,
            origin=builder.locate(path),
            **(location if location is not None else flat),
        )
    except RegistrationError as exc:
        key = exc.param if exc.param is not None and exc.param in entry else "user_location"
        builder.report((*path, key) if key in entry else path, exc.code, exc.message)
