"""Arguments -> handler keyword arguments: validate, default, convert, inject.

:func:`prepare_tool` compiles a :class:`ToolSpec` once, at registration, into
a :class:`PreparedTool` that the call path uses without re-reading the spec:
the JSON Schema, a fast checker, default and placeholder plans, converters for
the handler's annotated types and the list of injected parameters. Every
declaration mistake is found here and raised as :class:`RegistrationError`
(unknown placeholder, default violating its own type, a declared parameter
the handler cannot accept, a required handler parameter nothing supplies).
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import json
import math
import re
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldeck._convert import ConversionError, converter_for
from tooldeck._errors import RegistrationError
from tooldeck._explain import describe_errors
from tooldeck._jsonparse import JsonProblem, parse_json
from tooldeck._jsontypes import Checker
from tooldeck._model import ParamDescriptor, ToolContext, ToolSpec
from tooldeck._regex import PatternError
from tooldeck._results import ResultShaper
from tooldeck._schema import tool_input_schema
from tooldeck._schema_validator import safe_checker, schema_problem, schema_validator
from tooldeck._typing import is_context_annotation, signature_of
from tooldeck._validation import check_fragment, compile_checker, compile_object_checker

__all__ = ["ArgumentError", "CallEnv", "MissingInjection", "PreparedTool", "prepare_tool"]

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
"""``${name}`` in a string default: the value of an earlier parameter."""


class ArgumentError(ValueError):
    """Arguments that cannot be bound; ``problems`` are model-readable lines."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class MissingInjection(RuntimeError):
    """An injected value the handler requires is not configured on the registry."""


class CallEnv:
    """What the registry supplies to injections: project dir and config."""

    __slots__ = ("config", "project_dir")

    def __init__(self, project_dir: Path | None, config: Mapping[str, Any]) -> None:
        self.project_dir = project_dir
        self.config = config


# Default plan kinds.
_PLAIN, _COPY, _TEMPLATE = 0, 1, 2


DefaultPlan = tuple[tuple[str, Any, int, Checker], ...]


