"""List every ``via: client`` MCP server once, for lint's live checks (TD412-TD414).

Lint needs each server's tool names and input schemas, not registered tools:
this connects to all of them at once, lists, closes, and returns plain data
(:class:`~tooldeck._lint.rules.LiveServer`), so the rules themselves
never import ``mcp``. A server that cannot be reached within the timeout is
a value with its reason, never an exception.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

from .._model import McpServerSpec
from ..mcp._attaching import McpConnection
from .rules import LiveServer

__all__ = ["list_servers"]


async def list_servers(
    servers: Iterable[McpServerSpec], *, connect_timeout: float = 30.0, errlog: Any = None
) -> dict[str, LiveServer]:
    """Each client-side server's tools (name -> input schema) and prompt names, or why it
    could not be listed."""
    chosen = [s for s in servers if s.via == "client"]
    found = await asyncio.gather(*(_list(s, connect_timeout, errlog) for s in chosen))
    return {s.name: live for s, live in zip(chosen, found, strict=True)}


async def _list(spec: McpServerSpec, connect_timeout: float, errlog: Any) -> LiveServer:
    conn = McpConnection(spec, connect_timeout=connect_timeout, errlog=errlog)
    try:
        await conn.start()
        tools = await asyncio.wait_for(conn.list_tools(), connect_timeout)
        prompts: tuple[str, ...] | None = ()  # (no prompts capability: it offers none)
        if conn.offers("prompts"):
            prompts = None
            with contextlib.suppress(Exception):  # (its use: prompt entries go unchecked)
                listed = await asyncio.wait_for(conn.list_prompts(), connect_timeout)
                prompts = tuple(prompt.name for prompt in listed)
    except Exception as exc:  # one server's failure is that server's finding
        return LiveServer(error=conn.describe(exc))
    finally:
        await conn.aclose()
    tools_found = {tool.name: dict(tool.input_schema) for tool in tools}
    return LiveServer(tools=tools_found, prompts=prompts)
