"""The failed results a call can end with, in words a model can act on.

Every step of the pipeline (:mod:`tooldeck._calling.pipeline`) that can fail
turns the failure into a :class:`ToolResult` built here, with a
:class:`CallFailure` whose kind and message callers (and tests) rely on
exactly; nothing on the call path raises for a tool failure.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .._calltypes import CallFailure, ToolResult
from .._errors import ErrorKind
from .._names import name_problem
from .._regex import clip
from .._words import plural

if TYPE_CHECKING:
    from .._binding import PreparedTool
    from .._model import McpToolUse

__all__ = [
    "error_result",
    "invalid_arguments",
    "new_call_id",
    "not_permitted",
    "unavailable_use",
    "unknown_tool",
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


def not_permitted(name: str, lacking: Sequence[str], call_id: str) -> ToolResult:
    """A call of a tool whose scopes the caller's token lacks: the call was not run."""
    scopes = ", ".join(lacking)
    return error_result(
        "not_permitted",
        f"the tool {name!r} needs the scope(s) {scopes}, which this caller's token does not "
        "carry; the call was not run",
        tool_name=name,
        call_id=call_id,
    )


def unknown_tool(name: str, available: Iterable[str], call_id: str) -> ToolResult:
    """The seed blog's "tool X does not exist; available: ..." with close matches first.

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


_MAX_PROBLEMS = 12
"""Lines an invalid-arguments message lists; the rest are counted."""

_MAX_PROBLEM_CHARS = 300
"""Characters per listed problem (a value quoted in it is already cut shorter)."""


def invalid_arguments(prepared: PreparedTool, problems: list[str], call_id: str) -> ToolResult:
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
