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

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .._shadowing import NameHolder, Shadowed
    from ._attaching import (
        BackgroundAttachment,
        McpAttachment,
        ServerHealth,
        attach_in_background,
        attach_servers,
        group_name,
    )
    from ._http import AuthOptions, HttpOptions, ServeOptionsError, serve_http
    from ._serving import (
        READ_ONLY_TAGS,
        RegistryServer,
        Reload,
        build_server,
        call_result,
        elicit_approval,
        serve_stdio,
    )

__all__ = [
    "READ_ONLY_TAGS",
    "AuthOptions",
    "BackgroundAttachment",
    "HttpOptions",
    "McpAttachment",
    "NameHolder",
    "RegistryServer",
    "Reload",
    "ServeOptionsError",
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
    "BackgroundAttachment": "._attaching",
    "McpAttachment": "._attaching",
    "NameHolder": ".._shadowing",
    "READ_ONLY_TAGS": "._serving",
    "RegistryServer": "._serving",
    "Reload": "._serving",
    "ServerHealth": "._attaching",
    "Shadowed": ".._shadowing",
    "attach_in_background": "._attaching",
    "attach_servers": "._attaching",
    "build_server": "._serving",
    "call_result": "._serving",
    "elicit_approval": "._serving",
    "group_name": "._attaching",
    "serve_http": "._http",
    "AuthOptions": "._http",
    "HttpOptions": "._http",
    "ServeOptionsError": "._http",
    "serve_stdio": "._serving",
}


__getattr__ = _lazy_getattr(__name__, _EXPORTS)
