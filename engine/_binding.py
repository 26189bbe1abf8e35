"""Call-time binding: validated arguments -> the handler's keyword arguments.

A :class:`PreparedTool` is what :func:`tooldeck._prepare.prepare_tool` compiles
from a :class:`ToolSpec` once, at registration: immutable, built in one step,
and carried as it is from the manifest loader to the registry. This module
holds that value and the steps every call takes with it: coerce near-misses
(lenient mode), fill defaults (``${earlier}`` placeholders included), convert
to the handler's annotated types and inject what the registry supplies.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._calltypes import ToolContext
from ._convert import ConversionError
from ._model import ToolSpec
from ._progress import current_reporter
from ._validation import Checker, describe_errors

if TYPE_CHECKING:
    from ._authparams import AuthPlan
    from ._identity import AuthIdentity
    from ._portal import LoopPortal
    from ._results import ResultShaper
    from ._secrets import Secrets
    from ._validation import NullPlan

__all__ = [
    "COPY",
    "PLACEHOLDER",
    "PLAIN",
    "TEMPLATE",
    "ArgumentError",
    "CallEnv",
    "DefaultPlan",
    "Explainer",
    "ExtraKeys",
    "MissingInjection",
    "PreparedTool",
]

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
"""``${name}`` in a string default: the value of an earlier parameter."""

PLAIN, COPY, TEMPLATE = 0, 1, 2
"""How a default is filled: as is, as a deep copy (lists, dicts), or from a template."""

DefaultPlan = tuple[tuple[str, Any, int, Checker], ...]


class ArgumentError(ValueError):
    """Arguments that cannot be bound; ``problems`` are model-readable lines."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class MissingInjection(RuntimeError):
    """An injected value the handler requires is not configured on the registry."""


class CallEnv:
    """What the registry supplies to calls: project dir, config, the loop portal, secrets.

    ``portal`` (None unless the registry owns one) runs coroutine handlers on
    the application's event loop; see :mod:`tooldeck._portal`. ``secrets`` mask
    what a handler's progress and log messages say (:mod:`tooldeck._progress`).
    """

    __slots__ = ("config", "portal", "project_dir", "secrets")

    def __init__(
        self,
        project_dir: Path | None,
        config: Mapping[str, Any],
        portal: LoopPortal | None = None,
        secrets: Secrets | None = None,
    ) -> None:
        self.project_dir = project_dir
        self.config = config
        self.portal = portal
        self.secrets = secrets


class Explainer:
    """The full JSON Schema validator, built on the first invalid call (jsonschema is heavy)."""

    __slots__ = ("_validator", "schema")

    def __init__(self, schema: dict[str, Any], validator: Any = None) -> None:
        self.schema = schema
        self._validator = validator

    def validator(self) -> Any:
        if self._validator is None:
            from ._validation import schema_validator

            self._validator = schema_validator(self.schema)
        return self._validator


