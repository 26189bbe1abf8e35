"""The data model: what a tool, a prompt, a result and a hosted tool are.

Everything here is a frozen, keyword-only dataclass with no I/O. Declarations
(:class:`ToolSpec`, :class:`PromptSpec`) are pure data, their parameters are
:class:`~tooldeck._params.ParamDescriptor` (:mod:`tooldeck._params`); turning
them into JSON Schema lives in :mod:`tooldeck._schema`, checking and binding
arguments in :mod:`tooldeck._binding`, running them in :mod:`tooldeck._calling.pipeline`.
Manifests and code build exactly these objects.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._diagnostics import SourceLocation
from ._errors import RegistrationError, ToolFailed
from ._names import name_problem
from ._params import MISSING, ParamDescriptor

__all__ = [
    "DEFAULT_RETRY_ON",
    "MCP_APPROVAL_FILTER_KEYS",
    "MCP_CALL_TIMEOUT",
    "MCP_MAX_REPLY_BYTES",
    "MCP_MAX_TOOLS",
    "SEARCH_CONTEXT_SIZES",
    "WEB_SEARCH_TYPES",
    "ArgumentReshape",
    "McpServerSpec",
    "McpToolUse",
    "PromptSpec",
    "ResultSpec",
    "RetrySpec",
    "ToolSpec",
    "WebSearchSpec",
]


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
                f"retry.attempts must be >= 1, got {self.attempts!r}", code="TD115"
            )
        if self.backoff < 0 or self.max_backoff < 0:
            raise RegistrationError("retry backoff must not be negative", code="TD115")
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
    origin: SourceLocation | None = None
    """Where the tool was declared, for manifests."""
    hints: Mapping[str, bool] = field(default_factory=dict, hash=False)
    """MCP behaviour hints that came with the tool (``readOnlyHint``, ``destructiveHint``,
    ``idempotentHint``, ``openWorldHint``): the annotations an attached server listed it
    with. ``serve`` and ``export --provider mcp`` pass them on, under what ``side_effects``,
    ``idempotent`` and a ``read-only`` tag declare (:func:`tooldeck._hints.tool_hints`)."""


@dataclass(frozen=True, kw_only=True)
class PromptSpec:
    """A reusable prompt: a template or a handler that renders text for a role."""

    name: str
    description: str
    role: Literal["assistant", "user"] = "assistant"
    params: tuple[ParamDescriptor, ...] = ()
    template: str | None = None
    handler: Callable[..., Any] | None = None
    tags: tuple[str, ...] = ()
    bundle: str | None = None
    origin: SourceLocation | None = None


WEB_SEARCH_TYPES: tuple[str, ...] = (
    "web_search",
    "web_search_2025_08_26",
    "web_search_preview",
    "web_search_preview_2025_03_11",
)
"""The hosted web search tool types OpenAI's Responses API takes (``openai`` 2.x/3.x
``WebSearchToolParam`` and ``WebSearchPreviewToolParam``); ``default`` (what
``WebSearchTool.type=default`` says) is an alias for ``web_search_preview``."""

SEARCH_CONTEXT_SIZES: tuple[str, ...] = ("low", "medium", "high")
"""How much of the context window a hosted web search may fill (the provider's default: medium)."""


@dataclass(frozen=True, kw_only=True)
class WebSearchSpec:
    """Provider-hosted web search (the Java API: ``addWebSearch(type, city, country, region)``).

    ``city``, ``country``, ``region`` and ``timezone`` become the approximate
    ``user_location`` the provider biases results with; ``allowed_domains``
    (the ``filters`` of the ``web_search`` types, which the preview types do
    not have) limits the search to those domains and their subdomains.
    Invalid values raise :class:`RegistrationError` with code ``TD118``.
    """

    type: str = "web_search_preview"
    """Provider tool type, one of :data:`WEB_SEARCH_TYPES`; the alias ``default``
    (``WebSearchTool.type=default``) means ``web_search_preview``."""
    city: str | None = None
    country: str | None = None
    """Two-letter ISO 3166-1 code, e.g. ``CZ``."""
    region: str | None = None
    timezone: str | None = None
    """IANA timezone of the user, e.g. ``Europe/Prague``."""
    search_context_size: str | None = None
    """``low``, ``medium`` or ``high``; ``None`` leaves it to the provider (medium)."""
    allowed_domains: tuple[str, ...] | None = None
    """Only search these domains and their subdomains (``web_search`` types only)."""
    bundle: str | None = None
    origin: SourceLocation | None = None

    def __post_init__(self) -> None:
        if self.type == "default":
            object.__setattr__(self, "type", "web_search_preview")
        if self.type not in WEB_SEARCH_TYPES:
            raise RegistrationError(
                f"web search type {self.type!r} is not one of default, "
                + ", ".join(WEB_SEARCH_TYPES),
                tool_name="web_search",
                param="type",
                code="TD118",
            )
        for key in ("city", "country", "region", "timezone"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, str):
                raise RegistrationError(
                    f"web search {key} must be a string, not {type(value).__name__}",
                    tool_name="web_search",
                    param=key,
                    code="TD118",
                )
        if self.search_context_size is not None and (
            self.search_context_size not in SEARCH_CONTEXT_SIZES
        ):
            raise RegistrationError(
                f"web search search_context_size {self.search_context_size!r} is not one of "
                + ", ".join(SEARCH_CONTEXT_SIZES),
                tool_name="web_search",
                param="search_context_size",
                code="TD118",
            )
        if self.allowed_domains is not None:
            self._check_domains()

    def _check_domains(self) -> None:
        domains = self.allowed_domains
        if isinstance(domains, str) or not all(
            isinstance(d, str) and d.strip() for d in domains or ()
        ):
            raise RegistrationError(
                "web search allowed_domains must be a list of domain names",
                tool_name="web_search",
                param="filters",
                code="TD118",
            )
        if not domains:
            raise RegistrationError(
                "web search allowed_domains is empty; leave it out to search every domain",
                tool_name="web_search",
                param="filters",
                code="TD118",
            )
        if self.type.startswith("web_search_preview"):
            raise RegistrationError(
                f"web search type {self.type!r} has no domain filters; "
                "use type web_search to limit the search to allowed_domains",
                tool_name="web_search",
                param="filters",
                code="TD118",
            )
        object.__setattr__(self, "allowed_domains", tuple(domains))

    @property
    def user_location(self) -> dict[str, str]:
        """The location fields that are set, by name (empty when none is)."""
        return {
            key: value
            for key in ("city", "country", "region", "timezone")
            if (value := getattr(self, key))
        }


MCP_APPROVAL_FILTER_KEYS = ("tool_names", "read_only")

MCP_CALL_TIMEOUT = 60.0
"""Seconds a call to an attached (``via="client"``) server's tool may take when nothing says."""

MCP_MAX_REPLY_BYTES = 4 * 1024 * 1024
"""The largest message accepted from an attached server by default (one stdio line, one
HTTP body or server-sent event): 4 MiB."""

MCP_MAX_TOOLS = 10_000
"""The most tools an attached server may list by default; a server that lists more is left out."""
"""The keys of OpenAI's per-tool approval filter (``McpRequireApprovalMcpToolApprovalFilter``)."""


def _approval(server: str, value: Any) -> str | dict[str, dict[str, Any]]:
    """``require_approval`` in OpenAI's shape: ``always``, ``never`` or
    ``{"always": {"tool_names": [...]}, "never": {...}}`` (a bare list of names
    is short for ``{"tool_names": [...]}``). Raises TD114 for anything else."""

    def wrong(why: str) -> RegistrationError:
        return RegistrationError(
            f"MCP server {server!r}: require_approval {why}",
            tool_name=server,
            param="require_approval",
            code="TD114",
        )

    if isinstance(value, str):
        if value not in ("always", "never"):
            raise wrong(f"is {value!r}; use always, never or per-tool lists")
        return value
    if not isinstance(value, Mapping) or not value:
        raise wrong("must be always, never or a mapping {always: [...], never: [...]}")
    out: dict[str, dict[str, Any]] = {}
    for key, given in value.items():
        if key not in ("always", "never"):
            raise wrong(f"has {key!r}; per-tool rules are always and never")
        rule = {"tool_names": given} if isinstance(given, list | tuple) else given
        if not isinstance(rule, Mapping) or not rule or set(rule) - set(MCP_APPROVAL_FILTER_KEYS):
            raise wrong(
                f"{key} must be a list of tool names or {{tool_names: [...], read_only: ...}}"
            )
        names = rule.get("tool_names", ())
        if isinstance(names, str) or not all(isinstance(n, str) and n for n in names):
            raise wrong(f"{key}.tool_names must be a list of tool names")
        if "read_only" in rule and not isinstance(rule["read_only"], bool):
            raise wrong(f"{key}.read_only must be true or false")
        out[key] = {**rule, "tool_names": tuple(names)} if "tool_names" in rule else dict(rule)
    both = set(out.get("always", {}).get("tool_names", ())) & set(
        out.get("never", {}).get("tool_names", ())
    )
    if both:
        raise wrong(f"lists {', '.join(sorted(both))} under both always and never")
    return out


@dataclass(frozen=True, kw_only=True)
class McpServerSpec:
    """An external MCP server (Java: ``addMcpServer(name, url, authorization, description)``).

    ``via="hosted"`` hands the server to the provider (OpenAI's MCP tool);
    ``via="client"`` makes tooldeck connect to it and register its tools
    under ``prefix``, caching the tool list for ``cache_ttl`` seconds.
    """

    name: str
    url: str | None = None
    command: tuple[str, ...] | None = None
    """Launch a local server over stdio instead of connecting to ``url``."""
    env: Mapping[str, str] = field(default_factory=dict)
    authorization: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    description: str | None = None
    via: Literal["hosted", "client"] | None = None
    """``None`` picks ``hosted`` for a url and ``client`` for a command."""
    prefix: str = ""
    cache_ttl: float = 600.0
    allowed_tools: tuple[str, ...] | None = None
    """Only these remote tools are registered as they are (``None``: all of them)."""
    denied_tools: tuple[str, ...] = ()
    """Remote tools never registered as they are (after ``allowed_tools``)."""
    cwd: str | None = None
    """Working directory of a stdio server (``command``)."""
    transport: Literal["http", "sse"] = "http"
    """For a ``url``: MCP Streamable HTTP, or the legacy HTTP+SSE transport."""
    timeout: float | None = None
    """Seconds a call to one of its tools may take (``via="client"``); ``None``: the
    attachment's ``timeout``, else :data:`MCP_CALL_TIMEOUT` (60 s)."""
    max_reply_bytes: int = MCP_MAX_REPLY_BYTES
    """``via="client"``: the largest message accepted from the server (a stdio line, an HTTP
    body or event); a stdio server that sends a longer line is stopped."""
    max_tools: int = MCP_MAX_TOOLS
    """``via="client"``: the most tools it may list; one that lists more is left out."""
    initialize_on_startup: bool = True
    """False connects on first use (the first listing) instead of at start."""
    side_effects: bool | None = None
    """Whether its tools need approval: ``None`` follows each tool's destructiveHint
    (``via="client"``); ``True`` on a hosted server asks ``require_approval: always``
    when it sets none."""
    require_approval: str | Mapping[str, Any] | None = None
    """``via="hosted"``: which of its tools the provider has the user approve before calling:
    ``"always"``, ``"never"`` or per tool, ``{"always": [...], "never": [...]}`` (lists of
    tool names, or OpenAI's filters ``{"tool_names": [...], "read_only": bool}``).
    Normalised to OpenAI's shape; ``None`` sends nothing (the provider's default, which
    asks), or ``"always"`` for a server declared with ``side_effects=True``."""
    bundle: str | None = None
    """The manifest bundle that declared it (``None`` for servers declared in code)."""
    origin: SourceLocation | None = None

    def registers_as_is(self, remote: str, reshaped: Collection[str] = ()) -> bool:
        """Whether the remote tool ``remote`` becomes a registry tool as it is.

        ``allowed_tools`` (if set) must name it and ``denied_tools`` must not,
        and no ``use:`` entry may reshape it (``reshaped``: the remote names
        this server's use: entries name), since a reshaped tool replaces it.
        """
        if remote in reshaped or remote in self.denied_tools:
            return False
        return self.allowed_tools is None or remote in self.allowed_tools

    def __post_init__(self) -> None:
        problem = name_problem(self.name) if isinstance(self.name, str) else "is not a string"
        if problem is not None:  # shown in listings, health lines and approvals
            raise RegistrationError(
                f"MCP server name {self.name!r} {problem}", tool_name=str(self.name), code="TD114"
            )
        if self.via is None:
            object.__setattr__(self, "via", "client" if self.command is not None else "hosted")
        if (self.url is None) == (self.command is None):
            raise RegistrationError(
                f"MCP server {self.name!r} needs exactly one of url or command",
                tool_name=self.name,
                code="TD114",
            )
        if self.via == "hosted" and self.url is None:
            raise RegistrationError(
                f"MCP server {self.name!r}: via=hosted needs a url the provider can reach",
                tool_name=self.name,
                code="TD114",
            )
        if self.transport not in ("http", "sse"):
            raise RegistrationError(
                f"MCP server {self.name!r}: transport={self.transport!r} is not 'http' or 'sse'",
                tool_name=self.name,
                code="TD114",
            )
        if self.command is not None and self.transport != "http":
            raise RegistrationError(
                f"MCP server {self.name!r}: transport applies to a url; "
                "a command is always reached over stdio",
                tool_name=self.name,
                code="TD114",
            )
        if self.cwd is not None and self.command is None:
            raise RegistrationError(
                f"MCP server {self.name!r}: cwd applies to a command (stdio server) only",
                tool_name=self.name,
                code="TD114",
            )
        if self.via not in ("hosted", "client"):
            raise RegistrationError(
                f"MCP server {self.name!r}: via={self.via!r} is not 'hosted' or 'client'",
                tool_name=self.name,
                code="TD114",
            )
        if self.require_approval is not None:
            if self.via != "hosted":
                raise RegistrationError(
                    f"MCP server {self.name!r}: require_approval applies to via=hosted "
                    "(the provider asks); approve a via=client server's calls with side_effects",
                    tool_name=self.name,
                    param="require_approval",
                    code="TD114",
                )
            object.__setattr__(
                self, "require_approval", _approval(self.name, self.require_approval)
            )
        if self.allowed_tools is not None:
            object.__setattr__(self, "allowed_tools", tuple(self.allowed_tools))
        for limit, least in (("max_reply_bytes", 1024), ("max_tools", 1)):
            value = getattr(self, limit)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise RegistrationError(
                    f"MCP server {self.name!r}: {limit} must be an integer of at least {least}",
                    tool_name=self.name,
                    param=limit,
                    code="TD114",
                )


@dataclass(frozen=True, kw_only=True)
class ArgumentReshape:
    """How a reshaped MCP tool presents one of the remote tool's arguments.

    Unlisted arguments pass through unchanged. ``value`` hides the argument
    from the model and always sends that value; ``default`` makes it optional
    for the model and sends the default when the model leaves it out.
    """

    name: str | None = None
    """The name the model sees (``None``: the remote name)."""
    description: str | None = None
    default: Any = MISSING
    value: Any = MISSING

    @property
    def hidden(self) -> bool:
        return self.value is not MISSING


@dataclass(frozen=True, kw_only=True)
class McpToolUse:
    """A tool implemented by an attached MCP server's tool (``use: SERVER/TOOL``).

    ``template`` carries everything tooldeck decides (name, tags, policies,
    result shaping, origin); the attachment completes it from the remote
    tool's live schema once the server is listed: the input schema reshaped
    by ``arguments``, and the remote description unless ``description`` is set.
    """

    server: str
    tool: str
    template: ToolSpec
    description: str | None = None
    arguments: Mapping[str, ArgumentReshape] = field(default_factory=dict)
    side_effects: bool | None = None
    """Set in the manifest: overrides the server's word (``None``: its destructiveHint)."""

    @property
    def name(self) -> str:
        return self.template.name

    @property
    def origin(self) -> SourceLocation | None:
        return self.template.origin