class PreparedTool:
    """A tool compiled for calling. Internal: the public face is :class:`ToolSpec`."""

    __slots__ = (
        "_validator",
        "check",
        "coercers",
        "converters",
        "defaults",
        "descriptions",
        "group",
        "injections",
        "is_async",
        "mapping_name",
        "name",
        "null_is_absent",
        "optional_injections",
        "pass_mapping",
        "plain",
        "schema",
        "shaper",
        "spec",
        "wants_context",
    )
    spec: ToolSpec
    name: str
    group: str | None
    schema: dict[str, Any]
    check: Checker
    descriptions: dict[str, str]
    defaults: DefaultPlan
    coercers: tuple[tuple[str, Callable[[Any], Any]], ...]
    converters: tuple[tuple[str, Callable[[Any], Any]], ...]
    injections: tuple[tuple[str, str], ...]
    optional_injections: frozenset[str]
    wants_context: bool
    pass_mapping: bool
    plain: bool
    """No per-tool policy (timeout, retry, side effects, substitution): the fast path."""
    null_is_absent: frozenset[str]
    """Optional, non-nullable parameters: a ``null`` for them means "not given".

    Provider strict mode makes every parameter required and optional ones
    nullable, so models send ``null`` where they would have left a key out.
    """
    mapping_name: str
    """For external tools: the handler parameter that receives the arguments mapping."""
    is_async: bool
    shaper: ResultShaper | None
    _validator: Any

    def __init__(self, spec: ToolSpec, group: str | None) -> None:
        self.spec = spec
        self.name = spec.name
        self.group = group
        self._validator = None

    def explain(self, arguments: Any) -> list[str]:
        """Every reason ``arguments`` fail this tool's schema, model-readable."""
        if not isinstance(arguments, dict):
            kind = "array" if isinstance(arguments, list) else type(arguments).__name__
            return [f"arguments must be a JSON object, got {kind}"]
        if self._validator is None:
            self._validator = schema_validator(self.schema)
        return describe_errors(self._validator, arguments, descriptions=self.descriptions) or [
            "arguments do not match the tool's schema",
        ]

    def coerce(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Lenient mode: fix the near-misses models send ("3", "true", '{"a":1}')."""
        for name, fix in self.coercers:
            if name in arguments:
                arguments[name] = fix(arguments[name])
        return arguments

    def complete(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Fill defaults (placeholders from earlier values); the arguments as approved."""
        for name, value, plan, check in self.defaults:
            if name in arguments:
                continue
            if plan == _PLAIN:
                arguments[name] = value
            elif plan == _COPY:
                arguments[name] = copy.deepcopy(value)
            else:
                arguments[name] = _fill_template(name, value, arguments, check)
        return arguments

    def bind(
        self,
        arguments: dict[str, Any],
        env: CallEnv,
        call_id: str,
        extra: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        """Complete arguments -> handler kwargs (conversion, injection); mutates ``arguments``."""
        try:
            for name, convert in self.converters:
                if name in arguments:
                    arguments[name] = convert(arguments[name])
        except ConversionError as exc:
            raise ArgumentError([f"$.{name}: {exc}"]) from exc
        target: dict[str, Any] = {self.mapping_name: arguments} if self.pass_mapping else arguments
        for name, kind in self.injections:
            if kind in {"project_dir", "project_dir:str"}:
                if env.project_dir is None:
                    if name in self.optional_injections:
                        continue
                    raise MissingInjection(
                        "this tool needs the project directory, but none is configured "
                        "(ToolRegistry(project_dir=...) or --project-dir)",
                    )
                target[name] = env.project_dir if kind == "project_dir" else str(env.project_dir)
            elif kind == "context":
                target[name] = ToolContext(
                    tool_name=self.name,
                    call_id=call_id,
                    project_dir=env.project_dir,
                    config=env.config,
                    extra=extra or {},
                )
            elif kind == "config":
                target[name] = env.config
            elif kind == "tool_name":
                target[name] = self.name
            else:
                target[name] = call_id
        return target


def _fill_template(
    name: str,
    template: str,
    arguments: Mapping[str, Any],
    check: Checker,
) -> str:
    def value_of(match: re.Match[str]) -> str:
        ref = match.group(1)
        if ref not in arguments or arguments[ref] is None:
            raise ArgumentError([f"$.{name}: its default needs {ref!r}; pass {name!r} or {ref!r}"])
        value = arguments[ref]
        return value if isinstance(value, str) else json.dumps(value, default=str)

    filled = PLACEHOLDER.sub(value_of, template)
    if not check(filled):
        raise ArgumentError(
            [
                f"$.{name}: its default {template!r} became {filled!r}, which is "
                "not valid for it; pass it explicitly"
            ]
        )
    return filled


def prepare_tool(spec: ToolSpec, *, group: str | None = None) -> PreparedTool:
    """Compile ``spec`` for calling, raising RegistrationError for declaration mistakes."""
    prepared = PreparedTool(spec, group)
    signature = signature_of(spec.handler)
    prepared.is_async = _is_async(spec.handler)
    prepared.plain = (
        spec.timeout is None
        and spec.retry is None
        and not spec.side_effects
        and not spec.substitute_result
    )
    prepared.shaper = _shaper(spec)
    if spec.input_schema is not None:
        _prepare_external(prepared, spec, signature)
        return prepared
    prepared.pass_mapping = False
    schema = tool_input_schema(spec.params, tool_name=spec.name)
    prepared.schema = schema
    root_defs = schema.get("$defs")
    try:
        prepared.check = compile_object_checker(spec.params, root_defs=root_defs)
    except PatternError as exc:
        raise RegistrationError(
            f"invalid pattern: {exc}",
            tool_name=spec.name,
            code="TD107",
        ) from exc
    prepared.descriptions = {p.name: p.description for p in spec.params if p.description}
    prepared.null_is_absent = frozenset(
        p.name
        for p in spec.params
        if not p.required
        and p.schema is None
        and "null" not in p.types
        and p.types
        and not (p.enum is not None and None in p.enum)
    )
    _check_nested(spec, spec.params, root_defs or {}, top=True)
    prepared.defaults = _default_plan(spec, root_defs)
    prepared.coercers = tuple(
        (p.name, fix)
        for p in spec.params
        if p.injected is None
        for fix in [_coercer(p)]
        if fix is not None
    )
    _bind_handler(prepared, spec, signature)
    return prepared


def _prepare_external(
    prepared: PreparedTool,
    spec: ToolSpec,
    signature: inspect.Signature | None,
) -> None:
    schema = dict(spec.input_schema or {})
    problem = schema_problem(schema)
    if problem is not None:
        raise RegistrationError(f"input_schema {problem}", tool_name=spec.name, code="TD104")
    validator = schema_validator(schema)
    prepared.schema = schema
    prepared.check = safe_checker(validator)
    prepared._validator = validator
    prepared.pass_mapping = True
    prepared.null_is_absent = frozenset()
    prepared.descriptions = {}
    prepared.defaults = ()
    prepared.coercers = ()
    prepared.converters = ()
    injections = []
    prepared.mapping_name = "arguments"
    if signature is not None:
        names = []
        for parameter in signature.parameters.values():
            if is_context_annotation(parameter.annotation):
                injections.append((parameter.name, "context"))
            elif parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                names.append(parameter.name)
        if names:
            prepared.mapping_name = names[0]
    prepared.injections = tuple(injections)
    prepared.optional_injections = frozenset()
    prepared.wants_context = bool(injections)


def _check_nested(
    spec: ToolSpec, params: Iterable[ParamDescriptor], defs: Mapping[str, Any], *, top: bool
) -> None:
    """Raw fragments must be usable and nested defaults valid, at any depth."""
    for param in params:
        if param.schema is not None:
            problem = check_fragment(param.schema, {**defs, **param.schema.get("$defs", {})})
            if problem:
                raise RegistrationError(
                    f"parameter {param.name!r}: {problem}",
                    tool_name=spec.name,
                    param=param.name,
                    code="TD104",
                )
        if (
            not top
            and param.has_default
            and not compile_checker(param, root_defs=defs)(param.default)
        ):
            raise RegistrationError(
                f"parameter {param.name!r}: default {param.default!r} is not valid for the "
                "parameter's own type and constraints",
                tool_name=spec.name,
                param=param.name,
                code="TD108",
            )
        nested = [*(param.properties or ()), *((param.items,) if param.items else ())]
        if nested:
            _check_nested(spec, nested, defs, top=False)


def _default_plan(
    spec: ToolSpec,
    root_defs: Mapping[str, Any] | None,
) -> DefaultPlan:
    plan: list[tuple[str, Any, int, Checker]] = []
    seen: list[str] = []
    for param in spec.params:
        check = compile_checker(param, root_defs=root_defs)
        if param.has_default:
            value = param.default
            refs = PLACEHOLDER.findall(value) if isinstance(value, str) else []
            if refs:
                for ref in refs:
                    if ref not in seen:
                        where = "a later" if ref in {p.name for p in spec.params} else "an unknown"
                        raise RegistrationError(
                            f"parameter {param.name!r}: default {value!r} refers to {where} "
                            f"parameter {ref!r}; placeholders may only name earlier parameters",
                            tool_name=spec.name,
                            param=param.name,
                            code="TD106",
                        )
                if not param.types or "string" in param.types:
                    plan.append((param.name, value, _TEMPLATE, check))
                    seen.append(param.name)
                    continue
            if not check(value):
                raise RegistrationError(
                    f"parameter {param.name!r}: default {value!r} is not valid for the "
                    "parameter's own type and constraints",
                    tool_name=spec.name,
                    param=param.name,
                    code="TD108",
                )
            kind = _COPY if isinstance(value, list | dict) else _PLAIN
            plan.append((param.name, value, kind, check))
        seen.append(param.name)
    return tuple(plan)


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
            )
        profile = _HandlerProfile(params, takes_kwargs)
    with contextlib.suppress(TypeError):  # not weak-referenceable: simply not cached
        _PROFILES[handler] = profile
    return profile


def _bind_handler(
    prepared: PreparedTool,
    spec: ToolSpec,
    signature: inspect.Signature | None,
) -> None:
    injections: list[tuple[str, str]] = []
    optional: set[str] = set()
    declared = {p.name for p in spec.params}
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
                )
            if info.positional_only and name in declared:
                raise RegistrationError(
                    f"handler parameter {name!r} is positional-only and cannot be passed by name",
                    tool_name=spec.name,
                    param=name,
                    code="TD110",
                )
            if info.converter is not None:
                converters.append((name, info.converter))
        for param in spec.params:
            if param.name not in params and not profile.takes_kwargs:
                raise RegistrationError(
                    f"declared parameter {param.name!r} is not accepted by the handler "
                    f"{_qualname(spec.handler)}; rename it or add **kwargs",
                    tool_name=spec.name,
                    param=param.name,
                    code="TD110",
                )
    prepared.converters = tuple(converters)
    prepared.injections = tuple(injections)
    prepared.optional_injections = frozenset(optional)
    prepared.wants_context = any(kind == "context" for _, kind in injections)


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
