"""External MCP servers attached to a registry as tools.

``api``: ``attach_servers`` and ``attach_in_background``; ``attachment``: the attached
servers as a whole; ``connection``: one live connection; ``transports`` and ``stdio``: every
reply bounded in size; ``listing``: which registry tools one listing yields; ``publish``:
every server's group under the one naming rule; ``state``: one server's health;
``callerrors`` and ``logs``: what failures and logs may show; ``probe``: one listing of a
server's tools, for ``tooldeck import mcp``.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .api import BackgroundAttachment, attach_in_background, attach_servers
    from .attachment import McpAttachment
    from .connection import ConnectionLost, McpConnection, describe_error
    from .listing import group_name
    from .probe import ServerUnreachable, list_server_tools
    from .state import ServerHealth

__all__ = [
    "BackgroundAttachment",
    "ConnectionLost",
    "McpAttachment",
    "McpConnection",
    "ServerHealth",
    "ServerUnreachable",
    "attach_in_background",
    "attach_servers",
    "describe_error",
    "group_name",
    "list_server_tools",
]

_EXPORTS: dict[str, str] = {
    "BackgroundAttachment": ".api",
    "ConnectionLost": ".connection",
    "McpAttachment": ".attachment",
    "McpConnection": ".connection",
    "ServerHealth": ".state",
    "ServerUnreachable": ".probe",
    "attach_in_background": ".api",
    "attach_servers": ".api",
    "describe_error": ".connection",
    "group_name": ".listing",
    "list_server_tools": ".probe",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
