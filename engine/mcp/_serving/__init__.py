"""The registry as an MCP server, and ``serve_stdio`` (HTTP is :mod:`tooldeck.mcp._http`).

``server``: tools and prompts on the ``mcp`` package's low-level server (``refusals``: calls it
answers without running them); ``resources``: resources, templates, reads and subscriptions
(files watched for the subscribed); ``running``: serving
it over stdio, with the manifest watcher and the attached servers beside it; ``output``: output
schemas and structured results; ``approval``: side effects approved by the calling client;
``stdin``: this process's stdin, line by line; ``observe``: what a served call looked like,
for metrics and the audit log; ``caller``, ``clients``, ``shares``: who called, which client
that counts as, and its share of the worker threads.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .approval import DEFAULT_APPROVAL_TIMEOUT, elicit_approval
    from .caller import caller_identity, identity_from_token
    from .clients import address_key, client_address, client_key
    from .observe import CallObserver, CallRecord
    from .running import Reload, serve_stdio, with_attached, with_reload
    from .server import (
        READ_ONLY_TAGS,
        RegistryServer,
        build_server,
        call_result,
    )
    from .shares import CallShares

__all__ = [
    "DEFAULT_APPROVAL_TIMEOUT",
    "READ_ONLY_TAGS",
    "CallObserver",
    "CallRecord",
    "CallShares",
    "RegistryServer",
    "Reload",
    "address_key",
    "build_server",
    "call_result",
    "caller_identity",
    "client_address",
    "client_key",
    "elicit_approval",
    "identity_from_token",
    "serve_stdio",
    "with_attached",
    "with_reload",
]

_EXPORTS: dict[str, str] = {
    "DEFAULT_APPROVAL_TIMEOUT": ".approval",
    "READ_ONLY_TAGS": ".server",
    "CallObserver": ".observe",
    "CallRecord": ".observe",
    "RegistryServer": ".server",
    "Reload": ".running",
    "build_server": ".server",
    "call_result": ".server",
    "caller_identity": ".caller",
    "identity_from_token": ".caller",
    "CallShares": ".shares",
    "address_key": ".clients",
    "client_address": ".clients",
    "client_key": ".clients",
    "elicit_approval": ".approval",
    "serve_stdio": ".running",
    "with_attached": ".running",
    "with_reload": ".running",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
