"""``run`` and ``arun``: a conversation with an OpenAI-compatible model that calls the tools.

Public through :mod:`tooldeck.providers.openai`. This module sets a
conversation up (which API, which definitions, which tools may answer) and
drives the turns of :func:`~tooldeck.providers._loop.loop.conversation` with the
client the caller passes in: ``openai.OpenAI`` for :func:`run`,
``openai.AsyncOpenAI`` for :func:`arun`. It never imports ``openai``.

The definitions are the exporter's (:func:`tooldeck.providers.export_tools`,
with its selection by tool, bundle or tag, secrets redacted), so what the
loop sends and what ``tooldeck export`` prints cannot differ, warnings
included, but for one thing: a hosted MCP server's credentials go to the
provider as they are (it must reach the server), where ``export`` masks
them. Tools from attached MCP servers are ordinary registry tools and go
along, a lazy server's too (the registry refreshes its stale sources
before it lists); hosted entries go to Responses, and the exporter leaves them out of
Chat Completions with a warning naming each.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from ..._calling import ApprovalRequest, Decision, as_decision
from ..._identity import missing_scopes
from ..._model import ToolSpec
from ..._portal import arun_on, run_on
from .. import ExportWarning
from .._cache import cached_export
from .chat import CHAT
from .logs import secrets_hidden_in_client_logs
from .loop import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_TOOL_CALLS,
    Api,
    Effect,
    HostedApproval,
    LoopCall,
    LoopResult,
    Toolbox,
    conversation,
    input_items,
    log,
)
from .responses import RESPONSES

if TYPE_CHECKING:
    from ..._identity import AuthIdentity
    from ..._registry import ToolRegistry

__all__ = ["ApiName", "arun", "build_toolbox", "run"]

ApiName = Literal["responses", "chat"]
_APIS: Mapping[str, Api] = {"responses": RESPONSES, "chat": CHAT}


def run(
    client: Any,
    *,
    model: str,
    input: str | Sequence[Any],
    registry: ToolRegistry,
    api: ApiName = "responses",
    max_turns: int = 10,
    max_tool_calls_per_turn: int = DEFAULT_MAX_TOOL_CALLS,
    parallel: bool = True,
    limit: int | None = DEFAULT_LIMIT,
    tools: Iterable[str] | None = None,
    bundles: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    include_hosted: bool = True,
    strict: bool | None = None,
    on_call: Callable[[LoopCall], None] | None = None,
    on_warning: Callable[[ExportWarning], None] | None = None,
    auth: AuthIdentity | None = None,
    **request_options: Any,
) -> LoopResult:
    """Talk to the model until it answers without calling a tool; every call it asks for runs.

    Args:
        client: an ``openai.OpenAI`` (any ``base_url``: vLLM, Ollama, LM Studio ...).
        model: the model name the server knows.
        input: the user's text, or a transcript to go on from (input items for
            Responses, messages for Chat Completions; ``LoopResult.next_input``).
        registry: where the tools come from and how they run (policies, approver).
        api: ``"responses"`` (``client.responses``) or ``"chat"`` (Chat Completions).
        max_turns: requests at most; a reply that still calls tools after that
            raises :class:`MaxTurnsExceeded` with the transcript.
        max_tool_calls_per_turn: calls of one reply that run at most (default 64),
            the first ones in the model's order; each call past it is answered with
            a ``too_many_calls`` error output instead of running (the API needs an
            output per call), so a reply asking for 20,000 calls runs 64. Hosted MCP
            approval requests past it are denied without asking.
        parallel: run the calls of one reply concurrently (``call_many``'s
            ``parallel`` strategy, at most ``limit`` at once); outputs keep the
            model's order either way. False runs them one after another.
        tools, bundles, tags: offer only what these select, as ``tooldeck
            export`` does (a union; tool names may be provider-safe names, and
            ``web_search`` or a hosted server's name select hosted entries).
            None of them offers everything. One that matches nothing raises
            :class:`~tooldeck.ExportError`. A call to a tool that was not
            offered is answered as an unknown tool.
        include_hosted: send the selected hosted web search and ``via: hosted``
            MCP servers (Responses only; Chat Completions leaves them out, each
            with a warning).
        strict: OpenAI strict mode for every tool: None (auto) keeps each
            tool's own setting, strict where the schema allows; a tool that
            cannot be strict goes out without it, with a warning.
        on_call: called with each :class:`LoopCall` once its result is in (a
            batch's calls in order, after the batch).
        on_warning: receives each :class:`~tooldeck.providers.ExportWarning`
            (what was sent differently from its declaration); by default each
            is logged. They are also on ``LoopResult.warnings``.
        auth: the verified user the conversation acts for
            (:class:`~tooldeck.AuthIdentity`, built by the application from its
            own session; never from the model). Tools whose scopes it lacks are
            not offered, and every call runs with it: ``from_auth`` parameters
            are filled from it and handlers read it as ``ToolContext.auth``.
            None (the default): nobody is authenticated, every selected tool is
            offered and a ``from_auth`` parameter's call is refused.
        request_options: passed to every request (``instructions``,
            ``temperature``, ``parallel_tool_calls`` ...); ``stream`` is not supported.

    Model mistakes never raise: they are error outputs the model reads and
    can act on. Errors of the client (connection, HTTP status) propagate.
    """
    steps, runner = _start(
        client,
        model=model,
        input=input,
        registry=registry,
        api=api,
        max_turns=max_turns,
        max_tool_calls_per_turn=max_tool_calls_per_turn,
        parallel=parallel,
        limit=limit,
        tools=tools,
        bundles=bundles,
        tags=tags,
        include_hosted=include_hosted,
        strict=strict,
        on_call=on_call,
        on_warning=on_warning,
        auth=auth,
        options=request_options,
    )
    with secrets_hidden_in_client_logs(registry.secrets):
        return _drive(steps, runner)


async def arun(
    client: Any,
    *,
    model: str,
    input: str | Sequence[Any],
    registry: ToolRegistry,
    api: ApiName = "responses",
    max_turns: int = 10,
    max_tool_calls_per_turn: int = DEFAULT_MAX_TOOL_CALLS,
    parallel: bool = True,
    limit: int | None = DEFAULT_LIMIT,
    tools: Iterable[str] | None = None,
    bundles: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    include_hosted: bool = True,
    strict: bool | None = None,
    on_call: Callable[[LoopCall], None] | None = None,
    on_warning: Callable[[ExportWarning], None] | None = None,
    auth: AuthIdentity | None = None,
    **request_options: Any,
) -> LoopResult:
    """The async twin of :func:`run`, for ``openai.AsyncOpenAI``; tools run with ``acall_many``.

    The registry's stale sources (lazy or expired MCP servers) are awaited
    first: the listing that builds the toolbox is sync, and on this loop it
    would not wait for them.
    """
    await registry.arefresh_sources()
    steps, runner = _start(
        client,
        model=model,
        input=input,
        registry=registry,
        api=api,
        max_turns=max_turns,
        max_tool_calls_per_turn=max_tool_calls_per_turn,
        parallel=parallel,
        limit=limit,
        tools=tools,
        bundles=bundles,
        tags=tags,
        include_hosted=include_hosted,
        strict=strict,
        on_call=on_call,
        on_warning=on_warning,
        auth=auth,
        options=request_options,
    )
    with secrets_hidden_in_client_logs(registry.secrets):
        return await _adrive(steps, runner)


# ------------------------------------------------------------------- set-up
@dataclass(frozen=True)
class _Runner:
    """What performs the effects: the client's create method and the batch strategy."""

    create: Callable[..., Any]
    registry: ToolRegistry
    parallel: bool
    limit: int | None
    auth: AuthIdentity | None = None


def _start(
    client: Any,
    *,
    model: str,
    input: str | Sequence[Any],
    registry: ToolRegistry,
    api: str,
    max_turns: int,
    max_tool_calls_per_turn: int,
    parallel: bool,
    limit: int | None,
    tools: Iterable[str] | None,
    bundles: Iterable[str] | None,
    tags: Iterable[str] | None,
    include_hosted: bool,
    strict: bool | None,
    on_call: Callable[[LoopCall], None] | None,
    on_warning: Callable[[ExportWarning], None] | None,
    auth: AuthIdentity | None,
    options: Mapping[str, Any],
) -> tuple[Generator[Effect, Any, LoopResult], _Runner]:
    """Check the arguments, build the toolbox, say what was left out, start the turns."""
    adapter = _APIS.get(api)
    if adapter is None:
        raise ValueError(f"api={api!r} is not 'responses' or 'chat'")
    if not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, got {max_turns!r}")
    cap = max_tool_calls_per_turn
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
        raise ValueError(f"max_tool_calls_per_turn must be at least 1, got {cap!r}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit!r}")
    clash = sorted(adapter.reserved & options.keys())
    if "stream" in clash:
        raise ValueError("stream is not supported by the loop; it reads whole replies")
    if clash:
        raise ValueError(f"the loop sets {', '.join(clash)} itself; do not pass them")
    toolbox = build_toolbox(
        registry,
        adapter,
        tools=tools,
        bundles=bundles,
        tags=tags,
        include_hosted=include_hosted,
        strict=strict,
        auth=auth,
    )
    for warning in toolbox.warnings:
        if on_warning is None:
            log.warning("%s", warning)
        else:
            on_warning(warning)
    steps = conversation(
        adapter,
        registry,
        toolbox,
        input_items(input),
        model=model,
        max_turns=max_turns,
        max_tool_calls=max_tool_calls_per_turn,
        options=dict(options),
        on_call=on_call,
    )
    return steps, _Runner(adapter.create(client), registry, parallel, limit, auth)


def build_toolbox(
    registry: ToolRegistry,
    api: Api,
    *,
    tools: Iterable[str] | None = None,
    bundles: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    include_hosted: bool = True,
    strict: bool | None = None,
    auth: AuthIdentity | None = None,
) -> Toolbox:
    """The exporter's definitions for ``api`` (selected, redacted), and its warnings.

    ``tools``, ``bundles`` and ``tags`` select as for ``tooldeck export``
    (a union; one that matches nothing raises :class:`~tooldeck.ExportError`).
    The function definitions sent are the only tools a call may resolve to.
    Secrets are masked in every definition but a hosted MCP server's
    credentials (url, ``authorization``, headers): the provider connects to
    that server with them, so they go out with their real ``${env:...}``
    values; what the loop prints or logs never holds them. Given ``auth``, a
    tool whose scopes it lacks is left out (its warnings too), as ``tooldeck
    serve`` leaves it out of a caller's listing.
    """
    definitions, found = cached_export(  # exported once per registry generation and selection
        registry,
        api.provider,
        strict=strict,
        include_hosted=include_hosted,
        redact=registry.secrets.redact,
        bundles=bundles,
        tags=tags,
        names=tools,
        send_credentials=True,
    )
    offered: dict[str, str] = {}
    kept: list[dict[str, Any]] = []
    unseen: set[str] = set()
    for definition in definitions:
        name = _function_name(definition)
        if name is not None:
            spec = registry.get_tool(name)
            if spec is not None and auth is not None and missing_scopes(spec.scopes, auth):
                unseen.add(spec.name)  # not this caller's to see
                continue
            offered[name] = spec.name if spec is not None else name
        kept.append(definition)
    warnings = tuple(w for w in found if w.name not in unseen)
    return Toolbox(kept, offered, warnings)


def _function_name(definition: Mapping[str, Any]) -> str | None:
    """The name of a function definition (flat for Responses, nested for Chat); None if hosted."""
    if definition.get("type") != "function":
        return None
    function = definition.get("function")
    name = function.get("name") if isinstance(function, Mapping) else definition.get("name")
    return name if isinstance(name, str) else None


# ------------------------------------------------------------------- drivers
def _drive(steps: Generator[Effect, Any, LoopResult], runner: _Runner) -> LoopResult:
    """Perform ``steps`` with a sync client; a reply's calls run through ``call_many``."""
    registry, auth = runner.registry, runner.auth
    strategy: Literal["parallel", "sequential"] = "parallel" if runner.parallel else "sequential"
    value: Any = None
    with closing(steps):  # a client error mid-way ends the turns too
        while True:
            try:
                effect = steps.send(value)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            if effect[0] == "request":
                value = runner.create(**effect[1])
                if inspect.isawaitable(value):
                    _discard(value)
                    raise TypeError(
                        "run() needs a sync client (openai.OpenAI); use arun() for AsyncOpenAI"
                    )
            elif effect[0] == "execute":
                batch = effect[1]
                if len(batch) == 1:  # nothing to overlap: skip starting an event loop
                    one = batch[0]
                    value = [registry.call(one.name, one.arguments, call_id=one.call_id, auth=auth)]
                else:
                    value = registry.call_many(
                        batch, strategy=strategy, limit=runner.limit, auth=auth
                    )
            else:
                value = _approve_sync(registry, effect[1])


async def _adrive(steps: Generator[Effect, Any, LoopResult], runner: _Runner) -> LoopResult:
    """Perform ``steps`` with an async client; a reply's calls run through ``acall_many``."""
    registry = runner.registry
    strategy: Literal["parallel", "sequential"] = "parallel" if runner.parallel else "sequential"
    value: Any = None
    with closing(steps):  # a client error mid-way ends the turns too
        while True:
            try:
                effect = steps.send(value)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            if effect[0] == "request":
                pending = runner.create(**effect[1])
                if not inspect.isawaitable(pending):
                    raise TypeError(
                        "arun() needs an async client (openai.AsyncOpenAI); use run() for OpenAI"
                    )
                value = await pending
            elif effect[0] == "execute":
                value = await registry.acall_many(
                    effect[1], strategy=strategy, limit=runner.limit, auth=runner.auth
                )
            else:
                value = await _approve_async(registry, effect[1])


def _approve_sync(registry: ToolRegistry, approval: HostedApproval) -> Decision:
    outcome = _ask_hosted(registry, approval)
    if inspect.isawaitable(outcome):
        try:
            outcome = run_on(registry._env.portal, partial(_awaited, outcome))
        except Exception as exc:
            outcome = _approver_failed(exc)
    return as_decision(outcome)


async def _approve_async(registry: ToolRegistry, approval: HostedApproval) -> Decision:
    outcome = _ask_hosted(registry, approval)
    if inspect.isawaitable(outcome):
        try:
            outcome = await arun_on(registry._env.portal, partial(_awaited, outcome))
        except Exception as exc:
            outcome = _approver_failed(exc)
    return as_decision(outcome)


def _discard(awaitable: Awaitable[Any]) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()  # an un-awaited coroutine would warn when collected


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


# --------------------------------------------------------- hosted MCP approval
def _ask_hosted(registry: ToolRegistry, approval: HostedApproval) -> Any:
    """Ask the registry's approver about a hosted MCP call, as for a local side effect.

    The provider runs the tool, but the rule is the user's: a server whose
    ``require_approval`` asks runs the tool only after the approver (the
    CLI's terminal prompt) says yes. The approver sees a stand-in
    :class:`ToolSpec` named ``server.tool``. Returns a Decision or the
    approver's answer (maybe awaitable); :func:`as_decision` judges it as for
    local tools (only ``True`` or an approving Decision approves).
    """
    policy = registry._policy
    if policy.allow_side_effects:
        return Decision.approve()
    label, name = approval.server_label, approval.name
    if policy.approve is None:
        return Decision.deny(
            f"the hosted MCP tool {name!r} of {label!r} needs approval, but no approver "
            "is configured"
        )
    try:
        arguments = json.loads(approval.arguments or "{}")
    except ValueError:
        arguments = {}
    spec = ToolSpec(
        name=f"{label}.{name}",
        description=f"Tool {name!r} of the hosted MCP server {label!r}.",
        handler=_hosted_handler,
        side_effects=True,
        effect=f"the provider runs {name!r} on the MCP server {label!r}",
    )
    request = ApprovalRequest(spec, arguments if isinstance(arguments, dict) else {}, approval.id)
    try:
        return policy.approve(request)
    except Exception as exc:
        return _approver_failed(exc)


def _approver_failed(exc: Exception) -> Decision:
    """A failing approver denies, in the words the call path uses."""
    return Decision.deny(f"approval failed: {type(exc).__name__}: {exc}")


def _hosted_handler() -> None:
    """Never called: the provider runs hosted tools."""
