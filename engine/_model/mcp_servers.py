"""External MCP servers (:class:`McpServerSpec`) and the tools and prompts using theirs.

A server is handed to the provider (``via="hosted"``) or attached by tooldeck
(``via="client"``); a ``use: SERVER/TOOL`` entry presents one of an attached
server's tools as a registry tool, its arguments reshaped (:class:`ArgumentReshape`),
and a ``use: SERVER/PROMPT`` prompt entry one of its prompts (:class:`McpPromptUse`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .._diagnostics import SourceLocation
from .._errors import RegistrationError
from .._names import name_problem
from .._params import MISSING

if TYPE_CHECKING:
    from .tools import ToolSpec

__all__ = [
    "MCP_APPROVAL_FILTER_KEYS",
    "MCP_CALL_TIMEOUT",
    "MCP_MAX_REPLY_BYTES",
    "MCP_MAX_TOOLS",
    "ArgumentReshape",
    "McpPromptUse",
    "McpServerSpec",
    "McpToolUse",
    "ToolFilter",
]

ToolFilter = Callable[[Any], Any]
"""``tool_filter(tool) -> bool`` (or an awaitable of it): whether an attached server's tool
is registered as it is. ``tool`` is the server's definition as listed (the ``mcp``
package's ``Tool``: ``name``, ``description``, ``input_schema``, ``annotations``)."""


MCP_APPROVAL_FILTER_KEYS = ("tool_names", "read_only")
"""The keys of OpenAI's per-tool approval filter (``McpRequireApprovalMcpToolApprovalFilter``)."""

MCP_CALL_TIMEOUT = 60.0
"""Seconds a call to an attached (``via="client"``) server's tool may take when nothing says."""

MCP_MAX_REPLY_BYTES = 4 * 1024 * 1024
"""The largest message accepted from an attached server by default (one stdio line, one
HTTP body or server-sent event): 4 MiB."""

MCP_MAX_TOOLS = 10_000
"""The most tools an attached server may list by default; a server that lists more is left out."""


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
            path=("require_approval",),
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
    tool_filter: ToolFilter | None = None
    """``via="client"``, Python API only: a callable asked about each remote tool after
    ``allowed_tools`` and ``denied_tools`` (see :data:`ToolFilter`); False leaves the tool
    out, as a denial does, and so does a filter that raises (logged as a warning).
    Compared by identity when the registry compares declarations."""
    allowed_prompts: tuple[str, ...] | None = None
    """``via="client"``: only these remote prompts are registered (``None``: all of them).
    Names are the server's own, before ``prefix``; tool lists never apply to prompts."""
    denied_prompts: tuple[str, ...] = ()
    """Remote prompts never registered (after ``allowed_prompts``)."""
    allowed_resources: tuple[str, ...] | None = None
    """``via="client"``: only the remote resources with these URIs, and the templates with
    these URI templates, are registered (``None``: all of them). URIs are the server's own:
    ``prefix`` applies to resources' names, never to their URIs."""
    denied_resources: tuple[str, ...] = ()
    """Remote resources (by URI) and templates (by template) never registered."""
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

    def offers_prompt(self, remote: str, used: Collection[str] = ()) -> bool:
        """Whether the remote prompt ``remote`` becomes a registry prompt as it is.

        ``allowed_prompts`` (if set) must name it and ``denied_prompts`` must
        not, and no ``use:`` prompt entry may name it (``used``), since the
        entry presents it instead.
        """
        if remote in used or remote in self.denied_prompts:
            return False
        return self.allowed_prompts is None or remote in self.allowed_prompts

    def offers_resource(self, key: str) -> bool:
        """Whether the remote resource (its URI) or template (its template) registers."""
        if key in self.denied_resources:
            return False
        return self.allowed_resources is None or key in self.allowed_resources

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
                    path=("require_approval",),
                )
            object.__setattr__(
                self, "require_approval", _approval(self.name, self.require_approval)
            )
        for names in ("allowed_tools", "allowed_prompts", "allowed_resources"):
            if getattr(self, names) is not None:
                object.__setattr__(self, names, tuple(getattr(self, names)))
        object.__setattr__(self, "denied_prompts", tuple(self.denied_prompts))
        object.__setattr__(self, "denied_resources", tuple(self.denied_resources))
        if self.tool_filter is not None and not callable(self.tool_filter):
            raise RegistrationError(
                f"MCP server {self.name!r}: tool_filter must be a callable taking a tool",
                tool_name=self.name,
                param="tool_filter",
                code="TD114",
            )
        for limit, least in (("max_reply_bytes", 1024), ("max_tools", 1)):
            value = getattr(self, limit)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise RegistrationError(
                    f"MCP server {self.name!r}: {limit} must be an integer of at least {least}",
                    tool_name=self.name,
                    param=limit,
                    code="TD114",
                    path=(limit,),
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


@dataclass(frozen=True, kw_only=True)
class McpPromptUse:
    """A prompt implemented by an attached MCP server's prompt (``use: SERVER/PROMPT``).

    The name, description and tags are tooldeck's; the arguments and the
    rendering (every message, in the roles the server gives) are the remote
    prompt's, known once its server lists its prompts. The entry reserves
    ``name`` from the moment it is declared, as a tool's ``use:`` entry does.
    """

    server: str
    prompt: str
    name: str
    description: str | None = None
    """Shown instead of the remote prompt's description (``None``: the server's)."""
    tags: tuple[str, ...] = ()
    bundle: str | None = None
    origin: SourceLocation | None = None

    def __post_init__(self) -> None:
        problem = name_problem(self.name) if isinstance(self.name, str) else "is not a string"
        if problem is not None:
            raise RegistrationError(
                f"prompt name {self.name!r} {problem}", tool_name=str(self.name), path=("name",)
            )
        if not self.server or not self.prompt:
            raise RegistrationError(
                f"prompt {self.name!r}: use: needs SERVER/PROMPT",
                tool_name=self.name,
                code="TD117",
                path=("use",),
            )
