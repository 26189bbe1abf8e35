"""The steps of a call, each written once: accept (parse, validate), bind, shape.

    accept -> bind -> (run) -> shape | failed

Every way through a call (:mod:`tooldeck._calling.pipeline`, and the sync
driver's shortcut for a plain call in :mod:`tooldeck._calling.drivers`) is
these functions in this order; only running the handler belongs to a driver,
since that is where sync and async differ. A step that refuses the call
raises :class:`Refused` with the result to answer (invalid arguments, a
missing injection), so a caller catches one exception for ``accept`` and
``bind`` together.

They are on the path of every plain call, whose whole overhead is a small
multiple of calling the handler by hand (``benchmarks/dispatch.py``): each
does the common case first and pays for the rare ones only when they occur,
and a successful call checks no result type between them (an exception costs
nothing until raised, and a refused call already pays far more to explain why).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._authparams import AuthRefusal
from .._binding import ArgumentError, CallEnv, MissingInjection, PreparedTool
from .._calltypes import ToolResult
from .._errors import ToolFailed
from .._results import MediaFound, UnserializableResult, to_text
from .._validation import MAX_INT_DIGITS, decode_short_json, lone_surrogate, parse_arguments
from .results import error_result, invalid_arguments

if TYPE_CHECKING:
    from .._identity import AuthIdentity

__all__ = ["Refused", "accept", "bind", "failed", "fill_auth", "shape"]


class Refused(Exception):
    """A step refused the call; ``result`` is the failed result the call answers with."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(result.text)
        self.result = result


def accept(prepared: PreparedTool, arguments: Any, call_id: str, lenient: bool) -> dict[str, Any]:
    """Parse, (coerce), validate and complete with defaults: the arguments as approved.

    ``lenient`` is the registry's setting; the tool's own, when it has one,
    wins. Short JSON text (what models send) is decoded by the cheapest safe
    parser first; anything else, and anything that fails there, goes through
    :func:`~tooldeck._validation.parse_arguments`, which says why in words.
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
            raise Refused(
                error_result("invalid_arguments", parsed, tool_name=prepared.name, call_id=call_id)
            )
        args = parsed
    if prepared.null_is_absent and None in args.values():
        for name in prepared.null_is_absent & args.keys():
            if args[name] is None:
                del args[name]
    if prepared.null_nested is not None:
        args = prepared.null_nested.apply(args)
    if prepared.coercers and (lenient if prepared.spec.lenient is None else prepared.spec.lenient):
        args = prepared.coerce(args)
    if not prepared.check(args):
        raise Refused(invalid_arguments(prepared, prepared.explain(args), call_id))
    try:
        return prepared.complete(args)
    except ArgumentError as exc:
        raise Refused(invalid_arguments(prepared, exc.problems, call_id)) from None


def fill_auth(
    prepared: PreparedTool, args: dict[str, Any], call_id: str, auth: AuthIdentity | None
) -> None:
    """Fill the ``from_auth`` parameters from ``auth`` (in place); ``not_permitted`` if not.

    Only for a tool with a plan (``prepared.from_auth``), which never takes the
    plain route: the pipeline calls it right after :func:`accept`.
    """
    plan = prepared.from_auth
    if plan is None:
        return
    try:
        plan.fill(args, auth)
    except AuthRefusal as exc:
        raise Refused(
            error_result("not_permitted", str(exc), tool_name=prepared.name, call_id=call_id)
        ) from None


def bind(  # noqa: PLR0917
    prepared: PreparedTool,
    args: dict[str, Any],
    env: CallEnv,
    call_id: str,
    extra: Mapping[str, Any] | None,
    auth: AuthIdentity | None = None,
) -> dict[str, Any]:
    """Convert and inject: the handler's keyword arguments (:class:`Refused` on failure)."""
    try:
        return prepared.bind(args, env, call_id, extra, auth)
    except ArgumentError as exc:
        raise Refused(invalid_arguments(prepared, exc.problems, call_id)) from None
    except MissingInjection as exc:
        raise Refused(
            error_result(
                "execution_error", str(exc), tool_name=prepared.name, call_id=call_id, exception=exc
            )
        ) from None


def shape(prepared: PreparedTool, value: Any, call_id: str, env: CallEnv) -> ToolResult:
    """The handler's value as the result a model reads (its own ToolResult is kept).

    A value holding images, audio or files is noticed only by the JSON encoder,
    which reaches nothing else for a plain result (:class:`MediaFound`), and is
    then shaped into content blocks with ``env``'s project dir and size cap.
    """
    if type(value) is ToolResult:  # the handler answered with a result of its own
        value.tool_name, value.call_id = prepared.name, call_id
        return value
    shaper = prepared.shaper
    try:
        text = to_text(value) if shaper is None else shaper(value)
    except MediaFound:
        return _media(prepared, value, call_id, env)
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


def _media(prepared: PreparedTool, value: Any, call_id: str, env: CallEnv) -> ToolResult:
    """The result of a value holding media: its text with notices, and its content blocks."""
    from .._mediaresult import MediaRefused, shape_media

    try:
        text, content = shape_media(value, prepared.shaper, env.project_dir, env.max_media_bytes)
    except MediaRefused as exc:
        return error_result(exc.kind, exc.message, tool_name=prepared.name, call_id=call_id)
    except Exception as exc:
        return error_result(
            "execution_error",
            f"could not serialise the result: {exc}",
            tool_name=prepared.name,
            call_id=call_id,
            exception=exc,
        )
    result = ToolResult(True, text, value, None, prepared.name, call_id)
    result.return_direct, result.content = prepared.spec.return_direct, content
    return result


def failed(prepared: PreparedTool, exc: BaseException, call_id: str) -> ToolResult:
    """What a handler's exception becomes: its :class:`ToolFailed` words, or its type and text."""
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
