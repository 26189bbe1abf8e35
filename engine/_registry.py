"""ToolRegistry: the programmatic API every other way of declaring tools compiles into.

Reads never lock: the registry holds one immutable :class:`_Snapshot` and
every change builds a new one beside it and swaps the reference under a lock,
so a lookup sees either the old or the new set, never half of one. Entries
carry a ``group`` (``None`` for code, a manifest source otherwise) so a
loader can replace all of its tools at once with :meth:`ToolRegistry.replace_group`
without touching what code registered.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, cast, overload

from tooldeck._binding import CallEnv, PreparedTool, prepare_tool
from tooldeck._calls import (
    acall_prepared,
    call_prepared,
    new_call_id,
    run_coroutine,
    unknown_tool,
)
from tooldeck._diagnostics import Diagnostic, Severity
from tooldeck._errors import DuplicateToolError, RegistrationError, ToolCallError
from tooldeck._execution import Policy, arun_guarded, run_guarded, tracing_active
from tooldeck._inference import describe_handler, infer_params, snake_case
from tooldeck._model import (
    McpServerSpec,
    ParamDescriptor,
    PromptSpec,
    ResultSpec,
    ToolCall,
    ToolResult,
    ToolSpec,
    WebSearchSpec,
)
from tooldeck._names import is_provider_safe, safe_name
from tooldeck._policies import AfterHook, ApprovalCallback, BeforeHook, WorkerPool
from tooldeck._prompts import PreparedPrompt, PromptMessage, prepare_prompt
from tooldeck._secrets import Secrets

__all__ = ["DuplicatePolicy", "GroupContent", "RegistryChange", "ToolRegistry"]

log = logging.getLogger("tooldeck.registry")

DuplicatePolicy = Literal["error", "replace", "warn"]


@dataclass(frozen=True)
class _Grouped:
    """A hosted entry (MCP server, web search) and the group that declared it."""

    spec: Any
    group: str | None


_NO_ENTRIES: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class _Snapshot:
    tools: Mapping[str, PreparedTool] = field(default_factory=lambda: _NO_ENTRIES)
    prompts: Mapping[str, PreparedPrompt] = field(default_factory=lambda: _NO_ENTRIES)
    aliases: Mapping[str, str] = field(default_factory=lambda: _NO_ENTRIES)
    """Provider-safe name -> registered name, for names providers reject."""
    servers: Mapping[str, _Grouped] = field(default_factory=lambda: _NO_ENTRIES)
    web_search: _Grouped | None = None


_EMPTY = _Snapshot()


@dataclass(frozen=True)
class RegistryChange:
    """What a group replacement added, removed and changed (names, sorted)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    prompts_added: tuple[str, ...] = ()
    prompts_removed: tuple[str, ...] = ()
    prompts_changed: tuple[str, ...] = ()
    servers_added: tuple[str, ...] = ()
    servers_removed: tuple[str, ...] = ()
    servers_changed: tuple[str, ...] = ()
    web_search_changed: bool = False

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class GroupContent:
    """Everything one group (one manifest file) declares, for ``replace_groups``."""

    tools: tuple[ToolSpec, ...] = ()
    prompts: tuple[PromptSpec, ...] = ()
    servers: tuple[McpServerSpec, ...] = ()
    web_search: WebSearchSpec | None = None


@dataclass
class _Settings:
    project_dir: Path | None
    config: Mapping[str, Any]
    lenient: bool
    raise_errors: bool
    on_duplicate: DuplicatePolicy
    diagnostics: list[Diagnostic] = field(default_factory=list)


class _Keep:
    """Marker: leave this part of the snapshot as it is."""


_KEEP = _Keep()


