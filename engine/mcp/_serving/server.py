"""The registry as an MCP server: tools and prompts on the ``mcp`` package's low-level Server.

The schemas clients see are the registry's own (:meth:`ToolRegistry.input_schema`),
never a second generator's, and so is the ``outputSchema`` read from a handler's
return annotation (:mod:`tooldeck.mcp._serving.output`); a call goes through
:meth:`ToolRegistry.acall`, so validation, approval, timeouts and secret
redaction are the registry's. The registry's approver can ask the client that
made the call, by elicitation (:func:`tooldeck.mcp._serving.approval.elicit_approval`):
each call of a tool with side effects (the only ones it is asked about) runs
marked with its connection and request. A call that fails is a
tool result with ``isError: true`` and the model-facing words, never a protocol
error.
"""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ListenHandler
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

from ..._calling import tracing_active
from ..._errors import ToolCallError
from ..._hints import READ_ONLY_TAGS, tool_hints
from ..._identity import missing_scopes
from ..._progress import current_reporter
from ..._version import __version__
from .approval import DEFAULT_APPROVAL_TIMEOUT, McpCall, mark_call, unmark_call
from .caller import caller_identity, connection_of
from .clients import client_key
from .notify import DEFAULT_PROGRESS_INTERVAL, call_notifier, set_log_level
from .observe import CallObserver, call_record, notify_observers
from .output import OutputSchema, call_result, output_schema
from .refusals import outside_toolset, side_effects_refused
from .resources import CountingBus, ResourceServing
from .shares import CallShares

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..._entries import RegistryChange
    from ..._model import PromptSpec, ToolSpec
    from ..._registry import ToolRegistry
    from ..._sources import ToolSource
    from ...manifest._events import ReloadEvent
    from ...providers import Toolset

__all__ = [
    "READ_ONLY_TAGS",
    "RegistryServer",
    "build_server",
    "call_result",
]

logger = logging.getLogger(__name__)

_SESSION_HEADER = "mcp-session-id"


