"""MCP both ways: serve a :class:`~tooldeck.ToolRegistry`, and attach external MCP servers.

The only place, with its submodules, that imports the ``mcp`` package;
``import tooldeck`` never loads it, and names here load their module on first
use (attaching does not import the server side, nor serving the client side).

    from tooldeck.mcp import serve_stdio, attach_servers

    asyncio.run(serve_stdio(registry))               # what `tooldeck serve` runs

    async with attach_servers(registry) as attached:  # `via: client` servers' tools
        await registry.acall("time_get_current_time", {"timezone": "UTC"})
"""

import typing

from tooldeck._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from tooldeck._shadowing import NameHolder, Shadowed
    from tooldeck.mcp._approval import elicit_approval
    from tooldeck.mcp._attach import McpAttachment
    from tooldeck.mcp._attachapi import (
        BackgroundAttachment,
        attach_in_background,
        attach_servers,
    )
    from tooldeck.mcp._server import (
        READ_ONLY_TAGS,
        RegistryServer,
        Reload,
        build_server,
        call_result,
        serve_http,
        serve_stdio,
    )
    from tooldeck.mcp._serverstate import ServerHealth
    from tooldeck.mcp._servertools import group_name

__all__ = [
    "READ_ONLY_TAGS",
    "BackgroundAttachment",
    "McpAttachment",
    "NameHolder",
    "RegistryServer",
    "Reload",
    "ServerHealth",
    "Shadowed",
    "attach_in_background",
    "attach_servers",
    "build_server",
    "call_result",
    "elicit_approval",
    "group_name",
    "serve_http",
    "serve_stdio",
]

_EXPORTS: dict[str, str] = {
    "BackgroundAttachment": "tooldeck.mcp._attachapi",
    "McpAttachment": "tooldeck.mcp._attach",
    "NameHolder": "tooldeck._shadowing",
    "READ_ONLY_TAGS": "tooldeck.mcp._server",
    "RegistryServer": "tooldeck.mcp._server",
    "Reload": "tooldeck.mcp._server",
    "ServerHealth": "tooldeck.mcp._serverstate",
    "Shadowed": "tooldeck._shadowing",
    "attach_in_background": "tooldeck.mcp._attachapi",
    "attach_servers": "tooldeck.mcp._attachapi",
    "build_server": "tooldeck.mcp._server",
    "call_result": "tooldeck.mcp._server",
    "elicit_approval": "tooldeck.mcp._approval",
    "group_name": "tooldeck.mcp._servertools",
    "serve_http": "tooldeck.mcp._server",
    "serve_stdio": "tooldeck.mcp._server",
}


__getattr__ = _lazy_getattr(__name__, _EXPORTS)