@dataclass(frozen=True, slots=True)
class ExtraKeys:
    """What an open tool (``additional_properties``) does with keys it does not declare.

    The call is accepted, as its schema says, but an undeclared key must not
    become what the handler did not ask for: the value of a parameter the
    handler names but the tool does not declare (its own default would be
    overridden), or of an injected one (``project_dir``, ``context`` ...). So
    a key reaches the handler only through ``**kwargs`` (``passed``), and only
    when no handler parameter or injection has its name (``blocked``); every
    other undeclared key is dropped before approval, so an approver sees what
    the handler will get.
    """

    declared: frozenset[str]
    """The parameters the model may send (injected ones are not among them)."""
    blocked: frozenset[str]
    """Names an undeclared key may never take: handler parameters, injections."""
    passed: bool
    """The handler takes ``**kwargs``: undeclared keys that are not blocked reach it."""
    refused: Mapping[str, str] = field(default_factory=dict)
    """``from_auth`` parameters -> the words a call that sends one is refused with."""

    def strip(self, arguments: dict[str, Any]) -> None:
        """Drop the undeclared keys the handler must not receive (in place).

        A ``from_auth`` parameter sent anyway is not dropped quietly: the call
        is refused (:class:`ArgumentError`), as a closed tool's schema refuses it.
        """
        sent = [self.refused[k] for k in arguments if k in self.refused]
        if sent:
            raise ArgumentError(sent)
        for key in [k for k in arguments if k not in self.declared]:
            if not self.passed or key in self.blocked:
                del arguments[key]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class PreparedTool:
    """A tool compiled for calling. Internal: the public face is :class:`ToolSpec`.

    Built in one step by :func:`~tooldeck._prepare.prepare_tool` and never
    changed after; the registry stores it as it is, whichever group it joins.
    """

    spec: ToolSpec
    name: str
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
    mapping_name: str
    """For external tools: the handler parameter that receives the arguments mapping."""
    plain: bool
    """No per-tool policy (timeout, retry, side effects, substitution): the fast path."""
    null_is_absent: frozenset[str]
    """Optional, non-nullable parameters: a ``null`` for them means "not given".

    Provider strict mode makes every parameter required and optional ones
    nullable, so models send ``null`` where they would have left a key out.
    """
    is_async: bool
    shaper: ResultShaper | None
    explainer: Explainer = field(repr=False)
    null_nested: NullPlan | None = None
    """Where a ``null`` means "not given" below the top level (nested objects, items,
    ``$ref`` definitions): :mod:`tooldeck._validation.nulls`. None when there is no such place."""
    extras: ExtraKeys | None = None
    """For an open tool (``ToolSpec.additional_properties``): which undeclared keys reach
    the handler. None for a closed tool, whose check refuses them."""
    from_auth: AuthPlan | None = None
    """How ``from_auth`` parameters are filled from the caller (:mod:`tooldeck._authparams`);
    None for a tool without them, decided at registration: such a tool is never ``plain``."""
    refused: Mapping[str, str] | None = None
    """The words for arguments the schema does not take: ``spec.refused_arguments`` plus
    each ``from_auth`` parameter's; None when they are ``spec.refused_arguments`` alone."""

    def explain(self, arguments: Any) -> list[str]:
        """Every reason ``arguments`` fail this tool's schema, model-readable."""
        if not isinstance(arguments, dict):
            kind = "array" if isinstance(arguments, list) else type(arguments).__name__
            return [f"arguments must be a JSON object, got {kind}"]
        return describe_errors(
            self.explainer.validator(),
            arguments,
            descriptions=self.descriptions,
            refused=self.spec.refused_arguments if self.refused is None else self.refused,
        ) or [
            "arguments do not match the tool's schema",
        ]

    def coerce(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Lenient mode: fix the near-misses models send ("3", "true", '{"a":1}')."""
        for name, fix in self.coercers:
            if name in arguments:
                arguments[name] = fix(arguments[name])
        return arguments

    def complete(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Fill defaults (placeholders from earlier values); the arguments as approved.

        An open tool first drops the undeclared keys its handler must not get
        (:class:`ExtraKeys`).
        """
        if self.extras is not None:
            self.extras.strip(arguments)
        for name, value, plan, check in self.defaults:
            if name in arguments:
                continue
            if plan == PLAIN:
                arguments[name] = value
            elif plan == COPY:
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
        auth: AuthIdentity | None = None,
    ) -> dict[str, Any]:
        """Complete arguments -> handler kwargs (conversion, injection); mutates ``arguments``."""
        try:
            for name, convert in self.converters:
                if arguments.get(name) is not None:  # None stays None (an absent default)
                    arguments[name] = convert(arguments[name])
        except ConversionError as exc:
            raise ArgumentError([f"{exc.where(name)}: {exc.message}"]) from exc
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
                context = target[name] = ToolContext(
                    tool_name=self.name,
                    call_id=call_id,
                    project_dir=env.project_dir,
                    config=env.config,
                    extra=extra or {},
                    auth=auth,
                )
                reporter = current_reporter.get()  # (tooldeck._progress: nobody, usually)
                if reporter is not None:
                    object.__setattr__(context, "_reporter", reporter)
                if env.secrets:
                    object.__setattr__(context, "_secrets", env.secrets)
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
