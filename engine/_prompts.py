"""Prompts: reusable text for a role, from a ``{name}`` template or a handler.

Templates use :class:`string.Formatter` syntax restricted to plain field
names: ``{topic}`` works, ``{topic.__class__}`` and ``{0}`` are refused at
registration so a manifest cannot reach into Python objects. Arguments are
validated with the same compiled checks tools use.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Literal

from ._binding import ArgumentError, CallEnv
from ._errors import RegistrationError, ToolCallError
from ._model import PromptSpec, ToolSpec
from ._names import name_problem
from ._prepare import prepare_tool
from ._results import to_text
from ._validation import parse_arguments

__all__ = ["PreparedPrompt", "PromptMessage", "prepare_prompt"]


@dataclass(frozen=True, slots=True)
class PromptMessage:
    """A rendered prompt: the role it is for and its text."""

    role: Literal["assistant", "user"]
    text: str


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
        handler = spec.handler if spec.handler is not None else _template_renderer(spec)
        self._tool = prepare_tool(
            ToolSpec(
                name=spec.name,
                description=spec.description,
                handler=handler,
                params=spec.params,
            )
        )

    def render(self, arguments: Any, env: CallEnv) -> PromptMessage:
        args = parse_arguments(arguments)
        if isinstance(args, str):
            raise ToolCallError("invalid_arguments", args, tool_name=self.name)
        tool = self._tool
        if not tool.check(args):
            raise ToolCallError(
                "invalid_arguments", "; ".join(tool.explain(args)), tool_name=self.name
            )
        try:
            kwargs = tool.bind(tool.complete(args), env, "", None)
        except ArgumentError as exc:
            raise ToolCallError(
                "invalid_arguments", "; ".join(exc.problems), tool_name=self.name
            ) from exc
        return PromptMessage(self.spec.role, to_text(tool.spec.handler(**kwargs)))


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
    if (spec.template is None) == (spec.handler is None):
        raise RegistrationError(
            "a prompt needs exactly one of template or handler", tool_name=spec.name, code="TD113"
        )
    return PreparedPrompt(spec)
