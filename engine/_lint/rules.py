"""The lint rules: what makes a valid manifest a poor one (TD4xx and TD120).

Each rule is a small function registered in :data:`RULES` with its code,
default severity and documentation (what it catches, why it matters, a bad
and a good example), mirrored in ``docs/diagnostics.md``. A rule reads the
loaded manifests through :class:`LintContext` and the thresholds in
:class:`LintSettings`.

Separate from reading the settings (:mod:`tooldeck._lint.settings`)
and running the rules (:mod:`tooldeck._lint.runner`): adding a rule touches
only this module and the documentation.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._diagnostics import Diagnostic, Severity
from .._names import is_provider_safe
from .._registry import ToolRegistry
from .._words import plural
from ..manifest._build import Bundle
from ..manifest._manifests import LoadResult
from .signature import check_signatures

__all__ = ["RULES", "RULE_BY_CODE", "LintContext", "LintSettings", "LiveServer", "Rule", "rule"]


@dataclass(frozen=True, kw_only=True)
class LintSettings:
    """Thresholds and severity overrides, from ``[tool.tooldeck.lint]``."""

    min_description_length: int = 20
    min_param_description_length: int = 8
    token_budget: int = 4000
    severity: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    serve_auth: str = "none"
    """``[tool.tooldeck.serve] auth`` as written (read leniently: absent, empty or false is
    ``"none"``, any other value is its text); TD415 warns while it is ``"none"``."""


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    check: Callable[[LintContext], Iterator[Diagnostic]]
    doc: str


@dataclass(frozen=True)
class LiveServer:
    """What lint learnt by connecting to one ``via: client`` MCP server (plain data, no ``mcp``)."""

    error: str | None = None
    """Why it could not be listed; None when it was."""
    tools: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Remote tool name -> its input schema."""
    prompts: tuple[str, ...] | None = None
    """Its prompts' names (empty: it offers none); None when they could not be listed."""


