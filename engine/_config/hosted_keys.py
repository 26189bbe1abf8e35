"""Provider-hosted tools declared in configuration sections, as in the Java functional-tools SPI.

The Java functional-tools SPI's ``.properties`` keys declared provider-hosted
tools, and so do these sections here (a section: the keys under one top-level
name, ``MCP_1.*``), from a properties file or as nested mappings in a YAML,
JSON or in-code configuration::

    WebSearchTool.type=default       # enables web search; default -> web_search_preview
    WebSearchTool.city=Prague        # optional: city, country, region, timezone
    WebSearchTool.search_context_size=high          # optional: low, medium, high
    WebSearchTool.allowed_domains=docs.python.org,python.org   # type web_search only
    MCP.name=Project MCP             # first server: MCP.*, then MCP_1.*, MCP_2.* ...
    MCP.url=https://example.org/mcp
    MCP.description=...              # optional: description, authorization
    MCP.authorization=Bearer ...
    MCP.require_approval=always      # optional: always or never (default: the provider's)
    MCP.allowed_tools=search,fetch   # optional: only these of the server's tools

(The comments above are annotations: in a real properties file they would be
part of the values.) The Java SPI read ``type``, ``city``, ``country``, ``region``
and ``name``, ``url``, ``authorization``, ``description``; the other keys
are tooldeck's, for what the provider's hosted tools take beyond that
(lists are comma-separated). Web search is enabled only when
``WebSearchTool.type`` is set (:class:`tooldeck._model.WebSearchSpec`). Every
top-level section named ``MCP`` or ``MCP_<n>`` is read, in numeric order
(``MCP`` counts as 0, gaps do not stop the scan), and registers a hosted
:class:`tooldeck._model.McpServerSpec` only when its ``.name`` is set, like the
Java SPI. An empty value counts as not set. The sections also stay in
:attr:`tooldeck._config.configuration.Config.data`. Codes emitted here:

=====  ===================================================================
TD234  error: a section that is enabled cannot be registered: an ``MCP``
       section with ``.name`` but no ``.url``, a value that is not a
       string (YAML reads ``country: NO`` as a boolean), or a value or
       combination :class:`tooldeck._model.WebSearchSpec` or
       :class:`tooldeck._model.McpServerSpec` rejects (a web search type
       that does not exist, ``require_approval=sometimes``).
TD235  warning: part of a section is ignored: an ``MCP`` section without
       ``.name`` (the Java SPI registers a server only when ``.name`` is set),
       ``WebSearchTool`` keys without ``.type``, or a key that is not read
       (a typo such as ``MCP.autorization``).
=====  ===================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._diagnostics import Diagnostic, Severity, SourceLocation
from .._errors import RegistrationError
from .._model import McpServerSpec, WebSearchSpec
from .javaprops import json_path

__all__ = ["Locate", "has_hosted_keys", "read_hosted_keys"]

_MCP_SECTION = re.compile(r"MCP(?:_(\d+))?")
_WEB_SEARCH = "WebSearchTool"
_WEB_SEARCH_KEYS = (
    "type",
    "city",
    "country",
    "region",
    "timezone",
    "search_context_size",
    "allowed_domains",
)
_MCP_KEYS = ("name", "url", "authorization", "description", "require_approval", "allowed_tools")

Locate = Callable[[tuple[str, ...]], "tuple[int, int] | None"]
"""Key path (``("MCP_1", "url")``) -> 1-based (line, column) in the file, where known."""


def has_hosted_keys(data: Mapping[Any, Any]) -> bool:
    """Whether ``data`` has a top-level ``WebSearchTool`` or ``MCP``/``MCP_<n>`` key."""
    return any(
        isinstance(key, str) and (key == _WEB_SEARCH or _MCP_SECTION.fullmatch(key)) for key in data
    )


class _Section:
    """Reads one section (``WebSearchTool``, ``MCP_1``) and reports on it."""

    def __init__(
        self,
        name: str,
        values: Mapping[Any, Any],
        known: Sequence[str],
        *,
        locate: Locate | None,
        file: str | None,
        diagnostics: list[Diagnostic],
    ) -> None:
        self.name = name
        self.values = values
        self.locate = locate
        self.file = file
        self.diagnostics = diagnostics
        self.invalid: set[str] = set()
        for key in values:
            if key not in known:
                self.report(
                    "TD235",
                    f"{name}.{key} is ignored: the keys read are "
                    + ", ".join(f"{name}.{k}" for k in known),
                    Severity.WARNING,
                    str(key),
                )

    def read(self, key: str) -> str | None:
        """The value of ``key`` as a string; ``None`` if absent, empty or invalid (TD234)."""
        value = self.values.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            hint = " (quote it: YAML reads yes/no/on/off as booleans)"
            self.report(
                "TD234",
                f"{self.name}.{key} must be a string, not {type(value).__name__}"
                + (hint if isinstance(value, bool) else ""),
                Severity.ERROR,
                key,
            )
            self.invalid.add(key)
            return None
        text = str(value)
        return text or None

    def read_list(self, key: str) -> tuple[str, ...] | None:
        """A comma-separated value as its non-empty items; ``None`` if absent or invalid."""
        text = self.read(key)
        if text is None:
            return None
        return tuple(item.strip() for item in text.split(",") if item.strip())

    def location(self, key: str | None = None) -> SourceLocation | None:
        if self.file is None:
            return None
        path = (self.name,) if key is None else (self.name, key)
        position = self.locate(path) if self.locate is not None else None
        line, column = position or (1, 1)
        return SourceLocation(file=self.file, line=line, column=column, json_path=json_path(path))

    def report(self, code: str, message: str, severity: Severity, key: str | None = None) -> None:
        self.diagnostics.append(
            Diagnostic(code=code, message=message, severity=severity, location=self.location(key))
        )


def read_hosted_keys(
    data: Mapping[str, Any], *, locate: Locate | None, file: str | None
) -> tuple[WebSearchSpec | None, tuple[McpServerSpec, ...], list[Diagnostic]]:
    """The web search and MCP servers ``data`` declares, and what is wrong with them.

    ``file`` is ``None`` for a configuration given in code: its diagnostics
    then have no location. ``locate`` gives the position of a key path in
    ``file`` (line 1, column 1 where it cannot).
    """
    diagnostics: list[Diagnostic] = []
    web_search: WebSearchSpec | None = None
    web = data.get(_WEB_SEARCH)
    if isinstance(web, Mapping):
        section = _Section(
            _WEB_SEARCH, web, _WEB_SEARCH_KEYS, locate=locate, file=file, diagnostics=diagnostics
        )
        type_ = section.read("type")
        fields = {key: section.read(key) for key in _WEB_SEARCH_KEYS[1:-1]}
        domains = section.read_list("allowed_domains")
        if type_ is not None:
            try:
                web_search = WebSearchSpec(
                    type=type_, allowed_domains=domains, origin=section.location("type"), **fields
                )
            except RegistrationError as exc:
                key = exc.param if exc.param in web else "type"
                key = "allowed_domains" if exc.param == "filters" else key
                section.report("TD234", f"{_WEB_SEARCH}.{key}: {exc.message}", Severity.ERROR, key)
        elif "type" not in section.invalid:
            section.report(
                "TD235",
                f"{_WEB_SEARCH} is ignored: web search is enabled only when "
                f"{_WEB_SEARCH}.type is set (e.g. {_WEB_SEARCH}.type=default)",
                Severity.WARNING,
            )

    found: list[tuple[int, str, Mapping[Any, Any]]] = []
    for key, value in data.items():
        match = _MCP_SECTION.fullmatch(key) if isinstance(key, str) else None
        if match and isinstance(value, Mapping):
            found.append((int(match.group(1) or 0), key, value))
    servers: list[McpServerSpec] = []
    for _, name, values in sorted(found, key=lambda item: (item[0], item[1])):
        section = _Section(
            name, values, _MCP_KEYS, locate=locate, file=file, diagnostics=diagnostics
        )
        server_name, url = section.read("name"), section.read("url")
        authorization, description = section.read("authorization"), section.read("description")
        approval, allowed = section.read("require_approval"), section.read_list("allowed_tools")
        if server_name is None:
            if "name" not in section.invalid:
                section.report(
                    "TD235",
                    f"{name} is ignored: the {name}.* keys register a server only when "
                    f"{name}.name is set",
                    Severity.WARNING,
                    "url" if "url" in values else None,
                )
            continue
        if url is None:
            if "url" not in section.invalid:
                section.report(
                    "TD234",
                    f"MCP server {server_name!r} ({name}) has no {name}.url; "
                    "a hosted server needs a url the provider can reach",
                    Severity.ERROR,
                    "name",
                )
            continue
        try:
            servers.append(
                McpServerSpec(
                    name=server_name,
                    url=url,
                    authorization=authorization,
                    description=description,
                    via="hosted",
                    require_approval=approval,
                    allowed_tools=allowed,
                    origin=section.location("name"),
                )
            )
        except RegistrationError as exc:
            key = exc.param if exc.param in values else "name"
            section.report("TD234", f"{name}: {exc.message}", Severity.ERROR, key)
    return web_search, tuple(servers), diagnostics
