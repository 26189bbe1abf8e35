"""The call path: parse, validate, bind, run, serialise; never raise for tool failures.

Each step that can fail turns the failure into a :class:`ToolResult` with a
:class:`CallFailure` whose message a model can act on. The fast path (valid
JSON, valid arguments, sync handler, no shaping) does one dict lookup, one
``json.loads``, one compiled check and one call; everything else is only
paid for when used.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .._binding import ArgumentError, CallEnv, MissingInjection, PreparedTool
from .._calltypes import CallFailure, ToolResult
from .._errors import ErrorKind, ToolFailed
from .._names import name_problem
from .._portal import arun_on, run_on
from .._regex import clip
from .._results import UnserializableResult, to_text
from .._validation import (
    MAX_INT_DIGITS,
    decode_short_json,
    lone_surrogate,
    parse_arguments,
)
from .._words import plural
from .policies import WorkerPool

if TYPE_CHECKING:
    from .._model import McpToolUse

__all__ = [
    "acall_prepared",
    "bind_call",
    "call_prepared",
    "error_result",
    "failed",
    "finish",
    "new_call_id",
    "unavailable_use",
    "unknown_tool",
    "validate_call",
]

_ids = itertools.count(1)


def new_call_id() -> str:
    """A cheap process-unique id for calls the caller did not name."""
    return f"call_{next(_ids)}"


def error_result(
    kind: ErrorKind | str,
    message: str,
    *,
    tool_name: str,
    call_id: str,
    exception: BaseException | None = None,
) -> ToolResult:
    return ToolResult(
        False,
        f"Error ({kind}): {message}",
        None,
        CallFailure(kind, message, exception),
        tool_name,
        call_id,
    )


def unknown_tool(name: str, available: Iterable[str], call_id: str) -> ToolResult:
    """The Java tool-registry blog's "tool X does not exist; available: ...", close matches first.

    A name no tool can have (a control character, a line break, a bidi
    control: :func:`~tooldeck._names.name_problem`) is not quoted back: the
    message says what is wrong with it, and lists the tools there are.
    """
    names = sorted(available)
    problem = name_problem(name)
    close = [] if problem else difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if problem:
        message = f"no tool has that name: the name {problem}."
    else:
        message = f"tool {name!r} does not exist."
    if close:
        message += f" Did you mean {', '.join(map(repr, close))}?"
    if names:
        shown = names[:50]
        more = f" (and {len(names) - 50} more)" if len(names) > 50 else ""
        message += f" Available tools: {', '.join(shown)}{more}."
    else:
        message += " No tools are registered."
    return error_result("unknown_tool", message, tool_name=name, call_id=call_id)


def unavailable_use(use: McpToolUse, call_id: str) -> ToolResult:
    """A call to a ``use:`` entry's name while its server has not provided the tool.

    The name stays the entry's (no other server's tool may take it), so the
    call fails here, saying which server it waits for, rather than as an
    unknown tool.
    """
    message = (
        f"tool {use.name!r} is unavailable: MCP server {use.server!r} has not provided "
        f"{use.tool!r} (use: {use.server}/{use.tool}); it is unreachable, not attached, "
        "or its tool does not fit the entry"
    )
    return error_result("execution_error", message, tool_name=use.name, call_id=call_id)


def validate_call(
    prepared: PreparedTool, arguments: Any, call_id: str, lenient: bool
) -> dict[str, Any] | ToolResult:
    """Parse, (coerce), validate and complete with defaults; a result on failure."""
    args = parse_arguments(arguments)
    if isinstance(args, str):
        return error_result("invalid_arguments", args, tool_name=prepared.name, call_id=call_id)
    if prepared.null_is_absent and None in args.values():
        for name in prepared.null_is_absent & args.keys():
            if args[name] is None:
                del args[name]
    if prepared.null_nested is not None:
        args = prepared.null_nested.apply(args)
    if lenient and prepared.coercers:
        args = prepared.coerce(args)
    if not prepared.check(args):
        return _invalid(prepared, prepared.explain(args), call_id)
    try:
        return prepared.complete(args)
    except ArgumentError as exc:
        return _invalid(prepared, exc.problems, call_id)


def bind_call(
    prepared: PreparedTool,
    args: dict[str, Any],
    env: CallEnv,
    call_id: str,
    extra: Mapping[str, Any] | None,
) -> dict[str, Any] | ToolResult:
    """Convert and inject: the handler's keyword arguments, or a result on failure."""
    try:
        return prepared.bind(args, env, call_id, extra)
    except ArgumentError as exc:
        return _invalid(prepared, exc.problems, call_id)
    except MissingInjection as exc:
        return error_result(
            "execution_error", str(exc), tool_name=prepared.name, call_id=call_id, exception=exc
        )


_MAX_PROBLEMS = 12
"""Lines an invalid-arguments message lists; the rest are counted."""

_MAX_PROBLEM_CHARS = 300
"""Characters per listed problem (a value quoted in it is already cut shorter)."""


def _invalid(prepared: PreparedTool, problems: list[str], call_id: str) -> ToolResult:
    """The invalid-arguments result; its message stays a few KB whatever ``problems`` holds."""
    shown = [clip(p, _MAX_PROBLEM_CHARS) for p in problems[:_MAX_PROBLEMS]]
    if len(problems) > _MAX_PROBLEMS:
        shown.append(f"and {plural(len(problems) - _MAX_PROBLEMS, 'more problem', grouped=True)}")
    lines = "\n".join(f"- {p}" for p in shown)
    message = (
        f"invalid arguments for tool {prepared.name!r}:\n{lines}\n"
        "Fix the arguments and call the tool again."
    )
    return error_result("invalid_arguments", message, tool_name=prepared.name, call_id=call_id)