class ToolRegistry:
    """Holds tools and prompts, and calls tools with validated arguments.

    Args:
        project_dir: injected into handler parameters named ``project_dir``.
        config: the mapping handlers receive through ``ToolContext.config``.
        on_duplicate: what adding an existing name does: ``error`` (default),
            ``replace`` or ``warn`` (keep the first, log a warning).
        lenient: coerce near-miss arguments ("3" -> 3) for every tool whose
            spec does not say otherwise.
        raise_errors: make ``call``/``acall`` raise :class:`ToolCallError`
            instead of returning error results.
        default_timeout: seconds for tools that set no ``timeout`` (None: no limit).
        approve: called before every call of a ``side_effects`` tool with an
            :class:`~tooldeck._policies.ApprovalRequest`; returns True/False or a
            :class:`~tooldeck._policies.Decision` (sync or async). Without it such
            calls are denied, unless ``allow_side_effects`` (trusted contexts).
        max_workers: threads for sync handlers under ``acall`` or a timeout; a
            saturated pool answers with an error instead of queueing.
        trace_arguments: record arguments and results on OpenTelemetry spans.
        tracer_provider: an OpenTelemetry TracerProvider for this registry's spans;
            by default the global one, a no-op until the application installs an SDK.
    """

    def __init__(
        self,
        *,
        project_dir: str | Path | None = None,
        config: Mapping[str, Any] | None = None,
        on_duplicate: DuplicatePolicy = "error",
        lenient: bool = False,
        raise_errors: bool = False,
        default_timeout: float | None = None,
        approve: ApprovalCallback | None = None,
        allow_side_effects: bool = False,
        max_workers: int = 32,
        trace_arguments: bool = False,
        tracer_provider: Any = None,
    ) -> None:
        _check_policy(on_duplicate)
        self._settings = _Settings(
            project_dir=Path(project_dir).resolve() if project_dir is not None else None,
            config=MappingProxyType(dict(config or {})),
            lenient=lenient,
            raise_errors=raise_errors,
            on_duplicate=on_duplicate,
        )
        self._env = CallEnv(self._settings.project_dir, self._settings.config)
        self._snapshot = _EMPTY
        self._lock = threading.RLock()
        self.secrets = Secrets()
        """Values never shown in output (the manifest loader adds env values)."""
        self._policy = Policy(
            default_timeout=default_timeout,
            approve=approve,
            allow_side_effects=allow_side_effects,
            pool=WorkerPool(max_workers),
            trace_arguments=trace_arguments,
            tracer_provider=tracer_provider,
            secrets=self.secrets,
        )
        self._fast = not self._policy.active
        """No registry-wide policy: plain tools may take the fast path."""
        self._checked: dict[int, tuple[ToolSpec, PreparedTool]] = {}
        self._subscribers: list[Callable[[str | None, RegistryChange], Any]] = []
        self.reload_status: Any = None
        """Set by :mod:`tooldeck._reload` while manifests are watched: the last reload's outcome."""

    @classmethod
    def from_manifests(
        cls,
        paths: Iterable[str | Path],
        *,
        config: Mapping[str, Any] | str | Path | None = None,
        allowed_handlers: Iterable[str] = (),
        app_class: type | None = None,
        **options: Any,
    ) -> ToolRegistry:
        """A registry holding the tools of ``paths``; raises ManifestError if any has errors.

        ``options`` are the constructor's (``project_dir``, ``lenient`` ...).
        Use :func:`tooldeck.load_manifests` to get the diagnostics as values.
        """
        from tooldeck._config import load_config
        from tooldeck.manifest._loader import load_manifests

        loaded = load_config(config)
        registry = cls(config=loaded.data, **options)
        _, result = load_manifests(
            paths,
            registry=registry,
            config=loaded,
            allowed_handlers=allowed_handlers,
            app_class=app_class,
        )
        result.raise_for_errors()
        return registry

    # ----------------------------------------------------------------- settings
    @property
    def project_dir(self) -> Path | None:
        return self._settings.project_dir

    @property
    def config(self) -> Mapping[str, Any]:
        return self._settings.config

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Warnings found while registering (e.g. names providers reject)."""
        return tuple(self._settings.diagnostics)

    # ------------------------------------------------------------ registration
    def add_tool(
        self,
        name: str | None = None,
        description: str | None = None,
        handler: Callable[..., Any] | None = None,
        *params: ParamDescriptor,
        infer: bool | None = None,
        on_duplicate: DuplicatePolicy | None = None,
        result: ResultSpec | Mapping[str, Any] | None = None,
        **options: Any,
    ) -> ToolSpec:
        """Register a tool, as the seed's ``addTool(name, description, function, params...)``.

        ``name`` defaults to the handler's name in snake_case, ``description``
        to its docstring. With no ``params`` (and ``infer`` not False) they
        are inferred from the handler's signature and docstring. ``options``
        are :class:`ToolSpec` fields (tags, side_effects, timeout, ...).
        """
        if handler is None or not callable(handler):
            raise RegistrationError("add_tool needs a callable handler", tool_name=name)
        if infer is None:
            infer = not params
        if infer and not params:
            params = infer_params(handler)
        if result is not None and not isinstance(result, ResultSpec):
            result = ResultSpec(**result)
        spec = ToolSpec(
            name=name or snake_case(getattr(handler, "__name__", "") or "tool"),
            description=description if description is not None else describe_handler(handler),
            handler=handler,
            params=tuple(params),
            result=result,
            **options,
        )
        return self.add(spec, on_duplicate=on_duplicate)

    def add_external_tool(
        self,
        name: str,
        description: str,
        input_schema: Mapping[str, Any],
        handler: Callable[..., Any],
        *,
        on_duplicate: DuplicatePolicy | None = None,
        **options: Any,
    ) -> ToolSpec:
        """Register a tool that brings its own JSON Schema (MCP servers, hand-written).

        The handler is called as ``handler(arguments=<dict>)``, sync or async,
        plus a ``ToolContext`` if it has a parameter annotated with one.
        """
        spec = ToolSpec(
            name=name,
            description=description,
            handler=handler,
            input_schema=dict(input_schema),
            **options,
        )
        return self.add(spec, on_duplicate=on_duplicate)

    @overload
    def tool(self, func: Callable[..., Any], /) -> Callable[..., Any]: ...
    @overload
    def tool(
        self,
        func: None = None,
        /,
        **kwargs: Any,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...
    def tool(self, func: Callable[..., Any] | None = None, /, **kwargs: Any) -> Any:
        """Decorator form: ``@registry.tool`` or ``@registry.tool(name=..., timeout=...)``."""

        def register(handler: Callable[..., Any]) -> Callable[..., Any]:
            self.add_tool(
                kwargs.pop("name", None),
                kwargs.pop("description", None),
                handler,
                *kwargs.pop("params", ()),
                **kwargs,
            )
            return handler

        return register(func) if func is not None else register

    def add(
        self,
        spec: ToolSpec,
        *,
        on_duplicate: DuplicatePolicy | None = None,
        group: str | None = None,
    ) -> ToolSpec:
        """Register a ready-made :class:`ToolSpec` (what manifests compile into)."""
        prepared = prepare_tool(spec, group=group)
        policy = on_duplicate or self._settings.on_duplicate
        _check_policy(policy)
        with self._lock:
            snap = self._snapshot
            if spec.name in snap.tools and not self._may_add(spec.name, policy, "tool"):
                return snap.tools[spec.name].spec
            existed = spec.name in snap.tools
            tools = dict(snap.tools)
            tools[spec.name] = prepared
            self._publish(tools)
        self._note_name(spec.name)
        name = (spec.name,)
        change = RegistryChange(changed=name) if existed else RegistryChange(added=name)
        self._notify([(group, change)])
        return spec

    def add_prompt(
        self,
        name: str | None = None,
        description: str | None = None,
        template: str | Callable[..., Any] | None = None,
        *params: ParamDescriptor,
        role: Literal["assistant", "user"] = "assistant",
        on_duplicate: DuplicatePolicy | None = None,
        **options: Any,
    ) -> PromptSpec:
        """Register a prompt from a ``{placeholder}`` template or a handler returning text."""
        if callable(template):
            handler, text = template, None
            if not params:
                params = infer_params(handler)
            name = name or snake_case(getattr(handler, "__name__", "prompt"))
            if description is None:
                description = describe_handler(handler)
        else:
            handler, text = None, template
        if not name:
            raise RegistrationError("a prompt needs a name")
        spec = PromptSpec(
            name=name,
            description=description or "",
            role=role,
            params=tuple(params),
            template=text,
            handler=handler,
            **options,
        )
        return self.add_prompt_spec(spec, on_duplicate=on_duplicate)

    def add_prompt_spec(
        self,
        spec: PromptSpec,
        *,
        on_duplicate: DuplicatePolicy | None = None,
        group: str | None = None,
    ) -> PromptSpec:
        prepared = prepare_prompt(spec, group=group)
        policy = on_duplicate or self._settings.on_duplicate
        with self._lock:
            snap = self._snapshot
            if spec.name in snap.prompts and not self._may_add(spec.name, policy, "prompt"):
                return snap.prompts[spec.name].spec
            prompts = dict(snap.prompts)
            prompts[spec.name] = prepared
            self._publish(prompts=prompts)
        return spec

    def remove_tool(self, name: str) -> bool:
        """Remove a tool; returns whether it was there."""
        with self._lock:
            snap = self._snapshot
            name = snap.aliases.get(name, name)
            if name not in snap.tools:
                return False
            tools = dict(snap.tools)
            group = tools.pop(name).group
            self._publish(tools)
        self._notify([(group, RegistryChange(removed=(name,)))])
        return True

    def remove_prompt(self, name: str) -> bool:
        with self._lock:
            snap = self._snapshot
            if name not in snap.prompts:
                return False
            prompts = dict(snap.prompts)
            del prompts[name]
            self._publish(prompts=prompts)
            return True

    def replace_group(
        self,
        group: str,
        tools: Iterable[ToolSpec] = (),
        prompts: Iterable[PromptSpec] = (),
        servers: Iterable[McpServerSpec] = (),
        web_search: WebSearchSpec | None = None,
    ) -> RegistryChange:
        """Atomically replace everything ``group`` declared with the given entries.

        All-or-nothing: every spec is prepared first, and a name already taken
        by another group (or by code) raises :class:`DuplicateToolError`
        naming both, leaving the registry as it was.
        """
        content = GroupContent(tuple(tools), tuple(prompts), tuple(servers), web_search)
        return self.replace_groups({group: content})[group]

    def replace_groups(self, updates: Mapping[str, GroupContent]) -> dict[str, RegistryChange]:
        """Replace several groups in one swap: readers see all of the change or none.

        A hot reload of several edited files uses this, so no call ever sees
        one file's new tools next to another file's old ones.
        """
        staged = {group: self._stage(group, content) for group, content in updates.items()}
        with self._lock:
            snap = self._snapshot
            claimed: dict[tuple[str, str], str] = {}
            for group, (tools, prompts, servers, search) in staged.items():
                for kind, current, incoming in (
                    ("tool", snap.tools, tools),
                    ("prompt", snap.prompts, prompts),
                    ("MCP server", snap.servers, servers),
                ):
                    for name in incoming:
                        other = current.get(name)
                        if other is not None and other.group != group and other.group not in staged:
                            raise _taken(kind, name, group, other.group)
                        if (kind, name) in claimed:
                            raise _taken(kind, name, group, claimed[kind, name])
                        claimed[kind, name] = group
                old = snap.web_search
                if search is not None and old is not None and old.group not in (group, *staged):
                    raise _taken("web search", "web_search", group, old.group)
            tools_now = {n: t for n, t in snap.tools.items() if t.group not in staged}
            prompts_now = {n: p for n, p in snap.prompts.items() if p.group not in staged}
            servers_now = {n: e for n, e in snap.servers.items() if e.group not in staged}
            search_now = snap.web_search
            if search_now is not None and search_now.group in staged:
                search_now = None
            for tools, prompts, servers, search in staged.values():
                tools_now.update(tools)
                prompts_now.update(prompts)
                servers_now.update(servers)
                if search is not None:
                    search_now = search
            changes = {
                group: _diff(snap, tools_now, prompts_now, servers_now, search_now, group)
                for group in staged
            }
            self._publish(tools_now, prompts_now, servers_now, search_now)
        for change in changes.values():
            for name in change.added + change.changed:
                self._note_name(name)
        self._notify(changes.items())
        return changes

    def _stage(
        self, group: str, content: GroupContent
    ) -> tuple[
        dict[str, PreparedTool], dict[str, PreparedPrompt], dict[str, _Grouped], _Grouped | None
    ]:
        tools = {spec.name: self._prepared(spec, group) for spec in _unique(content.tools, "tool")}
        prompts = {
            spec.name: prepare_prompt(spec, group=group)
            for spec in _unique(content.prompts, "prompt")
        }
        servers = {s.name: _Grouped(s, group) for s in _unique(content.servers, "MCP server")}
        search = None if content.web_search is None else _Grouped(content.web_search, group)
        return tools, prompts, servers, search

    # ------------------------------------------------------------ subscriptions
    def subscribe(
        self, callback: Callable[[str | None, RegistryChange], Any]
    ) -> Callable[[], None]:
        """Call ``callback(group, change)`` after every change; returns an unsubscribe function.

        ``group`` is None for code registrations, ``manifest:<file>`` for
        manifests. The MCP server uses this to tell clients the tool list
        changed. A failing callback is logged and never breaks the change.
        """
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _notify(self, changes: Iterable[tuple[str | None, RegistryChange]]) -> None:
        subscribers = list(self._subscribers)
        for group, change in changes:
            if not change:
                continue
            for callback in subscribers:
                try:
                    callback(group, change)
                except (Exception, SystemExit) as exc:
                    log.warning("registry subscriber %r failed: %s", callback, exc)

    def validate_spec(self, spec: ToolSpec, *, group: str | None = None) -> None:
        """Prepare ``spec`` now, raising RegistrationError; a later add reuses the work.

        Loaders call this per tool to turn each declaration mistake into its
        own diagnostic, then register the good ones in one atomic swap.
        """
        prepared = prepare_tool(spec, group=group)
        with self._lock:
            self._checked[id(spec)] = (spec, prepared)

    def _prepared(self, spec: ToolSpec, group: str | None) -> PreparedTool:
        with self._lock:
            cached = self._checked.pop(id(spec), None)
        if cached is not None and cached[0] is spec and cached[1].group == group:
            return cached[1]
        return prepare_tool(spec, group=group)

    # ------------------------------------------------------------ hosted tools
    def add_web_search(
        self,
        type: str = "default",
        city: str | None = None,
        country: str | None = None,
        region: str | None = None,
    ) -> WebSearchSpec:
        """Enable provider-hosted web search (``default`` -> ``web_search_preview``)."""
        spec = WebSearchSpec(type=type, city=city, country=country, region=region)
        with self._lock:
            self._publish(web_search=_Grouped(spec, None))
        return spec

    def add_mcp_server(
        self,
        name: str,
        url: str | None = None,
        authorization: str | None = None,
        description: str | None = None,
        *,
        on_duplicate: DuplicatePolicy | None = None,
        **options: Any,
    ) -> McpServerSpec:
        """Declare an MCP server, as the seed's ``addMcpServer(name, url, auth, description)``.

        ``options`` are :class:`McpServerSpec` fields (``command``, ``via``,
        ``prefix``, ``cache_ttl`` ...). Connecting happens in ``tooldeck.mcp``.
        """
        spec = McpServerSpec(
            name=name, url=url, authorization=authorization, description=description, **options
        )
        policy = on_duplicate or self._settings.on_duplicate
        with self._lock:
            snap = self._snapshot
            if name in snap.servers and not self._may_add(name, policy, "MCP server"):
                return cast(McpServerSpec, snap.servers[name].spec)
            servers = dict(snap.servers)
            servers[name] = _Grouped(spec, None)
            self._publish(servers=servers)
        return spec

    def web_search(self) -> WebSearchSpec | None:
        """The configured hosted web search, if any."""
        entry = self._snapshot.web_search
        return None if entry is None else cast(WebSearchSpec, entry.spec)

    def mcp_servers(self) -> tuple[McpServerSpec, ...]:
        """Every declared MCP server, in declaration order."""
        return tuple(cast(McpServerSpec, e.spec) for e in self._snapshot.servers.values())

    def group_of(self, name: str) -> str | None:
        """The group a tool belongs to (``None`` for tools registered in code)."""
        entry = self._lookup(name)
        if entry is None:
            raise KeyError(name)
        return entry.group

    # ------------------------------------------------------------------ lookup
    def get_tool(self, name: str) -> ToolSpec | None:
        """The tool registered under ``name`` (or under its provider-safe name)."""
        entry = self._lookup(name)
        return entry.spec if entry is not None else None

    def tools(self) -> tuple[ToolSpec, ...]:
        """Every tool, in registration order."""
        return tuple(t.spec for t in self._snapshot.tools.values())

    def get_prompt(self, name: str) -> PromptSpec | None:
        entry = self._snapshot.prompts.get(name)
        return entry.spec if entry is not None else None

    def prompts(self) -> tuple[PromptSpec, ...]:
        return tuple(p.spec for p in self._snapshot.prompts.values())

    def input_schema(self, name: str) -> dict[str, Any]:
        """The JSON Schema (Draft 2020-12) of a tool's arguments."""
        entry = self._lookup(name)
        if entry is None:
            raise KeyError(name)
        return entry.schema

    def safe_name(self, name: str) -> str:
        """The name to show providers: the name itself when they accept it."""
        return safe_name(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._lookup(name) is not None

    def __len__(self) -> int:
        return len(self._snapshot.tools)

    def _lookup(self, name: str) -> PreparedTool | None:
        snap = self._snapshot
        entry = snap.tools.get(name)
        if entry is None and name in snap.aliases:
            entry = snap.tools.get(snap.aliases[name])
        return entry

    # ----------------------------------------------------------------- calling
    def call(
        self,
        name: str,
        arguments: Any = None,
        *,
        context: Mapping[str, Any] | None = None,
        call_id: str | None = None,
        raise_errors: bool | None = None,
    ) -> ToolResult:
        """Call a tool with arguments (a JSON string, a mapping or None).

        Never raises for a tool failure: the result says what went wrong in
        words for the model, unless ``raise_errors`` (or the registry
        setting) asks for a :class:`ToolCallError`.
        """
        call_id = call_id or new_call_id()
        snap = self._snapshot
        entry = snap.tools.get(name)
        if entry is None and name in snap.aliases:
            entry = snap.tools.get(snap.aliases[name])
        if entry is None:
            result = unknown_tool(name, snap.tools, call_id)
        else:
            lenient = entry.spec.lenient
            if lenient is None:
                lenient = self._settings.lenient
            if entry.plain and self._fast and not tracing_active():
                result = call_prepared(
                    entry, arguments, self._env, call_id=call_id, extra=context, lenient=lenient
                )
            else:
                result = run_guarded(
                    entry,
                    arguments,
                    self._env,
                    self._policy,
                    call_id=call_id,
                    extra=context,
                    lenient=lenient,
                )
        if not result.ok:
            self._failed(result, raise_errors)
        elif self.secrets:
            _redact(result, self.secrets)
        return result

    async def acall(
        self,
        name: str,
        arguments: Any = None,
        *,
        context: Mapping[str, Any] | None = None,
        call_id: str | None = None,
        raise_errors: bool | None = None,
    ) -> ToolResult:
        """The async twin of :meth:`call`; async handlers run on the running loop."""
        call_id = call_id or new_call_id()
        entry = self._lookup(name)
        if entry is None:
            result = unknown_tool(name, self._snapshot.tools, call_id)
        else:
            lenient = entry.spec.lenient
            if lenient is None:
                lenient = self._settings.lenient
            if entry.plain and self._fast and not tracing_active():
                result = await acall_prepared(
                    entry,
                    arguments,
                    self._env,
                    call_id=call_id,
                    extra=context,
                    lenient=lenient,
                    pool=self._policy.pool,
                )
            else:
                result = await arun_guarded(
                    entry,
                    arguments,
                    self._env,
                    self._policy,
                    call_id=call_id,
                    extra=context,
                    lenient=lenient,
                )
        if not result.ok:
            self._failed(result, raise_errors)
        elif self.secrets:
            _redact(result, self.secrets)
        return result

    def _failed(self, result: ToolResult, raise_errors: bool | None) -> None:
        """Redact, log one line, and raise if asked: every failed call passes here."""
        if self.secrets:
            _redact(result, self.secrets)
        kind = result.error.kind if result.error is not None else "?"
        log.warning(
            "tool call failed: tool=%s kind=%s call_id=%s attempts=%d",
            result.tool_name,
            kind,
            result.call_id,
            result.attempts,
        )
        if self._settings.raise_errors if raise_errors is None else raise_errors:
            _raise(result, self.secrets)

    # ------------------------------------------------------------------ batches
    def call_many(
        self,
        calls: Iterable[ToolCall | tuple[str, Any] | Mapping[str, Any]],
        *,
        strategy: Literal["sequential", "parallel"] = "sequential",
        limit: int | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> list[ToolResult]:
        """Run a model's batch of tool calls; results come back in the calls' order.

        One failure never stops the others. ``parallel`` runs them
        concurrently (at most ``limit`` at a time).
        """
        batch = [_as_call(c) for c in calls]
        if strategy == "sequential":
            return [
                self.call(c.name, c.arguments, call_id=c.call_id, context=context) for c in batch
            ]
        _check_strategy(strategy)
        return run_coroutine(  # type: ignore[no-any-return]
            lambda: self.acall_many(batch, strategy="parallel", limit=limit, context=context)
        )

    async def acall_many(
        self,
        calls: Iterable[ToolCall | tuple[str, Any] | Mapping[str, Any]],
        *,
        strategy: Literal["sequential", "parallel"] = "parallel",
        limit: int | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> list[ToolResult]:
        """The async twin of :meth:`call_many` (parallel by default)."""
        batch = [_as_call(c) for c in calls]
        if strategy == "sequential":
            return [
                await self.acall(c.name, c.arguments, call_id=c.call_id, context=context)
                for c in batch
            ]
        _check_strategy(strategy)
        if limit is not None and limit < 1:
            raise ValueError("limit must be at least 1")
        gate = asyncio.Semaphore(limit) if limit else None

        async def one(call: ToolCall) -> ToolResult:
            if gate is None:
                return await self.acall(
                    call.name, call.arguments, call_id=call.call_id, context=context
                )
            async with gate:
                return await self.acall(
                    call.name, call.arguments, call_id=call.call_id, context=context
                )

        return list(await asyncio.gather(*(one(c) for c in batch)))

    # -------------------------------------------------------------------- hooks
    def on_call(self, before: BeforeHook | None = None, after: AfterHook | None = None) -> None:
        """Add checks around every call: ``before(event)`` may return a ToolResult to stop
        the call (a rate limit, a policy) or raise to deny it; ``after(event, result)``
        observes every outcome (audit). Both may be sync or async."""
        with self._lock:
            if before is not None:
                self._policy.before.append(before)
            if after is not None:
                self._policy.after.append(after)
            self._fast = not self._policy.active

    def render_prompt(self, name: str, arguments: Any = None) -> PromptMessage:
        """Render a prompt's text for its role; raises ToolCallError on bad arguments."""
        entry = self._snapshot.prompts.get(name)
        if entry is None:
            raise ToolCallError("unknown_tool", f"prompt {name!r} does not exist", tool_name=name)
        if not self.secrets:
            return entry.render(arguments, self._env)
        try:
            message = entry.render(arguments, self._env)
        except ToolCallError as exc:
            raise ToolCallError(
                exc.kind, self.secrets.redact(exc.message), tool_name=exc.tool_name
            ) from None
        return replace(message, text=self.secrets.redact(message.text))

    def close(self) -> None:
        """Shut down the worker threads this registry created."""
        self._policy.pool.shutdown()

    def __enter__(self) -> ToolRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- internals
    def _may_add(self, name: str, policy: DuplicatePolicy, kind: str) -> bool:
        if policy == "replace":
            return True
        if policy == "warn":
            log.warning("%s %r is already registered; keeping the first", kind, name)
            return False
        raise DuplicateToolError(
            f"{kind} {name!r} is already registered; use on_duplicate='replace' to replace it",
            tool_name=name,
            code="TD112",
        )

    def _publish(
        self,
        tools: dict[str, PreparedTool] | None = None,
        prompts: dict[str, PreparedPrompt] | None = None,
        servers: dict[str, _Grouped] | None = None,
        web_search: _Grouped | _Keep | None = _KEEP,
    ) -> None:
        """Swap in a new snapshot; unchanged parts are shared with the old one."""
        snap = self._snapshot
        changes: dict[str, Any] = {}
        if tools is not None:
            changes["tools"] = MappingProxyType(tools)
            aliases = {safe_name(n): n for n in tools if not is_provider_safe(n)}
            changes["aliases"] = MappingProxyType(aliases)
        if prompts is not None:
            changes["prompts"] = MappingProxyType(prompts)
        if servers is not None:
            changes["servers"] = MappingProxyType(servers)
        if not isinstance(web_search, _Keep):
            changes["web_search"] = web_search
        self._snapshot = replace(snap, **changes)

    def _note_name(self, name: str) -> None:
        if is_provider_safe(name):
            return
        message = (
            f"tool name {name!r} is rejected by providers (allowed: letters, digits, "
            f"_ and -, at most 64); exports use {safe_name(name)!r}"
        )
        with self._lock:
            if any(d.tool_name == name and d.code == "TD120" for d in self._settings.diagnostics):
                return
            self._settings.diagnostics.append(
                Diagnostic(
                    code="TD120",
                    message=message,
                    severity=Severity.WARNING,
                    tool_name=name,
                )
            )
        log.warning(message)


def _check_policy(policy: str) -> None:
    if policy not in ("error", "replace", "warn"):
        raise RegistrationError(
            f"on_duplicate={policy!r} is not one of 'error', 'replace', 'warn'",
        )


def _unique(specs: Iterable[Any], kind: str) -> list[Any]:
    seen: set[str] = set()
    out = []
    for spec in specs:
        if spec.name in seen:
            raise DuplicateToolError(
                f"{kind} {spec.name!r} is declared twice", tool_name=spec.name, code="TD112"
            )
        seen.add(spec.name)
        out.append(spec)
    return out


def _taken(kind: str, name: str, group: str, owner: str | None) -> DuplicateToolError:
    by = "code" if owner is None else owner
    return DuplicateToolError(
        f"{kind} {name!r} from {group} is already registered by {by}", tool_name=name, code="TD112"
    )


def _diff(  # noqa: PLR0917 - one argument per part of the snapshot
    old: _Snapshot,
    tools: Mapping[str, PreparedTool],
    prompts: Mapping[str, PreparedPrompt],
    servers: Mapping[str, _Grouped],
    web_search: _Grouped | None,
    group: str,
) -> RegistryChange:
    def compare(
        before: Mapping[str, Any], after: Mapping[str, Any]
    ) -> tuple[
        tuple[str, ...],
        tuple[str, ...],
        tuple[str, ...],
    ]:
        mine_before = {n: e for n, e in before.items() if e.group == group}
        mine_after = {n: e for n, e in after.items() if e.group == group}
        added = tuple(sorted(set(mine_after) - set(mine_before)))
        removed = tuple(sorted(set(mine_before) - set(mine_after)))
        changed = tuple(
            sorted(
                n
                for n in set(mine_before) & set(mine_after)
                if mine_before[n].spec != mine_after[n].spec
            )
        )
        return added, removed, changed

    t_added, t_removed, t_changed = compare(old.tools, tools)
    p_added, p_removed, p_changed = compare(old.prompts, prompts)
    s_added, s_removed, s_changed = compare(old.servers, servers)
    before = old.web_search.spec if old.web_search is not None else None
    after = web_search.spec if web_search is not None else None
    return RegistryChange(
        t_added,
        t_removed,
        t_changed,
        p_added,
        p_removed,
        p_changed,
        s_added,
        s_removed,
        s_changed,
        before != after,
    )


def _raise(result: ToolResult, secrets: Secrets) -> None:
    error = result.error
    assert error is not None
    cause = error.exception
    if cause is not None and secrets and secrets.redact(str(cause)) != str(cause):
        cause = None  # its message holds a secret; a traceback would print it
    raise ToolCallError(error.kind, error.message, tool_name=result.tool_name) from cause


def _redact(result: ToolResult, secrets: Secrets) -> None:
    """Mask secrets in what the model and the user read; ``result.value`` stays raw for code."""
    result.text = secrets.redact(result.text)
    if result.error is not None:
        result.error.message = secrets.redact(result.error.message)


def _as_call(item: ToolCall | tuple[str, Any] | Mapping[str, Any]) -> ToolCall:
    if isinstance(item, ToolCall):
        return item
    if isinstance(item, tuple):
        name, arguments = item
        return ToolCall(name, arguments)
    if isinstance(item, Mapping):
        return ToolCall(item["name"], item.get("arguments"), item.get("call_id"))
    raise TypeError(
        f"a call must be a ToolCall, a (name, arguments) tuple or a mapping, not {item!r}"
    )


def _check_strategy(strategy: str) -> None:
    if strategy not in ("sequential", "parallel"):
        raise ValueError(f"strategy={strategy!r} is not 'sequential' or 'parallel'")
