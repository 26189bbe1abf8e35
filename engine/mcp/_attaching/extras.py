"""What a server offers beside its tools, listed after them: prompts, resources, templates.

Each is asked for only when the server declared its capability, and each
listing is bounded as the tool listing is (count, pages, bytes) and in time
(``connect_timeout``). A failure leaves that kind out, with the reason for
``health()``, and never the server's tools: a server whose ``prompts/list``
breaks still serves its tools.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .connection import describe_error

if TYPE_CHECKING:
    from mcp_types import Prompt, Resource, ResourceTemplate

    from .connection import McpConnection

__all__ = ["Extras", "list_extras"]

log = logging.getLogger("tooldeck.mcp")


@dataclass(frozen=True)
class Extras:
    """One listing of a server's prompts and resources (None: not offered, or it failed)."""

    prompts: list[Prompt] | None = None
    prompts_error: str | None = None
    resources: tuple[list[Resource], list[ResourceTemplate]] | None = None
    resources_error: str | None = None


async def list_extras(conn: McpConnection, server: str, timeout: float) -> Extras:
    """The server's prompts and resources, as far as it offers them and they can be listed."""
    prompts = resources = None
    prompts_error = resources_error = None
    if conn.offers("prompts"):
        try:
            prompts = await asyncio.wait_for(conn.list_prompts(), timeout)
        except Exception as exc:
            prompts_error = f"cannot list prompts: {describe_error(exc)}"
            log.warning("MCP server %r: %s; its prompts are left out", server, prompts_error)
    if conn.offers("resources"):
        try:
            fixed = await asyncio.wait_for(conn.list_resources(), timeout)
            templates = await asyncio.wait_for(conn.list_resource_templates(), timeout)
            resources = (fixed, templates)
            # Hear when they change, to tell the gateway's subscribers (on this connection:
            # a reconnection lists, and so subscribes, again).
            await conn.subscribe_resources([str(r.uri) for r in fixed], timeout)
        except Exception as exc:
            resources_error = f"cannot list resources: {describe_error(exc)}"
            log.warning("MCP server %r: %s; its resources are left out", server, resources_error)
    return Extras(prompts, prompts_error, resources, resources_error)