class RegistryServer:
    """A low-level MCP ``Server`` answering from a :class:`ToolRegistry`, live.

    Every list is read from the registry when asked, so a reload shows at the
    next ``tools/list``; :meth:`announce` tells connected sessions that a list
    changed (``notifications/tools/list_changed``, ``prompts/list_changed``).
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        name: str = "tooldeck",
        list_changed: bool = False,
        approval_timeout: float = DEFAULT_APPROVAL_TIMEOUT,
        toolset: Toolset | None = None,
    ) -> None:
        self.registry = registry
        self.toolset = toolset
        """What this server serves of the registry (``None``: all of it), applied to every
        listing and call, so it follows reloads."""
        self.list_changed = list_changed
        self.approval_timeout = approval_timeout
        """Seconds a client has to answer an approval request (elicitation)."""
        self.stateless = False
        """Serving stateless HTTP: no client can be asked anything (set by the HTTP app)."""
        self.shares = CallShares(None)
        """Calls in flight per client (:mod:`~tooldeck.mcp._serving.shares`); capped over HTTP."""
        self.side_effects_scope: str | None = None
        """Serving with authentication: the scope a token needs for tools with side effects
        (set by the HTTP app; ``None``: no scope is asked for)."""
        self.attachment: ToolSource | None = None
        """The attached ``via: client`` servers while serving, if any (for callers to inspect:
        the registry holds them as a source and refreshes them itself before listing)."""
        self.events = CountingBus()
        """Change events for 2026-07-28 clients, which listen (``subscriptions/listen``)
        instead of receiving ``list_changed`` notifications on a session."""
        self.call_observers: list[CallObserver] = []
        """Told about every answered ``tools/call`` (metrics, the audit log)."""
        self.reload_observers: list[Callable[[ReloadEvent], None]] = []
        """Told about every reload :func:`with_reload` runs (the first load included)."""
        self.progress_interval = DEFAULT_PROGRESS_INTERVAL
        """Seconds between two progress notifications of one call, at least (floods coalesce)."""
        self._outputs: dict[str, tuple[ToolSpec, OutputSchema | None]] = {}
        self._tools: dict[str, tuple[ToolSpec, types.Tool]] = {}
        """Each tool's MCP definition, while the registry holds the same spec."""
        self.resources = ResourceServing(self)
        """Resources and resource templates: list, read, subscribe (:mod:`.resources`)."""
        self.sessions: list[ServerSession] = []
        """One session per initialized connection, for server-initiated notifications
        (kept only with ``list_changed``: nothing else is sent unasked)."""
        self.server: Server[Any] = Server(
            name,
            version=__version__,
            get_tool_input_schema=self._input_schema_or_none,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_list_resources=self.resources.list_resources,
            on_list_resource_templates=self.resources.list_templates,
            on_read_resource=self.resources.read,
            on_subscribe_resource=self.resources.subscribe,
            on_unsubscribe_resource=self.resources.unsubscribe,
            # Listen streams carry list changes and resource updates to 2026-07-28 clients.
            on_subscriptions_listen=(
                ListenHandler(self.events)
                if list_changed or registry.resources() or registry.resource_templates()
                else None
            ),
        )
        # One middleware of ours around every message: the SDK's OpenTelemetry one runs
        # inside it only while an OpenTelemetry SDK is installed (as tooldeck's own call
        # spans do); until then its spans go nowhere, at some 20 µs a message.
        self._traced = [m for m in self.server.middleware if _is_otel(m)]
        self.server.middleware[:] = [m for m in self.server.middleware if not _is_otel(m)]
        self.server.middleware.append(self._around_message)
        # logging/setLevel: a handler's ctx.log reaches a client that set a level (and the
        # logging capability is advertised). Registered this way, not as on_set_logging_level,
        # which warns that the capability is deprecated as of 2026-07-28 at every start.
        self.server.add_request_handler(
            "logging/setLevel", types.SetLevelRequestParams, set_log_level
        )

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options(
            NotificationOptions(
                tools_changed=self.list_changed,
                prompts_changed=self.list_changed,
                resources_changed=self.list_changed,
            )
        )

    # ------------------------------------------------------------------ tools
    def tool(self, spec: ToolSpec) -> types.Tool:
        """The MCP definition of one tool, with the registry's schema and declared hints.

        The annotations are :func:`~tooldeck._hints.tool_hints`, as ``export
        --provider mcp`` prints them; none for a tool that declares none.
        """
        cached = self._tools.get(spec.name)
        if cached is not None and cached[0] is spec:
            return cached[1]  # the same spec: the same definition (a listing after a reload)
        hints = tool_hints(spec)
        output = self.output(spec)
        tool = types.Tool(
            name=self.registry.safe_name(spec.name),
            description=spec.description,
            input_schema=self.registry.input_schema(spec.name),
            output_schema=output.schema if output is not None else None,
            annotations=types.ToolAnnotations.model_validate(hints) if hints else None,
        )
        if len(self._tools) > 2 * len(self.registry) + 64:  # tools removed by reloads
            self._tools.clear()
        self._tools[spec.name] = (spec, tool)
        return tool

    def output(self, spec: ToolSpec) -> OutputSchema | None:
        """The tool's ``outputSchema`` (cached while the registry holds the same spec)."""
        cached = self._outputs.get(spec.name)
        if cached is not None and cached[0] is spec:
            return cached[1]
        output = output_schema(spec)
        self._outputs[spec.name] = (spec, output)
        return output

    def _input_schema_or_none(self, name: str) -> dict[str, Any] | None:
        try:
            return self.registry.input_schema(name)
        except KeyError:
            return None

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        listed = await self.registry.atools()  # lazy servers and expired lists refresh first
        toolset = self.toolset
        if toolset is not None and not toolset.everything:
            listed = tuple(spec for spec in listed if toolset.admits(spec, self.registry))
        caller = caller_identity(ctx)  # a tool whose scopes the caller lacks is not offered
        tools = [self.tool(spec) for spec in listed if not missing_scopes(spec.scopes, caller)]
        return types.ListToolsResult(tools=tools)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if self.shares.per_client is None:
            return await self._run_call(ctx, params)
        scope = getattr(ctx.request, "scope", None)
        key = client_key(scope) if isinstance(scope, dict) else "local"
        if self.shares.try_take(key):  # a slot is free: no wait to set up
            try:
                return await self._run_call(ctx, params)
            finally:
                self.shares.give_back(key)
        async with self.shares.slot(key) as granted:
            if granted:
                return await self._run_call(ctx, params)
        text = (
            f"Error (busy): this client already has {self.shares.per_client} calls running; "
            "try again when one of them has finished"
        )
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)

    async def _run_call(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        registry = self.registry
        context = {"mcp_session_id": _session_id(ctx), "mcp_request_id": ctx.request_id}
        caller = caller_identity(ctx)
        spec = registry.get_tool(params.name)
        if spec is None and await registry.arefresh_sources(params.name):
            spec = registry.get_tool(params.name)  # a lazy server's tool, listed just now
        refused = outside_toolset(
            self.toolset, registry, params.name, spec, caller
        ) or side_effects_refused(self.side_effects_scope, spec, caller)
        if refused is not None:  # answered here, without running anything
            self._observe(
                ctx, params, spec, refused.error.kind if refused.error else "refused", 0.0
            )
            return call_result(refused, None)
        # Only a tool with side effects asks the approver, which may ask this client:
        # mark the call for it then (an unknown tool is answered without asking anyone).
        token = None
        if spec is not None and spec.side_effects:
            token = mark_call(
                McpCall(
                    ctx.session,
                    ctx.request_id,
                    stateless=self.stateless,
                    timeout=self.approval_timeout,
                    redact=registry.secrets.redact,
                )
            )
        # A listener for the handler's progress and log, only when the client asked for them.
        notifier = call_notifier(ctx, self.progress_interval)
        listening = None if notifier is None else current_reporter.set(notifier)
        started = time.perf_counter()
        outcome = "cancelled"  # unless an answer is reached (notifications/cancelled)
        try:
            result = await registry.acall(
                params.name,
                params.arguments or {},
                context=context,
                raise_errors=False,
                auth=caller,
            )
            outcome = "ok" if result.ok else result.error.kind if result.error else "tool_error"
            if notifier is not None:
                await notifier.aclose()  # the last progress goes before the answer
        except Exception as exc:  # a bug below must still answer as a tool error
            outcome = "internal_error"
            logger.exception("tool %r failed unexpectedly", params.name)
            text = self.registry.secrets.redact(
                f"Error (internal_error): {type(exc).__name__}: {exc}"
            )
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        finally:
            if notifier is not None and listening is not None:
                current_reporter.reset(listening)
                notifier.abandon()  # (after aclose: nothing left to do)
            if token is not None:
                unmark_call(token)
            if self.call_observers:
                self._observe(ctx, params, spec, outcome, time.perf_counter() - started)
        return call_result(result, self.output(spec) if spec is not None else None)

    # ---------------------------------------------------------------- prompts
    async def _list_prompts(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        prompts = [
            types.Prompt(
                name=spec.name,
                description=spec.description or None,
                arguments=[
                    types.PromptArgument(
                        name=param.name,
                        description=param.description or None,
                        required=param.required and _no_default(param.default),
                    )
                    for param in spec.params
                ],
            )
            for spec in await self.registry.aprompts()  # attached servers' refresh first
            if self._serves_prompt(spec)
        ]
        return types.ListPromptsResult(prompts=prompts)

    async def _get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        from mcp.shared.exceptions import MCPError

        spec = self.registry.get_prompt(params.name)
        if spec is None and await self.registry.arefresh_sources(params.name):
            spec = self.registry.get_prompt(params.name)  # a lazy server's, listed just now
        if spec is None or not self._serves_prompt(spec):
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown prompt {params.name!r}")
        try:  # an attached server's prompt: its prompts/get, every message passed on
            messages = await self.registry.arender_prompt(params.name, dict(params.arguments or {}))
        except ToolCallError as exc:  # bad arguments, or the server behind it failed
            code = types.INVALID_PARAMS if exc.kind == "invalid_arguments" else types.INTERNAL_ERROR
            raise MCPError(code=code, message=exc.message) from None
        return types.GetPromptResult(
            description=spec.description or None,
            messages=[
                types.PromptMessage(
                    role=message.role,
                    content=message.content or types.TextContent(text=message.text),
                )
                for message in messages
            ],
        )

    # --------------------------------------------------------------- toolsets
    def _serves_prompt(self, spec: PromptSpec) -> bool:
        toolset = self.toolset
        return toolset is None or toolset.admits_prompt(spec.bundle, spec.tags, spec.name)

    def _observe(
        self,
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
        spec: ToolSpec | None,
        outcome: str,
        duration: float,
    ) -> None:
        if self.call_observers:
            record = call_record(ctx, params, spec, outcome, duration, session_id=_session_id(ctx))
            notify_observers(self.call_observers, record)

    # ----------------------------------------------------------- notifications
    async def _around_message(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Trace the message when tracing is on; keep each session once it is initialized.

        With ``list_changed``, the session of each connection is kept once it has
        answered ``initialize`` rather than at ``notifications/initialized``: a
        client's ``initialize()`` returns before the server has read that
        notification, and a change in between must still be announced.
        """
        if self._traced and tracing_active():
            result = await _traced_call(self._traced, ctx, call_next)
        else:
            result = await call_next(ctx)
        if self.list_changed and ctx.method == "initialize":
            session = ctx.session
            self.sessions.append(session)
            # Forget it when its connection closes: its exit stack is the documented
            # place for per-connection teardown.
            exit_stack = getattr(connection_of(session), "exit_stack", None)
            if exit_stack is not None:
                exit_stack.callback(self._forget, session)
        return result

    def _forget(self, session: ServerSession) -> None:
        if session in self.sessions:
            self.sessions.remove(session)

    async def announce(self, change: RegistryChange) -> None:
        """Tell every connected session which lists changed, and subscribers which resources."""
        updated = change.resources_changed + change.resources_updated
        if updated:  # a subscription is asked for: sent with or without list_changed
            await self.resources.updated(updated)
        tools, prompts = change.tools_changed, change.prompts_list_changed
        resources = change.resources_list_changed
        if not self.list_changed or not (tools or prompts or resources):
            return
        if tools:
            await self.events.publish(ToolsListChanged())
        if prompts:
            await self.events.publish(PromptsListChanged())
        if resources:
            await self.events.publish(ResourcesListChanged())
        for session in list(self.sessions):  # notifying never raises: delivery is best effort
            if tools:
                await session.send_tool_list_changed()
            if prompts:
                await session.send_prompt_list_changed()
            if resources:
                await session.send_resource_list_changed()

    async def on_registry_change(self, group: str | None, change: RegistryChange) -> None:
        """A registry subscriber (async: runs on the serving loop)."""
        await self.announce(change)


def _is_otel(middleware: Any) -> bool:
    """The ``mcp`` package's OpenTelemetry middleware (on every Server by default)."""
    return type(middleware).__name__ == "OpenTelemetryMiddleware"


async def _traced_call(
    traced: list[Any], ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """``call_next`` inside the SDK's tracing middleware(s), outermost first."""
    call = call_next
    for middleware in reversed(traced):
        call = partial(middleware, call_next=call)
    return await call(ctx)


def _no_default(default: Any) -> bool:
    from ..._params import MISSING

    return default is MISSING


def _session_id(ctx: ServerRequestContext[Any]) -> str | None:
    """The Streamable HTTP session id of the request; ``None`` on stdio and stateless HTTP."""
    headers = getattr(ctx.request, "headers", None)
    if headers is None:
        return None
    value = headers.get(_SESSION_HEADER)
    return value if isinstance(value, str) else None


def build_server(
    registry: ToolRegistry,
    *,
    name: str = "tooldeck",
    list_changed: bool = False,
    approval_timeout: float = DEFAULT_APPROVAL_TIMEOUT,
    toolset: Toolset | None = None,
) -> RegistryServer:
    """An MCP server for ``registry``; ``list_changed`` announces list changes to clients.

    ``approval_timeout``: how long a client has to answer an approval request
    when the registry's approver is :func:`~tooldeck.mcp._serving.approval.elicit_approval`.
    ``toolset``: serve only these tools and prompts (checked on every listing and call).
    """
    return RegistryServer(
        registry,
        name=name,
        list_changed=list_changed,
        approval_timeout=approval_timeout,
        toolset=toolset,
    )
