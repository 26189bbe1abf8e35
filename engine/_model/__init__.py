"""The data model: what a tool, a prompt, a result and a hosted tool are.

``tools``: :class:`ToolSpec` with its retry and result shaping, :class:`PromptSpec`;
``resources``: :class:`ResourceSpec`, data a client reads by URI;
``websearch``: provider-hosted web search; ``mcp_servers``: external MCP servers and the
``use:`` tools built on theirs.

Everything here is a frozen, keyword-only dataclass with no I/O. Declarations
(:class:`ToolSpec`, :class:`PromptSpec`) are pure data, their parameters are
:class:`~tooldeck._params.ParamDescriptor` (:mod:`tooldeck._params`); turning
them into JSON Schema lives in :mod:`tooldeck._schema`, checking and binding
arguments in :mod:`tooldeck._binding`, running them in :mod:`tooldeck._calling.pipeline`.
Manifests and code build exactly these objects.
"""

import typing

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .mcp_servers import (
        MCP_APPROVAL_FILTER_KEYS,
        MCP_CALL_TIMEOUT,
        MCP_MAX_REPLY_BYTES,
        MCP_MAX_TOOLS,
        ArgumentReshape,
        McpPromptUse,
        McpServerSpec,
        McpToolUse,
        ToolFilter,
    )
    from .resources import ResourceSpec
    from .tools import DEFAULT_RETRY_ON, PromptSpec, ResultSpec, RetrySpec, ToolSpec
    from .websearch import SEARCH_CONTEXT_SIZES, WEB_SEARCH_TYPES, WebSearchSpec

__all__ = [
    "DEFAULT_RETRY_ON",
    "MCP_APPROVAL_FILTER_KEYS",
    "MCP_CALL_TIMEOUT",
    "MCP_MAX_REPLY_BYTES",
    "MCP_MAX_TOOLS",
    "SEARCH_CONTEXT_SIZES",
    "WEB_SEARCH_TYPES",
    "ArgumentReshape",
    "McpPromptUse",
    "McpServerSpec",
    "McpToolUse",
    "PromptSpec",
    "ResourceSpec",
    "ResultSpec",
    "RetrySpec",
    "ToolFilter",
    "ToolSpec",
    "WebSearchSpec",
]

_EXPORTS: dict[str, str] = {
    "ArgumentReshape": ".mcp_servers",
    "DEFAULT_RETRY_ON": ".tools",
    "MCP_APPROVAL_FILTER_KEYS": ".mcp_servers",
    "MCP_CALL_TIMEOUT": ".mcp_servers",
    "MCP_MAX_REPLY_BYTES": ".mcp_servers",
    "MCP_MAX_TOOLS": ".mcp_servers",
    "McpPromptUse": ".mcp_servers",
    "McpServerSpec": ".mcp_servers",
    "McpToolUse": ".mcp_servers",
    "PromptSpec": ".tools",
    "ResourceSpec": ".resources",
    "ResultSpec": ".tools",
    "RetrySpec": ".tools",
    "SEARCH_CONTEXT_SIZES": ".websearch",
    "ToolFilter": ".mcp_servers",
    "ToolSpec": ".tools",
    "WEB_SEARCH_TYPES": ".websearch",
    "WebSearchSpec": ".websearch",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
