"""Reshape an attached MCP tool as a manifest's ``use:`` entry says: pure, no I/O, no ``mcp``.

A ``use: SERVER/TOOL`` entry (:class:`~tooldeck._model.McpToolUse`) renames
the tool, rewrites its description, and through ``args`` renames or
re-describes arguments, gives them defaults, or hides them behind a fixed
value. :func:`reshape` turns the remote tool's live input schema into the
schema the model sees plus a function that maps the model's arguments back
to the remote names (filling defaults and fixed values), so the registry
validates against the reshaped schema and the server receives what it
expects. The same function gives lint its findings, as :class:`Problem`
values, when it checks an entry against a live server.

The reshaped schema is closed: it takes exactly the arguments it shows,
whatever the server's schema says about other properties. A model that sends
an old name, a hidden argument or a key of its own invention gets
``invalid_arguments`` naming it ("'timezone' is called 'tz' here"), never a
call that quietly went out with the default instead; the words for the names
an entry took away are :attr:`Reshaped.refused`, carried on the tool as
:attr:`ToolSpec.refused_arguments <tooldeck.ToolSpec.refused_arguments>`. The
root ``title`` (the server's name for its arguments, ``get_current_timeArguments``)
and a renamed argument's ``title`` would describe the remote tool, so they go.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ._errors import ToolFailed
from ._model import McpToolUse, ToolSpec
from ._params import MISSING
from ._validation import show_json

__all__ = ["Problem", "Reshaped", "reshape", "reshape_tool"]

Forward = Callable[[Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Problem:
    """One way a ``use:`` entry does not fit the server's tool, for lint and logs."""

    message: str
    argument: str | None = None
    """The ``args`` key the problem is about (None: the entry as a whole)."""
    field: str | None = None
    """The key inside that argument's entry (``name``, ``default``, ``value``)."""


@dataclass(frozen=True)
class Reshaped:
    """The schema the model sees and how its arguments become the server's."""

    schema: dict[str, Any]
    forward: Forward
    problems: tuple[Problem, ...] = ()
    refused: Mapping[str, str] = field(default_factory=dict)
    """The remote names the model must not send (old names, hidden arguments) -> why."""


_OPEN_KEYWORDS = ("additionalProperties", "patternProperties", "unevaluatedProperties")
"""Root keywords that let arguments in beyond ``properties``: replaced by a closed schema."""


