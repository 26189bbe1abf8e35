"""Prompts: reusable text for a role, from a ``{name}`` template, a handler or a remote source.

Templates use :class:`string.Formatter` syntax restricted to plain field
names: ``{topic}`` works, ``{topic.__class__}`` and ``{0}`` are refused at
registration so a manifest cannot reach into Python objects. Arguments are
validated with the same compiled checks tools use.

A prompt with a ``renderer`` (an attached MCP server's prompt) is rendered
by awaiting it, after the same checks: it may give several messages, and
content that is not text, which :meth:`PreparedPrompt.arender` passes on
whole; :meth:`PreparedPrompt.render` (sync) refuses to cut such a result
down to one text message.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Literal

from ._binding import ArgumentError, CallEnv
from ._errors import RegistrationError, ToolCallError, ToolFailed
from ._model import PromptSpec, ToolSpec
from ._names import name_problem
from ._portal import run_on
from ._prepare import prepare_tool
from ._results import to_text
from ._validation import parse_arguments

__all__ = ["PreparedPrompt", "PromptMessage", "prepare_prompt"]


@dataclass(frozen=True, slots=True)
class PromptMessage:
    """A rendered prompt message: the role it is for and its text.

    ``content`` is set for a message that is not plain text (an image, audio,
    an embedded resource or a resource link from an attached server's prompt):
    the MCP content block as the server sent it, which ``tooldeck serve``
    passes on as it is; ``text`` then says what it is (``[image (image/png)]``).
    """

    role: Literal["assistant", "user"]
    text: str
    content: Any = None


class PreparedPrompt:
    """A prompt compiled for rendering (shares the tool argument machinery)."""

    __slots__ = ("_tool", "name", "spec")

    def __init__(self, spec: PromptSpec) -> None:
        self.spec = spec
        self.name = spec.name
        for index, param in enumerate(spec.params):
            if param.from_auth is not None:  # rendered for a client, with no caller identity
                raise RegistrationError(
                    f"parameter {param.name!r}: from_auth applies to tools' parameters; a "
                    "prompt is rendered without the caller's identity",
                    tool_name=spec.name,
                    param=param.name,
                    code="TD105",
                    path=("params", index, "from_auth"),
                )
        if spec.renderer is not None:
            handler: Any = _remote_placeholder
        elif spec.handler is not None:
            handler = spec.handler
        else:
            handler = _template_renderer(spec)
        self._tool = prepare_tool(
            ToolSpec(
                name=spec.name,
                description=spec.description,
                handler=handler,
                params=spec.params,
            )
        )

    @property
    def remote(self) -> bool:
        """Whether it renders elsewhere (an attached server's prompt), awaited."""
        return self.spec.renderer is not None

    def render(self, arguments: Any, env: CallEnv) -> PromptMessage:
        """The one message of the prompt (a remote one runs on the registry's loop).

        A remote prompt that gives several messages, or one that is not
        text, raises rather than lose them: :meth:`arender` returns them all.
        """
        if self.spec.renderer is not None:
            messages: tuple[PromptMessage, ...] = run_on(
                env.portal, lambda: self.arender(arguments, env)
            )
            if len(messages) != 1 or messages[0].content is not None:
                raise ToolCallError(
                    "execution_error",
                    f"prompt {self.name!r} renders {len(messages)} message(s), not one text "
                    "message; use arender_prompt() to get them all",
                    tool_name=self.name,
                )
            return messages[0]
        return self._render_local(arguments, env)

    async def arender(self, arguments: Any, env: CallEnv) -> tuple[PromptMessage, ...]:
        """Every message of the prompt: one for a local prompt, all a remote one gives."""
        renderer = self.spec.renderer
        if renderer is None:
            return (self._render_local(arguments, env),)
        args = self._tool.complete(self._checked(arguments))
        values = {name: value for name, value in args.items() if value is not None}
        try:
            return tuple(await renderer(values))
        except ToolFailed as exc:
            raise ToolCallError(exc.kind, str(exc), tool_name=self.name) from None

    def _checked(self, arguments: Any) -> dict[str, Any]:
        args = parse_arguments(arguments)
        if isinstance(args, str):
            raise ToolCallError("invalid_arguments", args, tool_name=self.name)
        tool = self._tool
        if not tool.check(args):
            raise ToolCallError(
                "invalid_arguments", "; ".join(tool.explain(args)), tool_name=self.name
            )
        return args

    def _render_local(self, arguments: Any, env: CallEnv) -> PromptMessage:
        args = self._checked(arguments)
        tool = self._tool
        try:
            kwargs = tool.bind(tool.complete(args), env, "", None)
        except ArgumentError as exc:
            raise ToolCallError(
                "invalid_arguments", "; ".join(exc.problems), tool_name=self.name
            ) from exc
        try:
            text = tool.spec.handler(**kwargs)
        except ToolFailed as exc:  # on purpose: the handler's words and kind
            raise ToolCallError(exc.kind, exc.message, tool_name=self.name) from None
        except Exception as exc:  # a fault: said in words, never a traceback to the client
            raise ToolCallError(
                "execution_error", f"{type(exc).__name__}: {exc}", tool_name=self.name
            ) from exc
        return PromptMessage(self.spec.role, to_text(text))


def _remote_placeholder(**arguments: Any) -> Any:
    """The handler a remote prompt's argument checks are compiled with (never called)."""
    raise AssertionError("a remote prompt renders through its renderer")  # pragma: no cover


def _template_renderer(spec: PromptSpec) -> Any:
    template = spec.template or ""
    declared = {p.name for p in spec.params}
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise RegistrationError(
            f"prompt template is malformed: {exc}",
            tool_name=spec.name,
            code="TD113",
            path=("template",),
        ) from exc
    for field in fields:
        if not field.isidentifier():
            raise RegistrationError(
                f"prompt template field {{{field}}} must be a plain parameter name",
                tool_name=spec.name,
                code="TD113",
                path=("template",),
            )
        if field not in declared:
            raise RegistrationError(
                f"prompt template uses {{{field}}} but declares no parameter {field!r}",
                tool_name=spec.name,
                param=field,
                code="TD113",
                path=("template",),
            )

    def render(**values: Any) -> str:
        filled = {name: ("" if values.get(name) is None else values[name]) for name in declared}
        return template.format_map(_Strict(filled))

    return render


class _Strict(dict[str, Any]):
    def __missing__(self, key: str) -> Any:
        return ""


def prepare_prompt(spec: PromptSpec) -> PreparedPrompt:
    """Compile a prompt, raising RegistrationError for declaration mistakes."""
    problem = name_problem(spec.name)
    if problem is not None:  # shown in listings and messages: no control characters
        raise RegistrationError(
            f"prompt name {spec.name!r} {problem}", tool_name=spec.name, path=("name",)
        )
    if spec.role not in ("assistant", "user"):
        raise RegistrationError(
            f"prompt role {spec.role!r} is not 'assistant' or 'user'",
            tool_name=spec.name,
            code="TD113",
            path=("role",),
        )
    given = [spec.template is not None, spec.handler is not None, spec.renderer is not None]
    if sum(given) != 1:
        raise RegistrationError(
            "a prompt needs exactly one of template or handler", tool_name=spec.name, code="TD113"
        )
    return PreparedPrompt(spec)
