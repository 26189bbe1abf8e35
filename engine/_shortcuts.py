"""The registration shortcuts: build a spec from a handler (inferring what is left out).

:class:`RegistrationShortcuts` is the convenience half of
:class:`~tooldeck.ToolRegistry` (a mixin): ``add_tool`` and the ``@tool``
decorator infer name, description and parameters from a handler's
signature and docstring as ``addTool`` of the Java Functional Tools API
does, ``add_prompt`` accepts a template or a handler, and the hosted entries
take that API's positional arguments. Each builds a spec and hands it to
``ToolRegistry.add`` (which takes a ready-made spec of any kind), where the
duplicate policy and notifications live.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

from ._entries import WEB_SEARCH
from ._errors import RegistrationError
from ._inference import describe_handler, infer_params, snake_case
from ._model import McpServerSpec, McpToolUse, PromptSpec, ResultSpec, ToolSpec, WebSearchSpec
from ._params import ParamDescriptor

if TYPE_CHECKING:
    from ._entries import DuplicatePolicy, Snapshot

__all__ = ["RegistrationShortcuts", "SpecT"]

SpecT = TypeVar("SpecT", ToolSpec, PromptSpec, McpServerSpec, WebSearchSpec)
"""A ready-made spec of any kind, as :meth:`ToolRegistry.add` takes and returns it."""


class RegistrationShortcuts:
    """Spec-building registration methods; see the module docstring."""

    if TYPE_CHECKING:  # the spec-level method the registry provides

        def add(
            self,
            spec: SpecT,
            *,
            on_duplicate: DuplicatePolicy | None = None,
            group: str | None = None,
        ) -> SpecT:
            """Provided by the registry."""

        _snapshot: Snapshot

    def add_tool(
        self,
        name: str | None = None,
        description: str | None = None,
        handler: Callable[..., Any] | None = None,
        *params: ParamDescriptor,
        infer: bool | None = None,
        on_duplicate: DuplicatePolicy | None = None,
        result: ResultSpec | Mapping[str, Any] | None = None,
        **options: Any,
    ) -> ToolSpec:
        """Register a tool, as the Java ``addTool(name, description, function, params...)`` does.

        ``name`` defaults to the handler's name in snake_case, ``description``
        to its docstring. With no ``params`` (and ``infer`` not False) they
        are inferred from the handler's signature and docstring. ``options``
        are :class:`ToolSpec` fields (tags, side_effects, timeout, ...).
        """
        if handler is None or not callable(handler):
            raise RegistrationError("add_tool needs a callable handler", tool_name=name)
        if infer is None:
            infer = not params
        if infer and not params:
            params = infer_params(handler)
        if result is not None and not isinstance(result, ResultSpec):
            result = ResultSpec(**result)
        spec = ToolSpec(
            name=name or snake_case(getattr(handler, "__name__", "") or "tool"),
            description=description if description is not None else describe_handler(handler),
            handler=handler,
            params=tuple(params),
            result=result,
            **options,
        )
        return self.add(spec, on_duplicate=on_duplicate)

    def add_external_tool(
        self,
        name: str,
        description: str,
        input_schema: Mapping[str, Any],
        handler: Callable[..., Any],
        *,
        on_duplicate: DuplicatePolicy | None = None,
        **options: Any,
    ) -> ToolSpec:
        """Register a tool that brings its own JSON Schema (MCP servers, hand-written).

        The handler is called as ``handler(arguments=<dict>)``, sync or async,
        plus a ``ToolContext`` if it has a parameter annotated with one.
        """
        spec = ToolSpec(
            name=name,
            description=description,
            handler=handler,
            input_schema=dict(input_schema),
            **options,
        )
        return self.add(spec, on_duplicate=on_duplicate)

    @overload
    def tool(self, func: Callable[..., Any], /) -> Callable[..., Any]: ...
    @overload
    def tool(
        self,
        func: None = None,
        /,
        **kwargs: Any,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...
    def tool(self, func: Callable[..., Any] | None = None, /, **kwargs: Any) -> Any:
        """Decorator form: ``@registry.tool`` or ``@registry.tool(name=..., timeout=...)``."""

        def register(handler: Callable[..., Any]) -> Callable[..., Any]:
            self.add_tool(
                kwargs.pop("name", None),
                kwargs.pop("description", None),
                handler,
                *kwargs.pop("params", ()),
                **kwargs,
            )
            return handler

        return register(func) if func is not None else register

    def add_prompt(
        self,
        name: str | None = None,
        description: str | None = None,
        template: str | Callable[..., Any] | None = None,
        *params: ParamDescriptor,
        role: Literal["assistant", "user"] = "assistant",
        on_duplicate: DuplicatePolicy | None = None,
        **options: Any,
    ) -> PromptSpec:
        """Register a prompt from a ``{placeholder}`` template or a handler returning text."""
        if callable(template):
            handler, text = template, None
            if not params:
                params = infer_params(handler)
            name = name or snake_case(getattr(handler, "__name__", "prompt"))
            if description is None:
                description = describe_handler(handler)
        else:
            handler, text = None, template
        if not name:
            raise RegistrationError("a prompt needs a name")
        spec = PromptSpec(
            name=name,
            description=description or "",
            role=role,
            params=tuple(params),
            template=text,
            handler=handler,
            **options,
        )
        return self.add(spec, on_duplicate=on_duplicate)

    def add_web_search(
        self,
        type: str = "default",
        city: str | None = None,
        country: str | None = None,
        region: str | None = None,
        *,
        timezone: str | None = None,
        search_context_size: str | None = None,
        allowed_domains: Sequence[str] | None = None,
        on_duplicate: DuplicatePolicy | None = None,
    ) -> WebSearchSpec:
        """Enable provider-hosted web search (``default`` -> ``web_search_preview``).

        ``city``, ``country``, ``region`` and ``timezone`` are the user's
        approximate location; ``search_context_size`` is ``low``, ``medium`` or
        ``high``; ``allowed_domains`` limits a ``web_search`` type to those
        domains. A registry has one web search: a second one follows ``on_duplicate``.
        """
        domains: Any = allowed_domains  # a lone string stays one, for TD118 to say why
        if domains is not None and not isinstance(domains, str):
            domains = tuple(domains)
        spec = WebSearchSpec(
            type=type,
            city=city,
            country=country,
            region=region,
            timezone=timezone,
            search_context_size=search_context_size,
            allowed_domains=domains,
        )
        return self.add(spec, on_duplicate=on_duplicate)

    def add_mcp_server_spec(
        self,
        spec: McpServerSpec,
        *,
        on_duplicate: DuplicatePolicy | None = None,
        group: str | None = None,
    ) -> McpServerSpec:
        """Deprecated alias of :meth:`add`, which takes a spec of any kind."""
        warnings.warn(
            "add_mcp_server_spec() is deprecated: use add(spec)", DeprecationWarning, stacklevel=2
        )
        return self.add(spec, on_duplicate=on_duplicate, group=group)

    def add_mcp_server(
        self,
        name: str,
        url: str | None = None,
        authorization: str | None = None,
        description: str | None = None,
        *,
        on_duplicate: DuplicatePolicy | None = None,
        **options: Any,
    ) -> McpServerSpec:
        """Declare an MCP server, as the Java ``addMcpServer(name, url, auth, description)`` does.

        ``options`` are :class:`McpServerSpec` fields (``command``, ``via``,
        ``prefix``, ``cache_ttl`` ...).
        """
        spec = McpServerSpec(
            name=name, url=url, authorization=authorization, description=description, **options
        )
        return self.add(spec, on_duplicate=on_duplicate)

    # ------------------------------------------------- hosted entries, looked up
    def web_search(self) -> WebSearchSpec | None:
        """The configured hosted web search, if any."""
        entry = self._snapshot.table("web_search").get(WEB_SEARCH)
        return None if entry is None else cast(WebSearchSpec, entry.spec)

    def mcp_servers(self) -> tuple[McpServerSpec, ...]:
        """Every declared MCP server, in declaration order."""
        return tuple(
            cast(McpServerSpec, e.spec) for e in self._snapshot.table("mcp_server").values()
        )

    def tool_uses(self) -> tuple[McpToolUse, ...]:
        """Every ``use: SERVER/TOOL`` declaration; an attachment turns them into tools."""
        return tuple(cast(McpToolUse, e.spec) for e in self._snapshot.table("tool_use").values())

    def tool_use(self, name: str) -> McpToolUse | None:
        """The ``use:`` declaration that reserves ``name``, if any (attached or not)."""
        entry = self._snapshot.table("tool_use").get(name)
        return None if entry is None else cast(McpToolUse, entry.spec)
