"""The lint rule for tools (and resources) that expect an authenticated caller while none is
configured (TD415).

``auth: {scopes}`` and ``from_auth:`` only mean something when calls carry
a verified identity: ``tooldeck serve`` with authentication on, or an
application that passes ``auth=``. A project whose serve settings leave
authentication off (``[tool.tooldeck.serve] auth``, absent or ``"none"``:
:attr:`LintSettings.serve_auth <tooldeck._lint.rules.LintSettings.serve_auth>`)
serves such tools to everyone, or serves a tool whose every call is refused,
which is what this rule says, at the key that asks for the identity.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .._diagnostics import Diagnostic, Severity
from .rules import LintContext, rule

__all__: list[str] = []

_FIX = 'set [tool.tooldeck.serve] auth (e.g. auth = "jwt") or pass auth= where the tools run'


@rule("TD415", "auth-without-authentication", Severity.WARNING)
def _auth_without_authentication(ctx: LintContext) -> Iterator[Diagnostic]:
    """A tool or resource declares ``auth: {scopes}``, or a tool a ``from_auth:`` parameter,
    while the project's serve settings leave authentication off
    (``[tool.tooldeck.serve] auth`` absent or ``none``).

    Why: scopes are checked against the caller's verified token; served without
    authentication there is no token, so every caller may call the tool. A
    ``from_auth`` parameter is filled from that token; without one, every call
    of the tool is refused (an optional one always takes its default).

    Bad:  ``auth: {scopes: [orders:write]}`` with no ``[tool.tooldeck.serve] auth``
    Good: ``[tool.tooldeck.serve] auth = "jwt"`` (or the scopes removed, or the tools run
    only through ``run(..., auth=identity)``, with this rule turned off)
    """
    if ctx.settings.serve_auth != "none":
        return
    seen_files: set[str] = set()
    for bundle in ctx.result.bundles.values():
        data = ctx.result.documents[bundle.file].data or {}
        served = bundle.tools or bundle.uses or bundle.resources
        if _scopes(data) and served and bundle.file not in seen_files:
            seen_files.add(bundle.file)
            what = "tool" if not bundle.resources else "tool and resource"
            what = "resource" if not (bundle.tools or bundle.uses) else what
            yield ctx.at(
                bundle,
                ("auth",),
                "TD415",
                f"every {what} of bundle {bundle.name!r} declares scopes, but authentication is "
                f"off: without it every caller may {_verb(what)} them; {_FIX}",
                key=True,
            )
        resources = data.get("resources") if isinstance(data, Mapping) else None
        for spec in bundle.resources:  # a resource's own scopes: listed and read by everyone
            path = bundle.resource_paths[spec.key]
            index = path[1]
            entry = (
                resources[index] if isinstance(resources, list) and isinstance(index, int) else None
            )
            if _scopes(entry):
                yield ctx.at(
                    bundle,
                    (*path, "auth"),
                    "TD415",
                    f"resource {spec.key!r} declares scopes, but authentication is off: "
                    f"without it every client may read it; {_FIX}",
                    spec.name,
                    key=True,
                )
        entries = data.get("tools") if isinstance(data, Mapping) else None
        for use in bundle.uses:  # an attached server's tool, scoped like a tool of our own
            path = bundle.tool_paths[use.name]
            index = path[1]
            entry = entries[index] if isinstance(entries, list) and isinstance(index, int) else None
            if _scopes(entry):
                yield ctx.at(
                    bundle,
                    (*path, "auth"),
                    "TD415",
                    f"tool {use.name!r} (use: {use.server}/{use.tool}) declares scopes, but "
                    f"authentication is off: without it every caller may call the tool; {_FIX}",
                    use.name,
                    key=True,
                )
    for bundle, spec, path, entry in ctx.tools():
        if _scopes(entry):
            yield ctx.at(
                bundle,
                (*path, "auth"),
                "TD415",
                f"tool {spec.name!r} declares scopes, but authentication is off: without it "
                f"every caller may call the tool; {_FIX}",
                spec.name,
                key=True,
            )
        params = entry.get("params")
        for index, raw in enumerate(params if isinstance(params, list) else ()):
            if not isinstance(raw, Mapping) or "from_auth" not in raw:
                continue
            optional = "default" in raw or raw.get("required") is False
            outcome = (
                "it always takes its default"
                if optional
                else "every call of the tool is refused (not_permitted)"
            )
            yield ctx.at(
                bundle,
                (*path, "params", index, "from_auth"),
                "TD415",
                f"parameter {raw.get('name')!r} of tool {spec.name!r} is filled from the "
                f"caller's token, but authentication is off: there is no token, so {outcome}; "
                f"{_FIX}",
                spec.name,
                key=True,
            )


def _verb(what: str) -> str:
    return {"tool": "call", "resource": "read"}.get(what, "call or read")


def _scopes(owner: Any) -> bool:
    auth = owner.get("auth") if isinstance(owner, Mapping) else None
    return isinstance(auth, Mapping) and bool(auth.get("scopes"))
