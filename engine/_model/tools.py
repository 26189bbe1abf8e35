"""What a tool and a prompt are: :class:`ToolSpec` (retry, result shaping), :class:`PromptSpec`.

Declarations are pure data, their parameters are
:class:`~tooldeck._params.ParamDescriptor` (:mod:`tooldeck._params`); turning
them into JSON Schema lives in :mod:`tooldeck._schema`, checking and binding
arguments in :mod:`tooldeck._binding`, running them in :mod:`tooldeck._calling.pipeline`.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._diagnostics import SourceLocation
from .._errors import RegistrationError, ToolFailed
from .._params import ParamDescriptor

__all__ = ["DEFAULT_RETRY_ON", "PromptSpec", "ResultSpec", "RetrySpec", "ToolSpec"]


DEFAULT_RETRY_ON: tuple[str, ...] = ("OSError", "ConnectionError", "TimeoutError")
"""Exception class names retried by default: I/O and network trouble, not bugs."""


@dataclass(frozen=True, kw_only=True)
class RetrySpec:
    """Retry execution errors whose exception (or a base class) is named in ``on``.

    Invalid arguments are never retried, and side-effecting tools only when
    they are marked ``idempotent``. Delays grow exponentially from
    ``backoff`` up to ``max_backoff``, with jitter so parallel callers spread.
    """

    attempts: int = 3
    """Total attempts, the first one included."""
    backoff: float = 0.2
    """Seconds before the second attempt."""
    max_backoff: float = 5.0
    on: tuple[str, ...] = DEFAULT_RETRY_ON

    def __post_init__(self) -> None:
        if not isinstance(self.attempts, int) or self.attempts < 1:
            raise RegistrationError(
                f"retry.attempts must be >= 1, got {self.attempts!r}",
                code="TD115",
                path=("attempts",),
            )
        if self.backoff < 0 or self.max_backoff < 0:
            raise RegistrationError(
                "retry backoff must not be negative",
                code="TD115",
                path=("backoff" if self.backoff < 0 else "max_backoff",),
            )
        object.__setattr__(self, "on", tuple(self.on))

    def matches(self, exc: BaseException) -> bool:
        """Whether ``exc`` is one of the retryable kinds (by class name, MRO included).

        A handler's deliberate :class:`~tooldeck.ToolFailed` never is: it is an
        answer, not a fault, whatever ``on`` names.
        """
        if isinstance(exc, ToolFailed):
            return False
        return any(cls.__name__ in self.on for cls in type(exc).__mro__)

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        base = min(self.max_backoff, self.backoff * float(2 ** (attempt - 1)))
        jitter: float = random.uniform(0.5, 1.0)  # spreads parallel callers' retries
        return base * jitter


@dataclass(frozen=True, kw_only=True)
class ResultSpec:
    """How a handler's return value is shaped before it goes back to the model."""

    select: str | None = None
    """JMESPath expression applied to the return value (compiled at registration)."""
    format: Literal["text", "json"] | None = None
    """``json`` always serialises (even strings); ``text`` sends strings as-is."""
    max_chars: int | None = None
    """Longer results are truncated with a marker so one call cannot flood the context."""


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """A registered tool: what the model sees plus how tooldeck runs it."""

    name: str
    description: str
    handler: Callable[..., Any]
    params: tuple[ParamDescriptor, ...] = ()
    additional_properties: bool = False
    """Accept arguments not declared in ``params`` (the arguments object stays open, as a
    JSON Schema object without ``additionalProperties`` is), instead of refusing the call.
    They reach the handler only through its ``**kwargs``, never a parameter it names or an
    injected value; a handler without ``**kwargs`` does not receive them. For a definition
    imported from a catalogue whose author meant its parameters to be open."""
    input_schema: Mapping[str, Any] | None = None
    """For external tools (MCP, hand-written schemas): the whole arguments schema.
    When set, ``params`` is empty and the handler receives the arguments mapping."""
    refused_arguments: Mapping[str, str] = field(default_factory=dict, hash=False)
    """Arguments a caller may well send that the schema does not take, each with what it is
    told instead of a bare "unexpected argument": a reshaped MCP tool's old names and
    hidden arguments (``{"timezone": "'timezone' is called 'tz' here"}``). Words only: the
    schema is what refuses them."""
    tags: tuple[str, ...] = ()
    side_effects: bool | None = None
    """``True``: the tool changes something outside (MCP ``destructiveHint``) and runs only
    after approval. ``False``: declared free of side effects (MCP ``readOnlyHint``).
    ``None``: not declared; it runs without approval, and no hint says either way."""
    effect: str = ""
    """What the side effect is, in words shown to whoever approves the call."""
    idempotent: bool = False
    return_direct: bool = False
    """The result goes to the user instead of back to the model (Spring AI)."""
    timeout: float | None = None
    """Seconds; ``None`` uses the registry default."""
    retry: RetrySpec | None = None
    """Retry I/O-like execution errors; see :class:`tooldeck._calling.policies.RetrySpec`."""
    substitute_result: bool = False
    """Fill ``${config:key}`` placeholders in a string result from the config."""
    strict: bool | None = None
    """Provider strict mode for exports (OpenAI): ``True`` asks for it, ``False`` never
    uses it, ``None`` (auto) uses it when the schema can be expressed in it. A schema
    that cannot be goes out non-strict with a warning (:func:`tooldeck.export_tools`)."""
    result: ResultSpec | None = None
    lenient: bool | None = None
    """Coerce near-miss arguments ("3" -> 3); ``None`` uses the registry setting."""
    inline: bool = False
    """Under ``acall``, run a sync handler on the event loop instead of a worker thread."""
    bundle: str | None = None
    scopes: tuple[str, ...] = ()
    """OAuth scopes a caller's token must carry to see and call the tool (``auth: {scopes:}``
    on the tool or its bundle); see :mod:`tooldeck._identity` for callers with no identity."""
    origin: SourceLocation | None = None
    """Where the tool was declared, for manifests."""
    hints: Mapping[str, bool] = field(default_factory=dict, hash=False)
    """MCP behaviour hints that came with the tool (``readOnlyHint``, ``destructiveHint``,
    ``idempotentHint``, ``openWorldHint``): the annotations an attached server listed it
    with. ``serve`` and ``export --provider mcp`` pass them on, under what ``side_effects``,
    ``idempotent`` and a ``read-only`` tag declare (:func:`tooldeck._hints.tool_hints`)."""


@dataclass(frozen=True, kw_only=True)
class PromptSpec:
    """A reusable prompt: a template or a handler that renders text for a role, or a
    ``renderer`` that renders it elsewhere (an attached MCP server's ``prompts/get``)."""

    name: str
    description: str
    role: Literal["assistant", "user"] = "assistant"
    params: tuple[ParamDescriptor, ...] = ()
    template: str | None = None
    handler: Callable[..., Any] | None = None
    tags: tuple[str, ...] = ()
    bundle: str | None = None
    origin: SourceLocation | None = None
    renderer: Callable[[dict[str, Any]], Awaitable[Sequence[Any]]] | None = None
    """Renders the prompt remotely: ``await renderer(arguments)`` returns its messages
    (:class:`~tooldeck.PromptMessage`, as many as the source gives). Set by an MCP
    attachment for an attached server's prompts; instead of ``template`` and ``handler``."""
