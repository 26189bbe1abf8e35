"""Hosted MCP approval requests in the loop: the registry's approver decides, or they wait.

A hosted MCP server (Responses' ``mcp`` tool) asks before the provider runs
one of its tools (``mcp_approval_request``). The rule is the user's, as for a
local side effect: the registry's approver is asked about a stand-in
:class:`~tooldeck.ToolSpec` named ``server.tool``; with none, or an answer of
:meth:`~tooldeck.Decision.defer`, the request waits among the conversation's
interruptions (:mod:`.pause`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from ..._calling import ApprovalRequest, Decision, as_decision
from ..._model import ToolSpec
from ..._portal import arun_on, run_on

if TYPE_CHECKING:
    from ..._registry import ToolRegistry
    from .records import HostedApproval

__all__ = ["aapprove_hosted", "approve_hosted"]


def approve_hosted(
    registry: ToolRegistry, approval: HostedApproval, context: Mapping[str, Any] | None
) -> Decision:
    outcome = _ask_hosted(registry, approval, context)
    if inspect.isawaitable(outcome):
        try:
            outcome = run_on(registry._env.portal, partial(_awaited, outcome))
        except Exception as exc:
            outcome = _approver_failed(exc)
    return as_decision(outcome)


async def aapprove_hosted(
    registry: ToolRegistry, approval: HostedApproval, context: Mapping[str, Any] | None
) -> Decision:
    outcome = _ask_hosted(registry, approval, context)
    if inspect.isawaitable(outcome):
        try:
            outcome = await arun_on(registry._env.portal, partial(_awaited, outcome))
        except Exception as exc:
            outcome = _approver_failed(exc)
    return as_decision(outcome)


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


# --------------------------------------------------------- hosted MCP approval
def _ask_hosted(
    registry: ToolRegistry, approval: HostedApproval, context: Mapping[str, Any] | None
) -> Any:
    """Ask the registry's approver about a hosted MCP call, as for a local side effect.

    The provider runs the tool, but the rule is the user's: a server whose
    ``require_approval`` asks runs the tool only after the approver (the
    CLI's terminal prompt) says yes. The approver sees a stand-in
    :class:`ToolSpec` named ``server.tool``. Returns a Decision or the
    approver's answer (maybe awaitable); :func:`as_decision` judges it as for
    local tools (only ``True`` or an approving Decision approves).
    """
    policy = registry._policy
    if policy.allow_side_effects:
        return Decision.approve()
    label, name = approval.server_label, approval.name
    if policy.approve is None:  # nobody to ask now: the conversation waits for a decision
        return Decision.defer(f"the hosted MCP tool {name!r} of {label!r} needs approval")
    try:
        arguments = json.loads(approval.arguments or "{}")
    except ValueError:
        arguments = {}
    spec = ToolSpec(
        name=f"{label}.{name}",
        description=f"Tool {name!r} of the hosted MCP server {label!r}.",
        handler=_hosted_handler,
        side_effects=True,
        effect=f"the provider runs {name!r} on the MCP server {label!r}",
    )
    request = ApprovalRequest(
        spec,
        arguments if isinstance(arguments, dict) else {},
        approval.id,
        context=dict(context or {}),
    )
    try:
        return policy.approve(request)
    except Exception as exc:
        return _approver_failed(exc)


def _approver_failed(exc: Exception) -> Decision:
    """A failing approver denies, in the words the call path uses."""
    return Decision.deny(f"approval failed: {type(exc).__name__}: {exc}")


def _hosted_handler() -> None:
    """Never called: the provider runs hosted tools."""
