"""Compile a :class:`ToolSpec` into a :class:`PreparedTool`, once, at registration.

Everything a call will need is worked out here: the JSON Schema, a fast
checker, the default plan (placeholders included), lenient coercers, the
result shaper and how declared parameters meet the handler's signature.
Every declaration mistake is found here and raised as
:class:`RegistrationError` (unknown placeholder, default violating its own
type, a declared parameter the handler cannot accept, a required handler
parameter nothing supplies), so a manifest loader can turn each into its own
diagnostic and hand the prepared tool on to the registry as it is. Defaults
are :mod:`tooldeck._defaults`: every bad one of a tool is found in one pass.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ._authparams import auth_plan, sent_words
from ._binding import Explainer, ExtraKeys, PreparedTool
from ._convert import converter_for, fitted_converter
from ._defaults import check_fragments, default_plan, nested_default_problems, raise_all
from ._errors import RegistrationError
from ._model import ToolSpec
from ._names import name_problem
from ._paramcheck import compile_object_checker
from ._params import INJECTABLE, ParamDescriptor
from ._regex import PatternError
from ._results import ResultShaper
from ._schema import tool_input_schema
from ._typing import is_context_annotation, signature_of
from ._validation import Checker, JsonProblem, null_plan, optional_non_null, parse_json

__all__ = ["prepare_tool"]


def prepare_tool(spec: ToolSpec) -> PreparedTool:
    """Compile ``spec`` for calling, raising RegistrationError for declaration mistakes."""
    problem = name_problem(spec.name)
    if problem is not None:  # a name is printed, quoted and sent: no control characters
        raise RegistrationError(
            f"tool name {spec.name!r} {problem}", tool_name=spec.name, path=("name",)
        )
    spec = _with_scopes(spec)
    signature = signature_of(spec.handler)
    bound = any(p.from_auth is not None for p in spec.params)
    common: dict[str, Any] = {
        "spec": spec,
        "name": spec.name,
        "is_async": _is_async(spec.handler),
        "plain": (
            spec.timeout is None
            and spec.retry is None
            and not spec.side_effects
            and not spec.substitute_result
            and not bound  # filled from the caller by the pipeline only: plain calls pay nothing
        ),
        "shaper": _shaper(spec),
    }
    if spec.input_schema is not None:
        if spec.additional_properties:
            raise RegistrationError(
                "additional_properties applies to declared params; an input_schema says "
                "whether it is open itself (its additionalProperties)",
                tool_name=spec.name,
                code="TD104",
                path=("additional_properties",),
            )
        return _prepare_external(spec, signature, common)
    try:
        schema = tool_input_schema(
            spec.params, tool_name=spec.name, additional_properties=spec.additional_properties
        )
    except RegistrationError as exc:
        raise exc.under("params") from None
    root_defs = schema.get("$defs")
    try:
        check = compile_object_checker(
            spec.params, root_defs=root_defs, open_keys=spec.additional_properties
        )
    except PatternError as exc:
        raise RegistrationError(
            f"invalid pattern: {exc}",
            tool_name=spec.name,
            code="TD107",
        ) from exc
    check_fragments(spec, root_defs or {})
    profile = _profile(spec.handler, signature)
    handler_defaults = frozenset(
        name for name, info in (profile.params.items() if profile else ()) if info.has_default
    )
    defaults, problems = default_plan(spec, root_defs, handler_defaults)
    raise_all(spec, nested_default_problems(spec, root_defs or {}) + problems)
    binding = _bind_handler(spec, signature)
    from_auth = auth_plan(spec, root_defs) if bound else None
    refused = (
        {**spec.refused_arguments, **{p.name: sent_words(p) for p in spec.params if p.from_auth}}
        if bound
        else None
    )
    return PreparedTool(
        **common,
        schema=schema,
        check=check,
        descriptions={p.name: p.description for p in spec.params if p.description},
        null_is_absent=frozenset(
            p.name
            for p in spec.params
            if not p.required
            and p.from_auth is None  # a null the model sends for it is refused, not dropped
            and p.schema is None
            and "null" not in p.types
            and p.types
            and not (p.enum is not None and None in p.enum)
        )
        | optional_non_null(schema),
        null_nested=null_plan(schema),
        defaults=defaults,
        coercers=tuple(
            (p.name, fix)
            for p in spec.params
            if not p.hidden
            for fix in [_coercer(p)]
            if fix is not None
        ),
        converters=binding.converters,
        injections=binding.injections,
        optional_injections=binding.optional_injections,
        wants_context=any(kind == "context" for _, kind in binding.injections),
        pass_mapping=False,
        mapping_name="",
        explainer=Explainer(schema),
        extras=_extra_keys(spec, profile, binding, refused) if spec.additional_properties else None,
        from_auth=from_auth,
        refused=refused,
    )


def _extra_keys(
    spec: ToolSpec,
    profile: _HandlerProfile | None,
    binding: _HandlerBinding,
    refused: dict[str, str] | None,
) -> ExtraKeys:
    """Where an open tool's undeclared keys may go (see :class:`ExtraKeys`).

    The names tooldeck injects (``project_dir``, ``context`` ...) are never
    passed, even to a handler that does not ask for them: a ``**kwargs``
    handler may read them as trusted. Without a signature to read (a
    builtin), nothing is passed: the handler may not take them. A ``from_auth``
    parameter sent anyway is refused, with ``refused``'s words, as a closed
    tool's schema refuses it.
    """
    named = frozenset(profile.params) if profile is not None else frozenset()
    return ExtraKeys(
        declared=frozenset(p.name for p in spec.params if not p.hidden),
        blocked=named
        | frozenset(INJECTABLE)
        | frozenset(p.name for p in spec.params)
        | frozenset(name for name, _ in binding.injections),
        passed=profile is not None and profile.takes_kwargs,
        refused={p.name: refused[p.name] for p in spec.params if p.from_auth and refused},
    )


def _prepare_external(
    spec: ToolSpec, signature: inspect.Signature | None, common: dict[str, Any]
) -> PreparedTool:
    """A tool that brings its own JSON Schema: called with the arguments mapping."""
    from ._validation import safe_checker, schema_problem, schema_validator

    schema = dict(spec.input_schema or {})
    problem = schema_problem(schema)
    if problem is not None:
        raise RegistrationError(
            f"input_schema {problem}", tool_name=spec.name, code="TD104", path=("input_schema",)
        )
    validator = schema_validator(schema)
    injections = []
    mapping_name = "arguments"
    if signature is not None:
        names = []
        for parameter in signature.parameters.values():
            if is_context_annotation(parameter.annotation):
                injections.append((parameter.name, "context"))
            elif parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                names.append(parameter.name)
        if names:
            mapping_name = names[0]
    return PreparedTool(
        **common,
        schema=schema,
        check=_external_check(schema, safe_checker(validator)),
        descriptions={},
        null_is_absent=optional_non_null(schema),
        null_nested=null_plan(schema),
        defaults=(),
        coercers=(),
        converters=(),
        injections=tuple(injections),
        optional_injections=frozenset(),
        wants_context=bool(injections),
        pass_mapping=True,
        mapping_name=mapping_name,
        explainer=Explainer(schema, validator),
    )


def _external_check(schema: dict[str, Any], full: Checker) -> Checker:
    """The compiled check where it covers the schema, jsonschema (``full``) for the rest.

    The compiled check (:func:`tooldeck._validation.fastcheck.fast_check`: the keywords MCP
    servers use, with jsonschema's semantics) only ever accepts what ``full``
    accepts; what it rejects is asked of ``full``, so nothing valid is refused
    and an invalid call is still explained by jsonschema.
    """
    from ._validation import fast_check

    fast = fast_check(schema)
    if fast is None:
        return full

    def check(value: Any) -> bool:
        try:
            if fast(value):
                return True
        except Exception:  # an odd value the compiled check did not expect
            pass
        return full(value)

    return check


@dataclass(frozen=True)
class _HandlerParam:
    """What binding needs to know about one handler parameter (computed once)."""

    name: str
    positional_only: bool
    has_default: bool
    wants_context: bool
    text: bool
    """Annotated ``str``: an injected project dir is passed as text."""
    converter: Callable[[Any], Any] | None
    annotation: Any


@dataclass(frozen=True)
class _HandlerProfile:
    params: dict[str, _HandlerParam]
    takes_kwargs: bool


_PROFILES: weakref.WeakKeyDictionary[Any, _HandlerProfile | None] = weakref.WeakKeyDictionary()


def _profile(
    handler: Callable[..., Any], signature: inspect.Signature | None
) -> _HandlerProfile | None:
    """A handler's parameters as binding sees them, cached: many tools share few handlers."""
    try:
        return _PROFILES[handler]
    except (KeyError, TypeError):
        pass
    profile = None
    if signature is not None:
        params = {}
        takes_kwargs = False
        for parameter in signature.parameters.values():
            if parameter.kind is parameter.VAR_KEYWORD:
                takes_kwargs = True
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            context = is_context_annotation(parameter.annotation)
            params[parameter.name] = _HandlerParam(
                name=parameter.name,
                positional_only=parameter.kind is parameter.POSITIONAL_ONLY,
                has_default=parameter.default is not parameter.empty,
                wants_context=context,
                text=parameter.annotation is str or parameter.annotation == "str",
                converter=None if context else converter_for(parameter.annotation),
                annotation=parameter.annotation,
            )
        profile = _HandlerProfile(params, takes_kwargs)
    with contextlib.suppress(TypeError):  # not weak-referenceable: simply not cached
        _PROFILES[handler] = profile
    return profile


@dataclass(frozen=True)
class _HandlerBinding:
    """How declared parameters reach the handler: conversions and injections."""

    converters: tuple[tuple[str, Callable[[Any], Any]], ...]
    injections: tuple[tuple[str, str], ...]
    optional_injections: frozenset[str]


def _bind_handler(spec: ToolSpec, signature: inspect.Signature | None) -> _HandlerBinding:
    """Match declared parameters to the handler's; every mismatch is a RegistrationError."""
    injections: list[tuple[str, str]] = []
    optional: set[str] = set()
    declared = {p.name: p for p in spec.params}
    converters = []
    profile = _profile(spec.handler, signature)
    params = profile.params if profile is not None else {}
    for param in spec.params:
        if param.injected is not None:
            kind = param.injected
            handler_param = params.get(param.name)
            if handler_param is not None and kind == "project_dir" and handler_param.text:
                kind = "project_dir:str"
            if handler_param is not None and handler_param.has_default:
                optional.add(param.name)
            injections.append((param.name, kind))
    if profile is not None:
        for name, info in params.items():
            if info.wants_context:
                if name not in declared:
                    injections.append((name, "context"))
                continue
            if name == "project_dir" and name not in declared:
                injections.append((name, "project_dir:str" if info.text else "project_dir"))
                if info.has_default:
                    optional.add(name)
                continue
            if name not in declared and not info.has_default:
                raise RegistrationError(
                    f"handler parameter {name!r} is required but no declared parameter or "
                    "injection supplies it; declare it or give it a default",
                    tool_name=spec.name,
                    param=name,
                    code="TD111",
                    path=("handler",),
                )
            if info.positional_only and name in declared:
                raise RegistrationError(
                    f"handler parameter {name!r} is positional-only and cannot be passed by name",
                    tool_name=spec.name,
                    param=name,
                    code="TD110",
                    path=("params", _index(spec, name)),
                )
            convert = info.converter
            own = declared.get(name)
            if own is not None and own.injected is None:
                # what the declaration admits and the annotation refuses fails the call
                convert = fitted_converter(info.annotation, own.types, own.enum)
            if convert is not None:
                converters.append((name, convert))
        for index, param in enumerate(spec.params):
            if param.name not in params and not profile.takes_kwargs:
                raise RegistrationError(
                    f"declared parameter {param.name!r} is not accepted by the handler "
                    f"{_qualname(spec.handler)}; rename it or add **kwargs",
                    tool_name=spec.name,
                    param=param.name,
                    code="TD110",
                    path=("params", index),
                )
    return _HandlerBinding(tuple(converters), tuple(injections), frozenset(optional))


def _with_scopes(spec: ToolSpec) -> ToolSpec:
    """``spec`` with its scopes as a tuple of distinct names; a bad scope is TD100 at it.

    A scope is what an OAuth token's ``scope`` claim lists, space-separated:
    a non-empty string without whitespace. Checked here so ``add_tool(scopes=...)``
    and a manifest (whose meta-schema says the same first) agree.
    """
    scopes: Any = spec.scopes
    if isinstance(scopes, str) or not isinstance(scopes, tuple | list | set | frozenset):
        raise RegistrationError(
            f"scopes must be a list of scope names, got {scopes!r}",
            tool_name=spec.name,
            path=("scopes",),
        )
    for index, scope in enumerate(scopes):
        if not isinstance(scope, str) or not scope or any(ch.isspace() for ch in scope):
            raise RegistrationError(
                f"scope {scope!r} is not a scope name: a non-empty string without spaces "
                "(e.g. orders:write)",
                tool_name=spec.name,
                path=("scopes", index),
            )
    ordered = sorted(scopes) if isinstance(scopes, set | frozenset) else scopes
    distinct = tuple(dict.fromkeys(ordered))
    return spec if distinct == scopes else replace(spec, scopes=distinct)


def _index(spec: ToolSpec, name: str) -> int:
    """Where parameter ``name`` is declared in ``spec.params`` (the first, if twice)."""
    return next(i for i, p in enumerate(spec.params) if p.name == name)


def _is_async(handler: Callable[..., Any]) -> bool:
    if inspect.iscoroutinefunction(handler):
        return True
    call = getattr(handler, "__call__", None)  # noqa: B004 - callable objects
    return call is not None and inspect.iscoroutinefunction(call)


def _shaper(spec: ToolSpec) -> ResultShaper | None:
    if spec.result is None or spec.result == type(spec.result)():
        return None
    try:
        return ResultShaper(spec.result)
    except Exception as exc:  # jmespath.exceptions.ParseError
        raise RegistrationError(
            f"result.select {spec.result.select!r} is not a valid JMESPath expression: {exc}",
            tool_name=spec.name,
            code="TD109",
            path=("result", "select"),
        ) from exc


def _coercer(param: ParamDescriptor) -> Callable[[Any], Any] | None:
    types = set(param.types)
    if param.schema is not None or not types or "string" in types:
        return None
    wants_int, wants_num = "integer" in types, "number" in types
    wants_bool, wants_json = "boolean" in types, bool(types & {"array", "object"})

    def fix(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if wants_bool and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if wants_int or wants_num:
            try:
                return int(text)
            except ValueError:
                pass
            if wants_num:
                try:
                    number = float(text)
                except ValueError:
                    pass
                else:  # "nan", "inf" and "1e999" are no numbers JSON could carry
                    return number if math.isfinite(number) else value
        if wants_json and text[:1] in ("[", "{"):
            try:
                return parse_json(text)
            except JsonProblem:
                pass
        return value

    return fix


def _qualname(handler: Callable[..., Any]) -> str:
    module = getattr(handler, "__module__", None) or "?"
    return f"{module}:{getattr(handler, '__qualname__', repr(handler))}"
