"""Declared defaults, checked and planned once at registration (TD104, TD106, TD108).

A default is used exactly when the model leaves its parameter out, so one
that breaks its own parameter would turn a valid call into a handler crash:
registration refuses it. Two things make the refusal useful:

- it says why, in the words a call's ``invalid_arguments`` uses for the same
  violation: ``default 3 is not one of 1, 2``, ``default 0 is less than the
  minimum of 1``, ``default "abc" is not valid: expected integer, got string``;
- it finds every bad default of a tool, at any depth, in one pass: the first
  becomes the :class:`RegistrationError` raised, the others travel in its
  ``also``, each with its own ``param``, ``field_path`` and ``path`` so that
  the manifest loader reports every one where it is written.

Raw schema fragments are checked first (TD104, the first problem raised at
once): a default cannot be judged against a fragment that does not work.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from ._binding import COPY, PLACEHOLDER, PLAIN, TEMPLATE, DefaultPlan
from ._errors import RegistrationError
from ._model import ToolSpec
from ._paramcheck import check_fragment, compile_checker
from ._params import ParamDescriptor
from ._validation import Checker, show_json

__all__ = ["check_fragments", "default_plan", "nested_default_problems", "raise_all"]

Steps = tuple[str, ...]
"""Where a nested parameter sits below its top-level one: ``("properties", "a", "items")``."""


def check_fragments(spec: ToolSpec, defs: Mapping[str, Any]) -> None:
    """Raw ``schema:`` fragments must be usable, at any depth; the first that is not raises."""
    for index, param in enumerate(spec.params):
        for steps, at, nested in _walk(param):
            if nested.schema is None:
                continue
            problem = check_fragment(nested.schema, {**defs, **nested.schema.get("$defs", {})})
            if problem:  # the parameter as a whole: a $ref may point at another one's $defs
                raise RegistrationError(
                    f"{_named(param.name, steps)}: {problem}",
                    tool_name=spec.name,
                    param=param.name,
                    code="TD104",
                    field_path=steps,
                    path=("params", index, *at),
                )


def nested_default_problems(spec: ToolSpec, defs: Mapping[str, Any]) -> list[RegistrationError]:
    """Every default of an object field or array item that breaks its own declaration."""
    problems: list[RegistrationError] = []
    for index, param in enumerate(spec.params):
        for steps, at, nested in _walk(param):
            if not steps or not nested.has_default or nested.absent_default:
                continue
            if not compile_checker(nested, root_defs=defs)(nested.default):
                where = ("params", index, *at, "default")
                problems.append(_invalid(spec, nested, defs, top=param.name, steps=steps, at=where))
    return problems


def default_plan(
    spec: ToolSpec,
    root_defs: Mapping[str, Any] | None,
    handler_defaults: frozenset[str],
) -> tuple[DefaultPlan, list[RegistrationError]]:
    """How each top-level default is filled, and every one that cannot be (TD106, TD108).

    ``handler_defaults`` are handler parameters with a default of their own: an
    "optional, None when absent" parameter leaves those to the handler.
    """
    plan: list[tuple[str, Any, int, Checker]] = []
    problems: list[RegistrationError] = []
    seen: list[str] = []
    names = {p.name for p in spec.params}
    from_auth = {p.name for p in spec.params if p.from_auth is not None}
    for index, param in enumerate(spec.params):
        at = ("params", index, "default")
        check = compile_checker(param, root_defs=root_defs)
        if param.absent_default:  # "optional, None when absent": the handler's own default wins
            if param.name not in handler_defaults:
                plan.append((param.name, None, PLAIN, check))
        elif param.has_default:
            value = param.default
            refs = PLACEHOLDER.findall(value) if isinstance(value, str) else []
            wrong = [ref for ref in refs if ref not in seen]
            bound = [ref for ref in refs if ref in from_auth]
            if bound and not wrong:  # filled after the defaults, from the caller's identity
                problems.append(
                    RegistrationError(
                        f"parameter {param.name!r}: default {show_json(value)} refers to "
                        f"{bound[0]!r}, which is filled from the caller's identity "
                        "(from_auth) after defaults are; a placeholder cannot name it",
                        tool_name=spec.name,
                        param=param.name,
                        code="TD106",
                        path=at,
                    )
                )
            elif wrong:
                where = "a later" if wrong[0] in names else "an unknown"
                problems.append(
                    RegistrationError(
                        f"parameter {param.name!r}: default {show_json(value)} refers to "
                        f"{where} parameter {wrong[0]!r}; placeholders may only name earlier "
                        "parameters",
                        tool_name=spec.name,
                        param=param.name,
                        code="TD106",
                        path=at,
                    )
                )
            elif refs and (not param.types or "string" in param.types):
                plan.append((param.name, value, TEMPLATE, check))
            elif not check(value):
                problems.append(
                    _invalid(spec, param, root_defs or {}, top=param.name, steps=(), at=at)
                )
            else:
                plan.append(
                    (param.name, value, COPY if isinstance(value, list | dict) else PLAIN, check)
                )
        seen.append(param.name)
    return tuple(plan), problems


def raise_all(spec: ToolSpec, problems: list[RegistrationError]) -> None:
    """Raise the first problem (in parameter order) carrying the others in ``also``."""
    if not problems:
        return
    order = {p.name: index for index, p in enumerate(spec.params)}
    ranked = sorted(problems, key=lambda e: (order.get(e.param or "", len(order)), e.field_path))
    first, *rest = ranked
    raise RegistrationError(
        first.message,
        tool_name=first.tool_name,
        param=first.param,
        code=first.code,
        field_path=first.field_path,
        path=first.path,
        also=tuple(rest),
    )


def _invalid(
    spec: ToolSpec,
    param: ParamDescriptor,
    defs: Mapping[str, Any],
    *,
    top: str,
    steps: Steps,
    at: tuple[str | int, ...],
) -> RegistrationError:
    return RegistrationError(
        f"{_named(top, steps)}: {why_invalid(param, defs)}",
        tool_name=spec.name,
        param=top,
        code="TD108",
        field_path=steps,
        path=at,
    )


def why_invalid(param: ParamDescriptor, defs: Mapping[str, Any]) -> str:
    """``default 3 is not one of 1, 2``: the default and every reason it breaks ``param``.

    The reasons are jsonschema's violations in the words a call's
    ``invalid_arguments`` result uses (:func:`tooldeck._validation.explain.describe_errors`);
    jsonschema is imported only here, when a default is already known to be bad.
    """
    from ._schema import param_schema
    from ._validation import describe_errors, schema_validator

    shown = show_json(param.default)
    try:
        hoisted: dict[str, Any] = {}
        schema = param_schema(_without_default(param), defs=hoisted)
        every = {**defs, **hoisted}
        if every:
            schema = {**schema, "$defs": {**every, **schema.get("$defs", {})}}
        lines = describe_errors(schema_validator(schema), param.default, descriptions={})
    except Exception:  # the reasons are a courtesy: the verdict stands without them
        lines = []
    reasons = []
    for line in lines:
        where, _, text = line.partition(": ")
        if where == "$":
            reasons.append(text)
        elif where.startswith("$"):
            reasons.append(f"at {where[1:].lstrip('.')}: {text}")
        else:
            reasons.append(line)  # "and 3 more violations"
    if not reasons:
        return f"default {shown} is not valid for the parameter's own type and constraints"
    if len(reasons) == 1 and reasons[0].startswith(f"{shown} "):
        return f"default {reasons[0]}"  # default 3 is not one of 1, 2
    return f"default {shown} is not valid: {'; '.join(reasons)}"


def _without_default(param: ParamDescriptor) -> ParamDescriptor:
    """``param`` with no default: its schema is what the default is judged against."""
    from dataclasses import replace

    from ._params import MISSING

    clone = replace(param, default=MISSING)
    if clone.schema is not None and "default" in clone.schema:
        fragment = copy.copy(dict(clone.schema))
        del fragment["default"]
        clone = replace(clone, schema=fragment)
    return clone


def _named(top: str, steps: Steps) -> str:
    """``parameter 'a'``, or for a nested one ``parameter 'a': field b.items``."""
    fields = [step for step in steps if step != "properties"]
    return f"parameter {top!r}" + (f": field {'.'.join(fields)}" if fields else "")


def _walk(
    param: ParamDescriptor, steps: Steps = (), at: tuple[str | int, ...] = ()
) -> Iterator[tuple[Steps, tuple[str | int, ...], ParamDescriptor]]:
    """``param`` and every parameter nested in it, with the steps that lead to it.

    Twice: by field name (``field_path``: ``("properties", "a")``) and by
    attribute and index (``path``: ``("properties", 0)``).
    """
    yield steps, at, param
    for index, child in enumerate(param.properties or ()):
        yield from _walk(child, (*steps, "properties", child.name), (*at, "properties", index))
    if param.items is not None:
        yield from _walk(param.items, (*steps, "items"), (*at, "items"))