def reshape(use: McpToolUse, remote_schema: Mapping[str, Any]) -> Reshaped:
    """Apply ``use.arguments`` to ``remote_schema``; problems come back as values.

    An entry with problems still gets a usable result when possible (the bad
    argument entries are ignored), but callers that register tools should
    refuse it: a tool the manifest describes wrongly should not reach a model.
    """
    schema = dict(remote_schema)  # shallow: only what changes is copied (schemas may nest deep)
    declared_props = schema.get("properties")
    remote_props: Mapping[str, Any] = (
        {k: v for k, v in declared_props.items() if isinstance(k, str)}
        if isinstance(declared_props, Mapping)
        else {}
    )
    remote_required = [r for r in schema.get("required", ()) if isinstance(r, str)]
    problems: list[Problem] = []

    renamed: dict[str, str] = {}  # remote -> shown
    hidden: dict[str, Any] = {}  # remote -> fixed value
    defaults: dict[str, Any] = {}  # remote -> default
    descriptions: dict[str, str] = {}
    for remote, how in use.arguments.items():
        if remote not in remote_props:
            known = ", ".join(sorted(remote_props)) or "none"
            problems.append(
                Problem(
                    f"{use.tool!r} on MCP server {use.server!r} has no argument {remote!r} "
                    f"(its arguments: {known})",
                    remote,
                )
            )
            continue
        subschema = remote_props[remote]
        if how.hidden:
            bad = _violation(schema, subschema, how.value)
            if bad:
                problems.append(Problem(f"value for {remote!r}: {bad}", remote, "value"))
                continue
            hidden[remote] = how.value
            continue
        if how.default is not MISSING:
            bad = _violation(schema, subschema, how.default)
            if bad:
                problems.append(Problem(f"default for {remote!r}: {bad}", remote, "default"))
                continue
            defaults[remote] = how.default
        if how.name is not None and how.name != remote:
            renamed[remote] = how.name
        if how.description is not None:
            descriptions[remote] = how.description

    shown_props: dict[str, Any] = {}
    shown_to_remote: dict[str, str] = {}
    for remote, subschema in remote_props.items():
        if remote in hidden:
            continue
        shown = renamed.get(remote, remote)
        if shown in shown_to_remote:
            problems.append(
                Problem(
                    f"argument {remote!r} is renamed to {shown!r}, which the remote tool's "
                    f"argument {shown_to_remote[shown]!r} is already called",
                    remote,
                    "name",
                )
            )
            continue
        sub = dict(subschema) if isinstance(subschema, Mapping) else subschema
        if isinstance(sub, dict):
            if remote in renamed:
                sub.pop("title", None)  # "Timezone" for tz: the remote name, not this one
            if remote in descriptions:
                sub["description"] = descriptions[remote]
            if remote in defaults:
                sub["default"] = defaults[remote]
        shown_props[shown] = sub
        shown_to_remote[shown] = remote
    # The names the model must not send: hidden arguments and the old names of renamed ones.
    refused = {
        remote: f"{remote!r} is called {renamed[remote]!r} here"
        if remote in renamed
        else f"{remote!r} is set by the tool itself and cannot be given"
        for remote in sorted((set(hidden) | set(renamed)) - set(shown_to_remote))
    }
    schema.pop("title", None)
    for key in _OPEN_KEYWORDS:
        schema.pop(key, None)
    schema["properties"] = shown_props
    schema["additionalProperties"] = False
    required = [
        renamed.get(r, r)
        for r in remote_required
        if r not in hidden and r not in defaults and renamed.get(r, r) in shown_to_remote
    ]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)

    fixed = dict(hidden)
    fallback = dict(defaults)

    def forward(arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The server's arguments; a name the schema does not show is refused, never dropped.

        The registry validates against the closed schema first, so this only
        fires for a caller that skipped validation.
        """
        out: dict[str, Any] = {}
        for key, value in arguments.items():
            remote = shown_to_remote.get(key)
            if remote is None:
                why = refused.get(key) or f"unexpected argument {key!r}"
                raise ToolFailed(f"invalid arguments: {why}", kind="invalid_arguments")
            out[remote] = value
        for remote, value in fallback.items():
            if remote not in out:
                out[remote] = copy.deepcopy(value)
        for remote, value in fixed.items():
            out[remote] = copy.deepcopy(value)
        return out

    return Reshaped(schema, forward, tuple(problems), refused)


def reshape_tool(
    use: McpToolUse,
    remote_schema: Mapping[str, Any],
    remote_description: str | None,
    handler_for: Callable[[Forward], Callable[..., Any]],
    *,
    side_effects: bool | None,
    hints: Mapping[str, bool] | None = None,
) -> tuple[ToolSpec | None, tuple[Problem, ...]]:
    """The registry's tool for ``use`` (None when the entry does not fit), and its problems.

    ``handler_for(forward)`` builds the handler that sends the forwarded
    arguments to the server; ``side_effects`` is the server's word (None: it
    says nothing), which an explicit ``side_effects`` in the entry overrides;
    ``hints`` are the annotations the server listed the tool with, passed on.
    """
    shaped = reshape(use, remote_schema)
    if shaped.problems:
        return None, shaped.problems
    description = use.description or remote_description or use.template.description
    spec = replace(
        use.template,
        description=description,
        handler=handler_for(shaped.forward),
        input_schema=shaped.schema,
        refused_arguments=shaped.refused,
        side_effects=side_effects if use.side_effects is None else use.side_effects,
        hints=dict(hints or {}),
    )
    return spec, ()


def _violation(root: Mapping[str, Any], subschema: Any, value: Any) -> str | None:
    """Why ``value`` does not fit ``subschema`` (resolving refs against ``root``), or None."""
    import jsonschema

    if not isinstance(subschema, Mapping | bool):
        return None
    target: Any = subschema
    if isinstance(subschema, Mapping) and ("$defs" in root or "definitions" in root):
        target = {**subschema}
        for key in ("$defs", "definitions"):
            if key in root:
                target.setdefault(key, root[key])
    try:
        validator_cls = jsonschema.validators.validator_for(target, jsonschema.Draft202012Validator)
        error = jsonschema.exceptions.best_match(validator_cls(target).iter_errors(value))
    except RecursionError:
        return "the server's schema nests too deep to check it"
    except Exception as exc:  # an untrusted schema: bad keywords, unresolvable $refs
        return f"the server's schema cannot check it ({type(exc).__name__})"
    if error is None:
        return None
    return f"{show_json(value)} does not fit the server's schema: {error.message}"
