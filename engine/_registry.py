"""ToolRegistry: the programmatic API every other way of declaring tools compiles into.

Reads never lock: the registry holds one immutable
:class:`~tooldeck._entries.Snapshot` and every change builds the next one with
the pure functions of :mod:`tooldeck._entries` and swaps the reference under
a lock, so a lookup sees either the old or the new set, never half of one.
Entries carry a ``group`` (``None`` for code, a manifest source otherwise) so
a loader can replace all of its entries at once with
:meth:`ToolRegistry.replace_groups` without touching what code registered.

This module is registration and lookup; calling lives in
:mod:`tooldeck._calling.dispatch` (inherited), compiling in :mod:`tooldeck._prepare`,
and every change of any kind reaches :meth:`ToolRegistry.subscribe` listeners
through :class:`~tooldeck._subscribers.Subscribers`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, overload

from ._binding import CallEnv, PreparedTool
from ._calling import AfterHook, ApprovalCallback, BeforeHook, CallDispatch, Policy, WorkerPool
from ._diagnostics import Diagnostic, Severity
from ._entries import (
    KIND_LABELS,
    WEB_SEARCH,
    DuplicatePolicy,
    Entry,
    GroupContent,
    Kind,
    RegistryChange,
    Snapshot,
    StagedGroup,
    check_policy,
    replace_groups,
    stage,
    with_entry,
    without_entry,
)
from ._lastreload import ReloadStatus, ReloadStatusSource
from ._log import get_logger
from ._model import (
    McpServerSpec,
    PromptSpec,
    ResourceSpec,
    ToolSpec,
    WebSearchSpec,
)
from ._names import is_provider_safe, safe_name
from ._portal import LoopPortal, running_loop
from ._prepare import prepare_tool
from ._promptaccess import PromptAccess
from ._prompts import PreparedPrompt, prepare_prompt
from ._resourceapi import ResourceRegistration
from ._resourceread import PreparedResource, prepare_resource
from ._secrets import Secrets
from ._shortcuts import RegistrationShortcuts, SpecT
from ._sources import SourceHolder, Sources
from ._subscribers import Subscriber, Subscribers

__all__ = ["DuplicatePolicy", "GroupContent", "RegistryChange", "ToolRegistry"]

if TYPE_CHECKING:
    import asyncio

log = get_logger("tooldeck.registry")


class ToolRegistry(
    RegistrationShortcuts, PromptAccess, ResourceRegistration, SourceHolder, CallDispatch
):
    """Holds tools, prompts and resources, and calls tools with validated arguments.

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
            :class:`~tooldeck._calling.policies.ApprovalRequest`; returns True/False or a
            :class:`~tooldeck._calling.policies.Decision` (sync or async). Without it such
            calls are denied, unless ``allow_side_effects`` (trusted contexts).
        max_workers: threads for sync handlers under ``acall`` or a timeout; a
            saturated pool answers with an error instead of queueing.
        trace_arguments: record arguments and results on OpenTelemetry spans.
        tracer_provider: an OpenTelemetry TracerProvider for this registry's spans;
            by default the global one, a no-op until the application installs an SDK.
        loop: the event loop coroutine handlers (and async hooks and approvers)
            belong to. By default the loop running where the registry is
            created, if any; :meth:`use_loop` changes it later.
        max_media_bytes: what one result's images, audio and files may hold (None: 10 MiB).
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
        loop: asyncio.AbstractEventLoop | None = None,
        max_media_bytes: int | None = None,
    ) -> None:
        check_policy(on_duplicate)
        self._on_duplicate: DuplicatePolicy = on_duplicate
        self._lenient = lenient
        self._raise_errors = raise_errors
        self._diagnostics: list[Diagnostic] = []
        resolved = Path(project_dir).resolve() if project_dir is not None else None
        self.secrets = Secrets()
        """Values never shown in output (the manifest loader adds env values)."""
        self._env = CallEnv(
            resolved,
            MappingProxyType(dict(config or {})),
            secrets=self.secrets,
            max_media_bytes=max_media_bytes,
        )
        self._snapshot = Snapshot()
        self._lock = threading.RLock()
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
        self._subscribers = Subscribers()
        self._sources = Sources()
        self.use_loop(loop if loop is not None else running_loop())
        self._reloads: ReloadStatusSource | None = None

    # ----------------------------------------------------------------- settings
    @property
    def project_dir(self) -> Path | None:
        return self._env.project_dir

    @property
    def config(self) -> Mapping[str, Any]:
        return self._env.config

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop coroutine handlers run on (None: a fresh loop per sync call)."""
        portal = self._env.portal
        return None if portal is None else portal.loop

    def use_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """Run coroutine handlers, async hooks and approvers on ``loop`` from now on.

        Sync callers in other threads submit to it and wait; async callers on
        it await directly. ``None`` goes back to a fresh loop per sync call.
        """
        self._env.portal = None if loop is None else LoopPortal(loop)

    @property
    def reload_status(self) -> ReloadStatus | None:
        """The outcome of the last reload of manifests into this registry (None before any).

        Read-only: the status belongs to the manifests that reload
        (:class:`~tooldeck.LiveManifests`, which a watcher runs); the registry
        asks the ones that reloaded into it last (:meth:`follow_reloads`).
        """
        source = self._reloads
        return None if source is None else source.status

    def follow_reloads(self, source: ReloadStatusSource) -> None:
        """Answer :attr:`reload_status` from ``source`` from now on (its ``status``)."""
        self._reloads = source

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Warnings found while registering (e.g. names providers reject)."""
        return tuple(self._diagnostics)

    # ------------------------------------------------------------ registration
    @overload
    def add(
        self,
        spec: PreparedTool,
        *,
        on_duplicate: DuplicatePolicy | None = None,
        group: str | None = None,
    ) -> ToolSpec: ...
    @overload
    def add(
        self,
        spec: PreparedPrompt,
        *,
        on_duplicate: DuplicatePolicy | None = None,
        group: str | None = None,
    ) -> PromptSpec: ...
    @overload
    def add(
        self,
        spec: SpecT,
        *,
        on_duplicate: DuplicatePolicy | None = None,
        group: str | None = None,
    ) -> SpecT: ...
    def add(
        self, spec: Any, *, on_duplicate: DuplicatePolicy | None = None, group: str | None = None
    ) -> Any:
        """Register a ready-made spec of any kind: tool, prompt, resource, MCP server, web search.

        ``add_tool``, ``add_prompt``, ``add_mcp_server`` and ``add_web_search``
        build the spec from arguments and hand it here. A registry has one web
        search, so a second one follows ``on_duplicate`` as a tool of the same name does.
        """
        value: PreparedTool | PreparedPrompt | PreparedResource | McpServerSpec | WebSearchSpec
        if isinstance(spec, ToolSpec | PreparedTool):
            value = spec if isinstance(spec, PreparedTool) else prepare_tool(spec)
            kind: Kind = "tool"
        elif isinstance(spec, PromptSpec | PreparedPrompt):
            value = spec if isinstance(spec, PreparedPrompt) else prepare_prompt(spec)
            kind = "prompt"
        elif isinstance(spec, ResourceSpec | PreparedResource):
            value = spec if isinstance(spec, PreparedResource) else prepare_resource(spec)
            kind = "resource"
        elif isinstance(spec, McpServerSpec):
            value, kind = spec, "mcp_server"
        elif isinstance(spec, WebSearchSpec):
            value, kind = spec, "web_search"
        else:
            raise TypeError(
                f"add() takes a tool, prompt, resource, MCP server or web search spec, not {spec!r}"
            )
        name = (
            WEB_SEARCH
            if isinstance(value, WebSearchSpec)
            else value.key
            if isinstance(value, PreparedResource)
            else value.name
        )
        return self._put(kind, name, Entry(value, group), on_duplicate).spec

    def remove_tool(self, name: str) -> bool:
        """Remove a tool (by its name or provider-safe name); returns whether it was there."""
        prepared = self._resolve(name)
        return prepared is not None and self._drop("tool", prepared.name)

    def remove_prompt(self, name: str) -> bool:
        """Remove a prompt; returns whether it was there."""
        return self._drop("prompt", name)

    def remove_mcp_server(self, name: str) -> bool:
        """Remove an MCP server declaration; returns whether it was there."""
        return self._drop("mcp_server", name)

    def remove_web_search(self) -> bool:
        """Turn hosted web search off; returns whether it was on."""
        return self._drop("web_search", WEB_SEARCH)

    def replace_group(
        self,
        group: str,
        tools: Iterable[ToolSpec | PreparedTool] = (),
        prompts: Iterable[PromptSpec | PreparedPrompt] = (),
        servers: Iterable[McpServerSpec] = (),
        web_search: WebSearchSpec | None = None,
        *,
        resources: Iterable[ResourceSpec | PreparedResource] = (),
    ) -> RegistryChange:
        """Atomically replace everything ``group`` declared with the given entries.

        All-or-nothing: every spec is prepared first, and a name already taken
        by another group (or by code) raises :class:`DuplicateToolError`
        naming both, leaving the registry as it was.
        """
        content = GroupContent(
            tuple(tools), tuple(prompts), tuple(servers), web_search, resources=tuple(resources)
        )
        return self.replace_groups({group: content})[group]

    def replace_groups(self, updates: Mapping[str, GroupContent]) -> dict[str, RegistryChange]:
        """Replace several groups in one swap: readers see all of the change or none.

        A hot reload of several edited files uses this, so no call ever sees
        one file's new tools next to another file's old ones. Tools and
        prompts that come prepared are used as they are. The changes are by
        group, including a group that gave up a name (``GroupContent.yields``).
        """
        staged = {group: _stage(group, content) for group, content in updates.items()}
        with self._lock:
            self._snapshot, changes = replace_groups(self._snapshot, staged)
        for change in changes.values():
            for name in change.added + change.changed:
                self._note_name(name)
        self._subscribers.notify(changes.items())
        return changes

    # ------------------------------------------------------------ subscriptions
    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(group, change)`` after every change of any kind; returns an unsubscribe.

        ``group`` is None for code registrations, ``manifest:<file>`` for
        manifests. The MCP server uses this to tell clients a list changed.
        A sync callback runs in the thread that made the change (the
        reload worker during hot reload); an ``async def`` callback runs on
        the event loop that was running where it subscribed (or the
        registry's loop). A failing callback is logged and never breaks the change.
        """
        return self._subscribers.add(callback, self.loop)

    # ------------------------------------------------------------------ lookup
    def get_tool(self, name: str) -> ToolSpec | None:
        """The tool registered under ``name`` (or under its provider-safe name)."""
        entry = self._resolve(name)
        return entry.spec if entry is not None else None

    def tools(self) -> tuple[ToolSpec, ...]:
        """Every tool, in registration order; stale sources refresh first (:meth:`refresh_sources`).

        On an event loop's thread the sources are not waited for: async code
        lists with :meth:`atools`.
        """
        if self._sources:
            self._sources.refresh()
        return tuple(t.spec for t in self._snapshot.tools.values())

    async def atools(self) -> tuple[ToolSpec, ...]:
        """Every tool, in registration order, after the stale sources refreshed (awaited)."""
        if self._sources:
            await self._sources.arefresh()
        return tuple(t.spec for t in self._snapshot.tools.values())

    def group_of(self, name: str) -> str | None:
        """The group a tool belongs to (``None`` for tools registered in code)."""
        prepared = self._resolve(name)
        if prepared is None:
            raise KeyError(name)
        return self._snapshot.table("tool")[prepared.name].group

    def input_schema(self, name: str) -> dict[str, Any]:
        """The JSON Schema (Draft 2020-12) of a tool's arguments."""
        entry = self._resolve(name)
        if entry is None:
            raise KeyError(name)
        return entry.schema

    def safe_name(self, name: str) -> str:
        """The name to show providers: the name itself when they accept it.

        Otherwise the shortest safe form that no other tool has
        (``github.get_issue`` -> ``github_get_issue``), with a short hash only
        when another registered name has that form too; calls under it find
        the tool. For a name not registered, the form it would get now.
        """
        snap = self._snapshot
        found = snap.safe_names.get(name)
        if found is not None or name in snap.tools:
            return found or name
        return safe_name(name, taken=snap.tools.keys())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._resolve(name) is not None

    @property
    def generation(self) -> int:
        """Grows with every change of the entries (code, reload, attached server) or secrets."""
        return self._snapshot.serial + self.secrets.generation

    def __len__(self) -> int:
        return len(self._snapshot.tools)

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

    def close(self) -> None:
        """Shut down the worker threads this registry created."""
        self._policy.pool.shutdown()

    def __enter__(self) -> ToolRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- internals
    def _put(
        self, kind: Kind, name: str, entry: Entry, on_duplicate: DuplicatePolicy | None
    ) -> Entry:
        """Add one entry under the duplicate policy; the entry the registry now holds."""
        policy = on_duplicate or self._on_duplicate
        check_policy(policy)
        with self._lock:
            outcome = with_entry(self._snapshot, kind, name, entry, policy)
            if outcome is None:
                log.warning(
                    "%s %r is already registered; keeping the first", KIND_LABELS[kind], name
                )
                return self._snapshot.table(kind)[name]
            self._snapshot, change = outcome
        if kind == "tool":
            self._note_name(name)
        self._subscribers.notify([(entry.group, change)])
        return entry

    def _drop(self, kind: Kind, name: str) -> bool:
        with self._lock:
            outcome = without_entry(self._snapshot, kind, name)
            if outcome is None:
                return False
            self._snapshot, group, change = outcome
        self._subscribers.notify([(group, change)])
        return True

    def _note_name(self, name: str) -> None:
        if is_provider_safe(name):
            return
        message = (
            f"tool name {name!r} is rejected by providers (allowed: letters, digits, "
            f"_ and -, at most 64); exports use {self.safe_name(name)!r}"
        )
        with self._lock:
            if any(d.tool_name == name and d.code == "TD120" for d in self._diagnostics):
                return
            self._diagnostics.append(
                Diagnostic(code="TD120", message=message, severity=Severity.WARNING, tool_name=name)
            )
        log.warning(message)


def _stage(group: str, content: GroupContent) -> StagedGroup:
    """Prepare what is not prepared yet (outside the lock), then stage it."""
    tools = [t if isinstance(t, PreparedTool) else prepare_tool(t) for t in content.tools]
    prompts = [p if isinstance(p, PreparedPrompt) else prepare_prompt(p) for p in content.prompts]
    resources = [
        r if isinstance(r, PreparedResource) else prepare_resource(r) for r in content.resources
    ]
    return stage(
        group,
        tools,
        prompts,
        content.servers,
        content.web_search,
        uses=content.uses,
        resources=resources,
        prompt_uses=content.prompt_uses,
        yields=content.yields,
    )