def finish(prepared: PreparedTool, value: Any, call_id: str) -> ToolResult:
    if type(value) is ToolResult:  # the handler answered with a result of its own
        value.tool_name, value.call_id = prepared.name, call_id
        return value
    shaper = prepared.shaper
    try:
        text = to_text(value) if shaper is None else shaper(value)
    except UnserializableResult as exc:
        return error_result(
            "execution_error", str(exc), tool_name=prepared.name, call_id=call_id, exception=exc
        )
    except Exception as exc:
        return error_result(
            "execution_error",
            f"could not serialise the result: {exc}",
            tool_name=prepared.name,
            call_id=call_id,
            exception=exc,
        )
    return ToolResult(True, text, value, None, prepared.name, call_id, prepared.spec.return_direct)


def failed(prepared: PreparedTool, exc: BaseException, call_id: str) -> ToolResult:
    if isinstance(exc, ToolFailed):  # on purpose: the handler's words and kind, unchanged
        return error_result(
            exc.kind, exc.message, tool_name=prepared.name, call_id=call_id, exception=exc
        )
    return error_result(
        "execution_error",
        f"{type(exc).__name__}: {exc}",
        tool_name=prepared.name,
        call_id=call_id,
        exception=exc,
    )


def call_prepared(
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    *,
    call_id: str,
    extra: Mapping[str, Any] | None = None,
    lenient: bool = False,
) -> ToolResult:
    """Run one call synchronously; async handlers run to completion.

    The steps of :func:`validate_call` and :func:`bind_call` are inlined here:
    this is the path every plain call takes, and each avoided function call
    is a visible share of the overhead budget.
    """
    args: Any = None
    if type(arguments) is str and len(arguments) <= MAX_INT_DIGITS:
        try:
            args = decode_short_json(arguments)
        except (ValueError, RecursionError):
            pass  # parse_arguments below says why, in words
        else:  # a lone surrogate hides only in non-ASCII text or behind a \u escape
            if ("\\u" in arguments or not arguments.isascii()) and lone_surrogate(arguments, args):
                args = None
    if type(args) is not dict:
        parsed = parse_arguments(arguments)
        if isinstance(parsed, str):
            return error_result(
                "invalid_arguments", parsed, tool_name=prepared.name, call_id=call_id
            )
        args = parsed
    if prepared.null_is_absent and None in args.values():
        for name in prepared.null_is_absent & args.keys():
            if args[name] is None:
                del args[name]
    if prepared.null_nested is not None:
        args = prepared.null_nested.apply(args)
    if lenient and prepared.coercers:
        args = prepared.coerce(args)
    if not prepared.check(args):
        return _invalid(prepared, prepared.explain(args), call_id)
    try:
        kwargs = prepared.bind(prepared.complete(args), env, call_id, extra)
    except ArgumentError as exc:
        return _invalid(prepared, exc.problems, call_id)
    except MissingInjection as exc:
        return error_result(
            "execution_error", str(exc), tool_name=prepared.name, call_id=call_id, exception=exc
        )
    try:
        if prepared.is_async:
            handler = prepared.spec.handler
            value = run_on(env.portal, lambda: handler(**kwargs))
        else:
            value = prepared.spec.handler(**kwargs)
    except (Exception, SystemExit) as exc:
        return failed(prepared, exc, call_id)
    return finish(prepared, value, call_id)


async def acall_prepared(
    prepared: PreparedTool,
    arguments: Any,
    env: CallEnv,
    *,
    call_id: str,
    extra: Mapping[str, Any] | None = None,
    lenient: bool = False,
    pool: WorkerPool | None = None,
) -> ToolResult:
    """Run one call on the event loop; sync handlers go to a worker thread unless inline."""
    import asyncio

    args = validate_call(prepared, arguments, call_id, lenient)
    if isinstance(args, ToolResult):
        return args
    kwargs = bind_call(prepared, args, env, call_id, extra)
    if isinstance(kwargs, ToolResult):
        return kwargs
    handler = prepared.spec.handler
    try:
        if prepared.is_async:
            portal = env.portal
            if portal is None or portal.loop is asyncio.get_running_loop():  # already there
                value = await handler(**kwargs)
            else:
                value = await arun_on(portal, lambda: handler(**kwargs))
        elif prepared.spec.inline:
            value = handler(**kwargs)
        else:
            submit = (pool or _shared_pool()).submit_async
            value = await submit(_bound(handler, kwargs), asyncio.get_running_loop())
    except (Exception, SystemExit) as exc:
        return failed(prepared, exc, call_id)
    return finish(prepared, value, call_id)


def _bound(handler: Callable[..., Any], kwargs: dict[str, Any]) -> Callable[[], Any]:
    import contextvars

    context = contextvars.copy_context()
    return lambda: context.run(handler, **kwargs)


_POOL: WorkerPool | None = None


def _shared_pool() -> WorkerPool:
    global _POOL  # noqa: PLW0603 - one lazily created pool for callers without a registry
    if _POOL is None:
        _POOL = WorkerPool()
    return _POOL
