"""What a failed call to an attached server's tool tells the model: the tool it called, once.

The model called ``now``; the server knows the tool as ``get_current_time``
(a ``use:`` entry's remote tool, or a raw tool under a ``prefix``). A message
that named the remote tool would send the model looking for a tool it was
never shown, so every failure of a call names the registry's tool, the one
called, and says the server's own words after it. Servers built on the
``mcp`` SDK (``MCPServer``, FastMCP) start their error text with ``Error
executing tool get_current_time:``; behind tooldeck's ``Error (mcp_error):``
that would name the remote tool and say "Error" twice, so that prefix is
cut (:func:`server_words`) and the rest, the reason, is kept as it is.
"""

from __future__ import annotations

import re

__all__ = ["failed", "server_words", "timed_out", "unavailable"]

_SDK_PREFIX = (
    r"\s*Error (?:executing|calling) tool [\"']?{name}[\"']?(?::\s*|\s*$)"
    r"|\s*Error rendering prompt [\"']?{name}[\"']?(?::\s*|\s*$)"
)
"""How the SDKs' servers start a tool's (or a prompt's) error text (``{name}``: the remote one)."""


def server_words(text: str, remote: str) -> str:
    """The reason in a server's error ``text``, without the SDK's "Error executing tool X:"."""
    pattern = re.compile(_SDK_PREFIX.format(name=re.escape(remote)), re.IGNORECASE)
    reason = pattern.sub("", text, count=1).strip() if pattern.match(text) else text.strip()
    return reason or "it gave no reason"


def failed(name: str, server: str, reason: str, kind: str = "tool") -> str:
    """The call of ``name`` (a ``kind``: tool or prompt) failed on ``server``: its words."""
    return f"{kind} {name!r} on MCP server {server!r} failed: {reason}"


def timed_out(name: str, server: str, timeout: float, kind: str = "tool") -> str:
    return f"{kind} {name!r} on MCP server {server!r} did not answer within {timeout:g} s"


def unavailable(name: str, server: str, why: str, kind: str = "tool") -> str:
    """``name`` cannot be used now: its server is gone, down, or no longer offers it."""
    return f"{kind} {name!r} is unavailable: MCP server {server!r} {why}"
