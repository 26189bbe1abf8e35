"""The registry as an MCP server: ``serve_stdio``, ``serve_http``.

``server``: tools and prompts on the ``mcp`` package's low-level server; ``output``: output
schemas and structured results; ``approval``: side effects approved by the calling client;
``stdin``: this process's stdin, line by line.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .approval import elicit_approval
    from .server import (
        READ_ONLY_TAGS,
        RegistryServer,
        Reload,
        build_server,
        call_result,
        serve_http,
        serve_stdio,
    )

__all__ = [
    "READ_ONLY_TAGS",
    "RegistryServer",
    "Reload",
    "build_server",
    "call_result",
    "elicit_approval",
    "serve_http",
    "serve_stdio",
]

_EXPORTS: dict[str, str] = {
    "READ_ONLY_TAGS": ".server",
    "RegistryServer": ".server",
    "Reload": ".server",
    "build_server": ".server",
    "call_result": ".server",
    "elicit_approval": ".approval",
    "serve_http": ".server",
    "serve_stdio": ".server",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
