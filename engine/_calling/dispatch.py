"""Calling registered tools: ``call``, ``acall``, ``call_many``, ``acall_many``.

:class:`CallDispatch` is the calling half of :class:`~tooldeck.ToolRegistry`
(a mixin, so a call costs no extra frame). Resolving a name and settling the
outcome are written once; the sync and async methods differ only where one
of them awaits. A call goes through the one pipeline
(:mod:`tooldeck._calling.pipeline`), driven by :func:`~tooldeck._calling.drivers.run_call`
or :func:`~tooldeck._calling.drivers.arun_call`. The route is decided in one place,
:meth:`CallDispatch._plain`: a plain tool (no per-tool policy) on a registry
without hooks, a default timeout or a tracer has no policy step to take, so
its steps are called directly by :func:`~tooldeck._calling.drivers.run_plain`
(from ``call``, and from ``acall`` for an ``inline`` sync handler, which has
nothing to await). A parallel batch from sync code runs on the worker threads
without an event loop unless a call needs one (:mod:`tooldeck._calling.batch`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from .._calltypes import ToolCall, ToolResult
from .._errors import ToolCallError
from .._identity import missing_scopes
from .._log import get_logger
from .._media import redact_content
from .._portal import run_on
from .batch import needs_loop, run_parallel
from .drivers import arun_call, run_call, run_plain
from .results import new_call_id, not_permitted, unavailable_use, unknown_tool
from .tracing import tracing_active

if TYPE_CHECKING:
    from .._binding import CallEnv, PreparedTool
    from .._entries import Snapshot
    from .._identity import AuthIdentity
    from .._model import McpToolUse
    from .._secrets import Secrets
    from .._sources import Sources
    from .policies import Deferral, Policy

__all__ = ["CallDispatch", "CallLike", "Strategy"]

log = get_logger("tooldeck.registry")

Strategy = Literal["sequential", "parallel"]
CallLike = ToolCall | tuple[str, Any] | Mapping[str, Any]
"""A call in a batch: a ToolCall, a ``(name, arguments)`` pair or ``{"name", "arguments"}``."""


class CallDispatch:
    """The call methods of the registry; see the module docstring."""

    _snapshot: Snapshot
    _env: CallEnv
    _policy: Policy
    _fast: bool
    """No registry-wide policy: plain tools may take the fast path."""
    _lenient: bool
    _raise_errors: bool
    _sources: Sources
    """Where tools the registry does not hold yet may come from (attached MCP servers)."""
    secrets: Secrets

    def call(
        self,
        name: str,
        arguments: Any = None,
        *,
        context: Mapping[str, Any] | None = None,
        call_id: str | None = None,
        raise_errors: bool | None = None,
        auth: AuthIdentity | None = None,
        deferral: Deferral | None = None,
    ) -> ToolResult:
        """Call a tool with arguments (a JSON string, a mapping or None).

        A name the registry does not hold (a lazy MCP server's tool, a
        ``use:`` entry whose server is not listed yet) first asks the stale
        sources that may provide it to refresh (see
        :meth:`~tooldeck.ToolRegistry.refresh_sources`); a tool it holds is
        called at once. Never raises for a tool failure: the result says what went wrong in
        words for the model, unless ``raise_errors`` (or the registry
        setting) asks for a :class:`ToolCallError`.

        ``auth``: the verified caller (:class:`~tooldeck.AuthIdentity`), never the
        model: handlers see it as ``ToolContext.auth``, ``from_auth:`` parameters
        are filled from it, and a tool whose scopes it lacks answers ``not_permitted``
        (and is left out of the names an unknown-tool error offers).

        ``deferral``: this caller can wait for approvals (:class:`~tooldeck.Deferral`,
        as the model loop does): a call with side effects whose approval is not given
        now answers ``approval_pending`` instead of being denied, and the decisions it
        carries are used without asking the approver.
        """
        call_id = call_id or new_call_id()
        entry = self._snapshot.tools.get(name) or self._resolve(name)
        if entry is None and self._sources and self._sources.refresh(name):
            entry = self._resolve(name)  # a stale source may have published it
        if entry is None:
            return self._hand_back(self._missing(name, call_id, auth), raise_errors)
        if auth is not None and entry.spec.scopes:
            lacking = missing_scopes(entry.spec.scopes, auth)
            if lacking:
                return self._hand_back(not_permitted(entry.name, lacking, call_id), raise_errors)
        if self._plain(entry):
            result = run_plain(entry, arguments, self._env, call_id, context, self._lenient, auth)
        else:
            result = run_call(
                entry,
                arguments,
                self._env,
                self._policy,
                call_id,
                context,
                self._lenient,
                auth,
                deferral,
            )
        if result.ok and not self.secrets:
            return result  # the common case, without a call to _hand_back
        return self._hand_back(result, raise_errors)

    async def acall(
        self,
        name: str,
        arguments: Any = None,
        *,
        context: Mapping[str, Any] | None = None,
        call_id: str | None = None,
        raise_errors: bool | None = None,
        auth: AuthIdentity | None = None,
        deferral: Deferral | None = None,
    ) -> ToolResult:
        """The async twin of :meth:`call`; async handlers run on the registry's loop."""
        call_id = call_id or new_call_id()
        entry = self._resolve(name)
        if entry is None and self._sources and await self._sources.arefresh(name):
            entry = self._resolve(name)  # a stale source may have published it
        if entry is None:
            return self._hand_back(self._missing(name, call_id, auth), raise_errors)
        if auth is not None and entry.spec.scopes:
            lacking = missing_scopes(entry.spec.scopes, auth)
            if lacking:
                return self._hand_back(not_permitted(entry.name, lacking, call_id), raise_errors)
        if entry.spec.inline and not entry.is_async and self._plain(entry):
            # runs right here, on the loop, with nothing to await: the sync shortcut
            result = run_plain(entry, arguments, self._env, call_id, context, self._lenient, auth)
        else:
            result = await arun_call(
                entry,
                arguments,
                self._env,
                self._policy,
                call_id,
                context,
                self._lenient,
                auth,
                deferral,
            )
        if result.ok and not self.secrets:
            return result  # the common case, without a call to _hand_back
        return self._hand_back(result, raise_errors)

    def call_many(
        self,
        calls: Iterable[CallLike],
        *,
        strategy: Strategy = "sequential",
        limit: int | None = None,
        context: Mapping[str, Any] | None = None,
        auth: AuthIdentity | None = None,
        deferral: Deferral | None = None,
    ) -> list[ToolResult]:
        """Run a model's batch of tool calls; results come back in the calls' order.

        One failure never stops the others. ``parallel`` runs them
        concurrently (at most ``limit`` at a time) on the registry's worker
        threads (:mod:`tooldeck._calling.batch`), or on the registry's loop when
        a call needs one (an ``async def`` handler or hook).
        """
        batch = _batch(calls, strategy, limit)
        if strategy == "sequential":
            return [
                self.call(
                    c.name,
                    c.arguments,
                    call_id=c.call_id,
                    context=context,
                    auth=auth,
                    deferral=deferral,
                )
                for c in batch
            ]
        if not needs_loop(self, batch):
            return run_parallel(self, batch, limit, context, auth, deferral)
        return run_on(  # type: ignore[no-any-return]
            self._env.portal,
            lambda: self.acall_many(
                batch,
                strategy="parallel",
                limit=limit,
                context=context,
                auth=auth,
                deferral=deferral,
            ),
        )

    async def acall_many(
        self,
        calls: Iterable[CallLike],
        *,
        strategy: Strategy = "parallel",
        limit: int | None = None,
        context: Mapping[str, Any] | None = None,
        auth: AuthIdentity | None = None,
        deferral: Deferral | None = None,
    ) -> list[ToolResult]:
        """The async twin of :meth:`call_many` (parallel by default)."""
        import asyncio

        batch = _batch(calls, strategy, limit)
        if strategy == "sequential":
            return [
                await self.acall(
                    c.name,
                    c.arguments,
                    call_id=c.call_id,
                    context=context,
                    auth=auth,
                    deferral=deferral,
                )
                for c in batch
            ]
        gate = asyncio.Semaphore(limit or len(batch) or 1)

        async def one(call: ToolCall) -> ToolResult:

            async with gate:
                return await self.acall(
                    call.name,
                    call.arguments,
                    call_id=call.call_id,
                    context=context,
                    auth=auth,
                    deferral=deferral,
                )

        return list(await asyncio.gather(*(one(c) for c in batch)))

    # ------------------------------------------------------------ shared steps
    def _plain(self, entry: PreparedTool) -> bool:
        """The route, decided here only: whether no policy step can apply to this call.

        A plain tool (no timeout, retry, side effects or result substitution)
        on a registry without hooks, a default timeout or a tracer, while no
        OpenTelemetry SDK traces: the pipeline would only make one attempt, so
        :func:`~tooldeck._calling.drivers.run_plain` calls its steps directly.
        """
        return entry.plain and self._fast and not tracing_active()

    def _missing(self, name: str, call_id: str, auth: AuthIdentity | None) -> ToolResult:
        """The failed result for a name no tool has: a ``use:`` entry's waits for its server.

        The names offered instead are those ``auth`` may use: an error never tells a
        caller which tools it is not allowed to see.
        """
        use = self._snapshot.table("tool_use").get(name)
        if use is not None:
            return unavailable_use(cast("McpToolUse", use.value), call_id)
        tools = self._snapshot.tools
        if auth is None:
            return unknown_tool(name, tools, call_id)
        visible = [n for n, e in tools.items() if not missing_scopes(e.spec.scopes, auth)]
        return unknown_tool(name, visible, call_id)

    def _resolve(self, name: str) -> PreparedTool | None:
        """The tool called ``name``, or whose provider-safe name is ``name``."""
        snap = self._snapshot
        entry = snap.tools.get(name)
        if entry is None and name in snap.aliases:
            entry = snap.tools.get(snap.aliases[name])
        return entry

    def _hand_back(self, result: ToolResult, raise_errors: bool | None) -> ToolResult:
        """Each result on its way to the caller: secrets masked, failure logged, raised if asked."""
        secrets = self.secrets
        if result.ok:
            if secrets:
                result.text = secrets.redact(result.text)
                if result.content is not None:
                    result.content = redact_content(result.content, secrets.redact)
            return result
        if secrets:
            result.text = secrets.redact(result.text)
            if result.error is not None:
                result.error.message = secrets.redact(result.error.message)
        if result.error is not None and result.error.kind == "approval_pending":
            return result  # not a failure: the model loop pauses for the decision
        log.warning(  # %r: a caller's name may hold control characters (a log line is one line)
            "tool call failed: tool=%r kind=%s call_id=%s attempts=%d",
            result.tool_name,
            result.error.kind if result.error is not None else "?",
            result.call_id,
            result.attempts,
        )
        if self._raise_errors if raise_errors is None else raise_errors:
            _raise(result, secrets)
        return result


def _raise(result: ToolResult, secrets: Secrets) -> None:
    error = result.error
    assert error is not None
    cause = error.exception
    if cause is not None and secrets and secrets.redact(str(cause)) != str(cause):
        cause = None  # its message holds a secret; a traceback would print it
    raise ToolCallError(error.kind, error.message, tool_name=result.tool_name) from cause


def _batch(calls: Iterable[CallLike], strategy: str, limit: int | None) -> list[ToolCall]:
    if strategy not in ("sequential", "parallel"):
        raise ValueError(f"strategy={strategy!r} is not 'sequential' or 'parallel'")
    if limit is not None and limit < 1:
        raise ValueError("limit must be at least 1")
    return [_as_call(c) for c in calls]


def _as_call(item: CallLike) -> ToolCall:
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