@dataclass
class LintContext:
    result: LoadResult
    registry: ToolRegistry
    settings: LintSettings
    live: Mapping[str, LiveServer] | None = None
    """Client-side MCP servers lint connected to, by name (None: it did not try)."""

    def at(
        self,
        bundle: Bundle,
        path: tuple[str | int, ...],
        code: str,
        message: str,
        tool: str | None = None,
        *,
        severity: Severity | None = None,
        key: bool = False,
    ) -> Diagnostic:
        """A diagnostic of rule ``code`` at ``path``: the rule's default severity unless given.

        ``severity`` is for a rule whose forms differ in weight (TD411: a type the
        handler cannot take is an error, one it takes by a lossless conversion a
        warning); configured severities still re-level every form alike. ``key``
        points at the key of ``path`` rather than its value (a block mapping's value
        starts on the next line).
        """
        doc = self.result.documents[bundle.file]
        return Diagnostic(
            code=code,
            message=message,
            severity=RULE_BY_CODE[code].severity if severity is None else severity,
            location=doc.locate(path, key=key),
            tool_name=tool,
        )

    _tools: list[tuple[Bundle, Any, tuple[str | int, ...], dict[str, Any]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def tools(self) -> Iterator[tuple[Bundle, Any, tuple[str | int, ...], dict[str, Any]]]:
        """(bundle, spec, path, raw entry) for every tool that built (listed once per run)."""
        if self._tools is None:
            self._tools = []
            for bundle in self.result.bundles.values():
                data = self.result.documents[bundle.file].data or {}
                for spec in bundle.tools:
                    path = bundle.tool_paths[spec.name]
                    self._tools.append((bundle, spec, path, data["tools"][path[1]]))
        return iter(self._tools)


RULES: list[Rule] = []
RULE_BY_CODE: dict[str, Rule] = {}


def rule(
    code: str, name: str, severity: Severity
) -> Callable[
    [Callable[[LintContext], Iterator[Diagnostic]]], Callable[[LintContext], Iterator[Diagnostic]]
]:
    def register(
        check: Callable[[LintContext], Iterator[Diagnostic]],
    ) -> Callable[[LintContext], Iterator[Diagnostic]]:
        found = Rule(code, name, severity, check, (check.__doc__ or "").strip())
        RULES.append(found)
        RULE_BY_CODE[code] = found
        return check

    return register


@rule("TD401", "tool-description-missing", Severity.ERROR)
def _tool_description_missing(ctx: LintContext) -> Iterator[Diagnostic]:
    """A tool has no description (neither in the manifest nor in the handler's docstring).

    Why: the description is all a model reads to decide when to call a tool;
    missing descriptions are the most common defect in published tool catalogs.

    Bad:  ``{name: lookup, handler: myapp.orders:lookup}`` with an undocumented handler
    Good: ``{name: lookup, handler: ..., description: "Look up an order by id."}``
    """
    for bundle, spec, path, _ in ctx.tools():
        if not spec.description.strip():
            yield ctx.at(
                bundle,
                path,
                "TD401",
                f"tool {spec.name!r} has no description; say what it does and when to use it",
                spec.name,
            )


@rule("TD402", "tool-description-short", Severity.WARNING)
def _tool_description_short(ctx: LintContext) -> Iterator[Diagnostic]:
    """A tool description shorter than ``min_description_length`` (default 20 characters).

    Why: "Reads file." does not tell a model what comes back, in what form, or
    when another tool fits better.

    Bad:  ``description: Reads.``
    Good: ``description: Read part of a text file in the project as plain lines.``
    """
    limit = ctx.settings.min_description_length
    for bundle, spec, path, entry in ctx.tools():
        text = spec.description.strip()
        if text and len(text) < limit:
            where = (*path, "description") if "description" in entry else path
            yield ctx.at(
                bundle,
                where,
                "TD402",
                f"tool {spec.name!r} description is {plural(len(text), 'character')}; write at "
                f"least {limit}",
                spec.name,
            )


@rule("TD403", "param-description-missing", Severity.WARNING)
def _param_description_missing(ctx: LintContext) -> Iterator[Diagnostic]:
    """A model-facing parameter has no description.

    Why: the model fills parameters from their names and descriptions alone;
    ``id`` without "Order id, O-YYYYMMDD" gets guessed.

    Bad:  ``- {name: order_id}``
    Good: ``- {name: order_id, description: "Order id, O-YYYYMMDD"}``
    """
    for bundle, spec, path, entry in ctx.tools():
        for index, param in enumerate(spec.params):
            if param.inject is None and not param.description.strip():
                where = (*path, "params", index) if "params" in entry else path
                yield ctx.at(
                    bundle,
                    where,
                    "TD403",
                    f"parameter {param.name!r} of tool {spec.name!r} has no description",
                    spec.name,
                )


@rule("TD404", "param-description-short", Severity.WARNING)
def _param_description_short(ctx: LintContext) -> Iterator[Diagnostic]:
    """A parameter description shorter than ``min_param_description_length`` (default 8).

    Why: a one-word description rarely adds anything the name does not say.

    Bad:  ``- {name: path, description: path}``
    Good: ``- {name: path, description: "File path relative to the project"}``
    """
    limit = ctx.settings.min_param_description_length
    for bundle, spec, path, entry in ctx.tools():
        for index, param in enumerate(spec.params):
            text = param.description.strip()
            if param.inject is None and text and len(text) < limit:
                where = (*path, "params", index, "description") if "params" in entry else path
                yield ctx.at(
                    bundle,
                    where,
                    "TD404",
                    f"parameter {param.name!r} description is "
                    f"{plural(len(text), 'character')}; write at least {limit}",
                    spec.name,
                )


@rule("TD120", "provider-unsafe-name", Severity.WARNING)
def _unsafe_name(ctx: LintContext) -> Iterator[Diagnostic]:
    """A tool name providers reject (OpenAI and others: ``^[a-zA-Z0-9_-]{1,64}$``).

    Why: the tool still works (exports use a safe alias and calls map back),
    but the model sees a different name than the manifest says.

    Bad:  ``name: files.read``
    Good: ``name: files_read``
    """
    for bundle, spec, path, entry in ctx.tools():
        if not is_provider_safe(spec.name):
            where = (*path, "name") if "name" in entry else path
            yield ctx.at(
                bundle,
                where,
                "TD120",
                f"tool name {spec.name!r} is rejected by "
                f"providers; exports will use {ctx.registry.safe_name(spec.name)!r}",
                spec.name,
            )


@rule("TD405", "injected-param-declared", Severity.WARNING)
def _injected_declared(ctx: LintContext) -> Iterator[Diagnostic]:
    """A parameter named ``project_dir`` is declared in ``params``.

    Why: ``project_dir`` is always injected from the configured project
    directory and never shown to the model; declaring it suggests the model
    can choose it, which it cannot.

    Bad:  ``params: [{name: project_dir, description: Where to look}]``
    Good: leave it out; the handler's ``project_dir`` parameter is filled automatically
    """
    for bundle, spec, path, entry in ctx.tools():
        for index, raw in enumerate(entry.get("params", [])):
            if raw.get("name") == "project_dir" and "inject" not in raw:
                yield ctx.at(
                    bundle,
                    (*path, "params", index, "name"),
                    "TD405",
                    "project_dir is injected by tooldeck and never sent by the model; "
                    "remove it from params",
                    spec.name,
                )


@rule("TD406", "bundle-token-budget", Severity.WARNING)
def _token_budget(ctx: LintContext) -> Iterator[Diagnostic]:
    """A bundle's tool definitions cost more tokens than ``token_budget`` (default 4000).

    Why: every definition is sent with every request; a large bundle crowds
    the context and degrades tool choice. Split it, or trim descriptions.

    Bad:  one bundle with 60 tools and long descriptions
    Good: bundles per task, each enabled where it is needed (``enabled_when``)
    """
    from .._schema import tool_input_schema
    from ..providers import definition_tokens

    budget = ctx.settings.token_budget
    for bundle in ctx.result.bundles.values():
        total = 0
        for spec in bundle.tools:
            schema = spec.input_schema or tool_input_schema(spec.params, tool_name=spec.name)
            definition = {
                "name": ctx.registry.safe_name(spec.name),
                "description": spec.description,
                "input_schema": schema,
            }
            total += definition_tokens(definition)
        if total > budget:
            yield ctx.at(
                bundle,
                (),
                "TD406",
                f"bundle {bundle.name!r} definitions cost about "
                f"{plural(total, 'token')}, over the budget of {budget}",
            )


@rule("TD407", "side-effects-undescribed", Severity.WARNING)
def _side_effects_undescribed(ctx: LintContext) -> Iterator[Diagnostic]:
    """A tool with ``side_effects: true`` and no ``effect`` describing what it changes.

    Why: side-effecting calls wait for approval; whoever approves needs to
    know what will happen ("Sends an email to the customer"), not just that
    something will.

    Bad:  ``side_effects: true``
    Good: ``side_effects: true`` and ``effect: Cancels the order and refunds the customer``
    """
    for bundle, spec, path, _ in ctx.tools():
        if spec.side_effects and not spec.effect.strip():
            yield ctx.at(
                bundle,
                path,
                "TD407",
                f"tool {spec.name!r} has side effects but no `effect:` saying what it changes",
                spec.name,
            )


@rule("TD408", "return-direct-contradiction", Severity.WARNING)
def _return_direct(ctx: LintContext) -> Iterator[Diagnostic]:
    """``return_direct: true`` combined with options that contradict it.

    Why: a direct result goes to the user, not the model. ``result.max_chars``
    exists to protect the model's context, so with ``return_direct`` it only
    cuts what the user sees; ``strict`` shapes what the model sends, and is
    fine, but ``idempotent`` retries of a result the user already received
    are not.

    Bad:  ``return_direct: true`` with ``result: {max_chars: 500}``
    Good: ``return_direct: true`` alone, or ``max_chars`` without it
    """
    for bundle, spec, path, _ in ctx.tools():
        if spec.return_direct and spec.result is not None and spec.result.max_chars:
            yield ctx.at(
                bundle,
                (*path, "result", "max_chars"),
                "TD408",
                "result.max_chars truncates what the user sees when return_direct is "
                "true; remove one of them",
                spec.name,
            )


@rule("TD409", "format-not-checked", Severity.INFO)
def _format_not_checked(ctx: LintContext) -> Iterator[Diagnostic]:
    """A parameter ``format`` tooldeck does not check (only annotates).

    Why: a typo such as ``date_time`` silently checks nothing. Checked
    formats: date, date-time, time, uuid, email, uri, ipv4, ipv6.

    Bad:  ``format: date_time``
    Good: ``format: date-time``
    """
    known: set[str] = set()
    for bundle, spec, path, entry in ctx.tools():
        for index, param in enumerate(spec.params):
            if param.format is not None and not known:  # imports jsonschema: only when needed
                from .._validation import FORMAT_CHECKER

                known = set(FORMAT_CHECKER.checkers)
            if param.format is not None and param.format not in known:
                where = (*path, "params", index, "format") if "params" in entry else path
                yield ctx.at(
                    bundle,
                    where,
                    "TD409",
                    f"format {param.format!r} is not checked; "
                    f"checked formats: {', '.join(sorted(known))}",
                    spec.name,
                )


@rule("TD410", "timeout-not-enforceable", Severity.WARNING)
def _timeout_not_enforceable(ctx: LintContext) -> Iterator[Diagnostic]:
    """A ``timeout`` on a tool whose handler cannot be pre-empted when it runs over.

    Why: tooldeck enforces a timeout by cancelling an async handler at its
    next ``await`` or by interrupting a sync handler on its worker thread. An
    ``inline: true`` tool runs on the caller's event loop thread, and an
    ``async def`` handler that never awaits has no point where it can be
    cancelled: either one holds everything else up for as long as it runs,
    whatever the timeout says.

    Bad:  ``inline: true`` with ``timeout: 2s``
    Good: ``timeout: 2s`` without ``inline`` (the handler runs on a worker thread)
    """
    for bundle, spec, path, entry in ctx.tools():
        if spec.timeout is None:
            continue
        if spec.inline:
            why = "it runs inline on the caller's event loop"
        elif _never_awaits(spec.handler):
            why = "its async handler never awaits, so it cannot be cancelled"
        else:
            continue
        where = (*path, "timeout") if "timeout" in entry else path
        yield ctx.at(
            bundle,
            where,
            "TD410",
            f"tool {spec.name!r} declares a timeout that cannot be enforced: {why}; "
            "remove `inline`, or make the handler await (or a plain function)",
            spec.name,
        )


_AWAIT_OPS = frozenset(
    {"GET_AWAITABLE", "GET_AITER", "GET_ANEXT", "BEFORE_ASYNC_WITH", "YIELD_VALUE", "SEND"}
)


def _never_awaits(handler: Any) -> bool:
    """Whether ``handler`` is a coroutine function with no await point anywhere in its code.

    A callable instance is judged by its class's ``__call__``.
    """
    function = inspect.unwrap(getattr(handler, "__func__", handler))
    if not inspect.isfunction(function) and not inspect.ismethod(function):
        call = getattr(type(function), "__call__", None)  # noqa: B004 - callable instances
        if inspect.isfunction(call):
            function = inspect.unwrap(call)
    if not inspect.iscoroutinefunction(function):
        return False
    code = getattr(function, "__code__", None)
    return code is not None and not _has_await(code)


def _has_await(code: types.CodeType) -> bool:
    import dis

    if any(op.opname in _AWAIT_OPS for op in dis.get_instructions(code)):
        return True
    return any(isinstance(c, types.CodeType) and _has_await(c) for c in code.co_consts)


rule("TD411", "param-handler-mismatch", Severity.WARNING)(check_signatures)
