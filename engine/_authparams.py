"""Parameters filled from the verified caller (``from_auth:``): the plan, built once.

MCP Toolbox calls them "authenticated parameters": a tool that acts for the
signed-in user (``list_my_orders(email)``) must not let the model choose
whose orders, so ``email`` is taken from the caller's token, never from the
arguments. Such a parameter is hidden like an injected one
(:attr:`ParamDescriptor.hidden <tooldeck.ParamDescriptor.hidden>`: no schema,
export or listing shows it); this module is what fills it on each call.

:func:`auth_plan` decides at registration, once: a tool without ``from_auth``
parameters gets no plan (``PreparedTool.from_auth`` is None) and pays nothing
per call; a tool with them is not ``plain`` (:mod:`tooldeck._calling.dispatch`),
so only the pipeline fills them, right after the arguments are accepted and
before hooks, the approver and the handler see them
(:func:`tooldeck._calling.steps.fill_auth`).

A claim is checked against its parameter like any argument (type, enum,
pattern ...): a token whose ``tenant`` claim is a list where the tool takes a
string is refused, not passed on. The refusals are ``not_permitted``: the
model cannot fix them by sending other arguments, only a caller with another
token can.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ._identity import SUBJECT
from ._paramcheck import compile_checker
from ._params import ParamDescriptor
from ._validation import Checker, describe_errors, show_json

if TYPE_CHECKING:
    from ._identity import AuthIdentity
    from ._model import ToolSpec

__all__ = ["AuthParam", "AuthPlan", "AuthRefusal", "auth_plan", "sent_words"]


class AuthRefusal(Exception):
    """The caller's identity cannot fill a required ``from_auth`` parameter; the call is refused."""


def sent_words(param: ParamDescriptor) -> str:
    """What a model (or client) that sends a ``from_auth`` parameter itself is told."""
    return (
        f"{param.name!r} is filled from the caller's identity ({_source(param.from_auth)}), "
        "never from the arguments; do not send it"
    )


_CALLERS = "the caller's"


def _source(claim: str | None, whose: str = "their") -> str:
    if claim == SUBJECT:
        return f"the subject of {whose} token"
    return f"the {claim!r} claim of {whose} token"


@dataclass(frozen=True, slots=True)
class AuthParam:
    """One ``from_auth`` parameter: where its value comes from and how it is checked."""

    param: ParamDescriptor
    check: Checker
    defs: Mapping[str, Any] | None = field(default=None, repr=False)
    """The tool schema's ``$defs``, for explaining a claim whose fragment refers to them."""

    def explain(self, value: Any) -> str:
        """Why ``value`` does not fit the parameter, in the validator's words (rare path)."""
        from ._schema import param_schema
        from ._validation import schema_validator

        bare = replace(self.param, from_auth=None, description="")
        schema: dict[str, Any] = param_schema(bare, defs={})
        if self.defs:
            schema = {**schema, "$defs": dict(self.defs)}
        lines = describe_errors(schema_validator(schema), value, descriptions={})
        lines = [line.removeprefix("$: ") for line in lines]
        return "; ".join(lines) or f"{show_json(value)} does not match the parameter's schema"


@dataclass(frozen=True, slots=True)
class AuthPlan:
    """The ``from_auth`` parameters of one tool, in declaration order."""

    tool: str
    params: tuple[AuthParam, ...]

    def fill(self, arguments: dict[str, Any], auth: AuthIdentity | None) -> None:
        """Put each claim into ``arguments`` (in place); :class:`AuthRefusal` if one cannot be.

        An optional parameter (``required: false`` or a default) whose claim is
        missing keeps its default, or stays absent for the handler's own. A
        claim that is JSON ``null`` counts as missing.
        """
        for one in self.params:
            param = one.param
            claim = param.from_auth
            assert claim is not None
            value = None if auth is None else auth.value(claim)
            if value is None:
                if not param.required:
                    continue
                raise AuthRefusal(self._missing(param, claim, auth))
            if not one.check(value):
                raise AuthRefusal(
                    f"parameter {param.name!r} of tool {self.tool!r} comes from "
                    f"{_source(claim, _CALLERS)} (not from the model), and its value is "
                    f"not valid for the parameter: {one.explain(value)}; the call was not run"
                )
            arguments[param.name] = value

    def _missing(self, param: ParamDescriptor, claim: str, auth: AuthIdentity | None) -> str:
        what = (
            f"parameter {param.name!r} of tool {self.tool!r} comes from {_source(claim, _CALLERS)}"
        )
        if auth is None:
            return (
                f"{what}, not from the model, and this call has no authenticated caller; "
                "the call was not run"
            )
        carried = "no subject" if claim == SUBJECT else f"no {claim!r} claim (or a null one)"
        return (
            f"{what}, not from the model, and the caller's token carries {carried}; "
            "the call was not run"
        )


def auth_plan(spec: ToolSpec, root_defs: Mapping[str, Any] | None) -> AuthPlan | None:
    """The plan for ``spec``'s ``from_auth`` parameters; None (the common case) when it has none."""
    found = tuple(
        AuthParam(p, compile_checker(replace(p, from_auth=None), root_defs=root_defs), root_defs)
        for p in spec.params
        if p.from_auth is not None
    )
    return AuthPlan(spec.name, found) if found else None
