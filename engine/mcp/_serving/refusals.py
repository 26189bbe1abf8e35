"""Calls a served endpoint answers itself, without running anything: who may not call what.

A tool outside the endpoint's toolset is unknown there (as if absent), and a tool
with side effects needs the side-effects scope when the server authenticates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._identity import missing_scopes

if TYPE_CHECKING:
    from ..._calltypes import ToolResult
    from ..._identity import AuthIdentity
    from ..._model import ToolSpec
    from ..._registry import ToolRegistry
    from ...providers import Toolset

__all__ = ["outside_toolset", "side_effects_refused"]


def side_effects_refused(
    scope: str | None, spec: ToolSpec | None, caller: AuthIdentity | None
) -> ToolResult | None:
    """A tool with side effects, over authenticated HTTP, for a token without the scope.

    Approval by elicitation is only as good as the client that answers it, and
    a client can answer its own questions; it cannot grant itself a scope, which
    the token's issuer (or the tokens file) decides.
    """
    if scope is None or spec is None or not spec.side_effects or caller is None:
        return None
    if scope in caller.scopes or missing_scopes(spec.scopes, caller):
        return None  # (a tool it may not see at all is refused by the registry, as such)
    from ..._calling import error_result, new_call_id

    return error_result(
        "not_permitted",
        f"the tool {spec.name!r} has side effects, which this server runs only for a "
        f"token carrying the scope {scope}; this caller's token does not carry it, so "
        "the call was not run",
        tool_name=spec.name,
        call_id=new_call_id(),
    )


def outside_toolset(
    toolset: Toolset | None,
    registry: ToolRegistry,
    name: str,
    spec: ToolSpec | None,
    caller: AuthIdentity | None,
) -> ToolResult | None:
    """A name this endpoint does not serve: unknown here, as if absent.

    The names the error offers are the ones this endpoint serves to this
    caller, never a tool of another toolset or one the caller may not see.
    """
    if toolset is None or toolset.everything:
        return None
    if spec is not None and toolset.admits(spec, registry):
        return None
    from ..._calling import new_call_id, unknown_tool

    served = [
        other.name
        for other in registry.tools()
        if toolset.admits(other, registry) and not missing_scopes(other.scopes, caller)
    ]
    return unknown_tool(name, served, new_call_id())
