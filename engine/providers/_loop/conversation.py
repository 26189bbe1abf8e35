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
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from contextlib import closing
from typing import TYPE_CHECKING, Any, Literal

from ..._calling import Decision
from ..._identity import missing_scopes
from .. import ExportWarning
from .._cache import cached_export
from .chat import CHAT
from .hosted import aapprove_hosted, approve_hosted
from .logs import secrets_hidden_in_client_logs
from .loop import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_TOOL_CALLS,
    Api,
    Effect,
    LoopCall,
    LoopResult,
    Toolbox,
    conversation,
    input_items,
    log,
)
from .pause import decisions_of, paused_from_state
from .responses import RESPONSES
from .runner import Runner, aexecute, execute

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
    input: str | Sequence[Any] | None = None,
    registry: ToolRegistry,
    api: ApiName | None = None,
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
    context: Mapping[str, Any] | None = None,
    resume: Mapping[str, Any] | None = None,
    decisions: Mapping[str, bool | Decision] | None = None,
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
        context: the application's context for this conversation (the signed-in
            user, a request id, anything): every handler sees it as
            ``ToolContext.extra``, every approver as ``ApprovalRequest.context`` and
            every hook as ``CallEvent.context``. Never sent to the model.
        resume: a paused conversation's ``LoopResult.state`` (plain JSON, perhaps
            stored by another process): finish its turn and go on, instead of
            starting from ``input``. Pass the same ``api``, selection and request
            options as the run that paused (``context`` and ``auth`` are this
            request's).
        decisions: with ``resume``, the decision for each waiting call, by call id
            (``LoopResult.interruptions``): ``True`` runs it, ``False`` or
            ``Decision.deny(reason)`` answers the model that it was not approved;
            a call left out is asked about again.
        request_options: passed to every request (``instructions``,
            ``temperature``, ``parallel_tool_calls`` ...); ``stream`` is refused
            (:func:`~tooldeck.providers.openai.stream` streams every request).

    A call with side effects that cannot be approved now (no approver is set,
    or the approver answers ``Decision.defer()``) does not block the loop and
    is not denied: everything else of that turn runs, then ``run`` returns a
    result with ``paused`` set, the waiting calls in ``interruptions`` and a
    ``state`` to resume from. Hosted MCP approval requests wait the same way.

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
        context=context,
        resume=resume,
        decisions=decisions,
        options=request_options,
    )
    with secrets_hidden_in_client_logs(registry.secrets):
        return _drive(steps, runner)


async def arun(
    client: Any,
    *,
    model: str,
    input: str | Sequence[Any] | None = None,
    registry: ToolRegistry,
    api: ApiName | None = None,
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
    context: Mapping[str, Any] | None = None,
    resume: Mapping[str, Any] | None = None,
    decisions: Mapping[str, bool | Decision] | None = None,
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
        context=context,
        resume=resume,
        decisions=decisions,
        options=request_options,
    )
    with secrets_hidden_in_client_logs(registry.secrets):
        return await _adrive(steps, runner)


# ------------------------------------------------------------------- set-up
def _start(
    client: Any,
    *,
    model: str,
    input: str | Sequence[Any] | None,
    registry: ToolRegistry,
    api: str | None,
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
    context: Mapping[str, Any] | None = None,
    resume: Mapping[str, Any] | None = None,
    decisions: Mapping[str, bool | Decision] | None = None,
) -> tuple[Generator[Effect, Any, LoopResult], Runner]:
    """Check the arguments, build the toolbox, say what was left out, start the turns."""
    if api is None:  # a paused conversation goes on with its own API
        saved = resume.get("api") if isinstance(resume, Mapping) else None
        api = saved if isinstance(saved, str) and saved in _APIS else "responses"
    adapter = _APIS.get(api)
    if adapter is None:
        raise ValueError(f"api={api!r} is not 'responses' or 'chat'")
    if context is not None and not isinstance(context, Mapping):
        raise TypeError(
            f"context= must be a mapping (e.g. {{'user': user}}), not {type(context).__name__}"
        )
    paused = None
    if resume is not None:
        if input is not None:
            raise ValueError("pass either input= (a new conversation) or resume=, not both")
        paused = paused_from_state(resume, adapter.name)
        decided = decisions_of(decisions, paused)
    elif decisions is not None:
        raise ValueError("decisions= goes with resume= (the paused conversation's state)")
    elif input is None:
        raise ValueError("input= is required (the user's text, or a transcript)")
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
        paused.transcript if paused is not None else input_items(input or ""),
        model=model,
        max_turns=max_turns,
        max_tool_calls=max_tool_calls_per_turn,
        options=dict(options),
        on_call=on_call,
        resume=paused,
        decisions=decided if paused is not None else None,
    )
    done = paused.turn if paused is not None else 0
    runner = Runner(adapter.create(client), registry, parallel, limit, auth, context, adapter, done)
    return steps, runner


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
def _drive(steps: Generator[Effect, Any, LoopResult], runner: Runner) -> LoopResult:
    """Perform ``steps`` with a sync client; a reply's calls run through ``call_many``."""
    registry = runner.registry
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
                value = execute(runner, effect[1], effect[2])
            else:
                value = approve_hosted(registry, effect[1], runner.context)


async def _adrive(steps: Generator[Effect, Any, LoopResult], runner: Runner) -> LoopResult:
    """Perform ``steps`` with an async client; a reply's calls run through ``acall_many``."""
    registry = runner.registry
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
                value = await aexecute(runner, effect[1], effect[2])
            else:
                value = await aapprove_hosted(registry, effect[1], runner.context)


def _discard(awaitable: Awaitable[Any]) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()  # an un-awaited coroutine would warn when collected
