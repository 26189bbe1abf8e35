"""Which tools one agent gets: a selection by bundle, tag or name (a "toolset").

One manifest set can serve several agents: each export (or model loop)
offers the tools of some bundles, the tools carrying some tags, and tools
named one by one. MCP Toolbox calls such a named list a toolset; here the
selectors are additive, so a toolset is simply the union of what each one
names:

* a tool is selected when its bundle is one of ``bundles``, **or** one of
  its tags is in ``tags``, **or** its name (or provider-safe name) is in
  ``names``;
* no selector at all selects everything;
* hosted entries (the web search, ``via="hosted"`` MCP servers) have no
  tags: they come with their manifest's bundle, or by name (``web_search``,
  or the server's name);
* tools of an attached (``via="client"``) server that no ``use:`` entry
  reshapes belong to the bundle that declared the server, and carry the
  tags ``mcp`` and ``mcp:<server>``.

Union rather than intersection, because every selector then only ever adds
tools, the way a toolset lists them; to narrow, give one agent's tools a tag
of their own (``tags: [support]``) and select that. A selector that matches
nothing is a mistake (a typo would otherwise silently give an agent fewer
tools), so it raises :class:`~tooldeck.ExportError` naming what exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._errors import ExportError
from .._model import McpServerSpec, ToolSpec, WebSearchSpec

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = ["WEB_SEARCH_NAME", "Selection", "Toolset", "select_tools"]

WEB_SEARCH_NAME = "web_search"
"""The name that selects the hosted web search."""

_LISTED = 20
"""How many known bundles, tags or names an error message offers."""

_SERVER_TAG = "mcp:"
"""Tools of an attached server carry ``mcp:<server>`` (tooldeck.mcp's group name)."""


@dataclass(frozen=True, slots=True)
class Selection:
    """The tools and hosted entries one export or conversation offers.

    ``tools`` keeps registration order; ``mcp_servers`` holds only
    ``via="hosted"`` servers (a client-side server's tools are tools).
    ``name in selection`` answers for a tool's registered or provider-safe
    name: a model loop uses it to refuse calls to tools it did not offer.
    """

    tools: tuple[ToolSpec, ...]
    web_search: WebSearchSpec | None = None
    mcp_servers: tuple[McpServerSpec, ...] = ()
    everything: bool = True
    """No selector was given: every tool and hosted entry of the registry."""
    _names: frozenset[str] = field(default=frozenset(), repr=False)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._names

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)


def _as_set(values: Iterable[str] | None, what: str) -> frozenset[str]:
    if values is None:
        return frozenset()
    if isinstance(values, str):  # one name, not its characters
        values = (values,)
    out = frozenset(values)
    bad = [v for v in out if not isinstance(v, str) or not v]
    if bad:
        raise ExportError(f"{what} must be non-empty strings, got {bad[0]!r}")
    return out


def select_tools(
    registry: ToolRegistry,
    *,
    bundles: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    names: Iterable[str] | None = None,
) -> Selection:
    """The tools (and hosted entries) of ``registry`` that the selectors name, as a union.

    A bundle, tag or name that matches nothing raises :class:`ExportError`
    listing the ones that exist; see the module docstring for the rules.
    """
    want_bundles = _as_set(bundles, "bundles")
    want_tags = _as_set(tags, "tags")
    want_names = _as_set(names, "names")
    all_tools = registry.tools()
    search = registry.web_search()
    hosted = tuple(s for s in registry.mcp_servers() if s.via == "hosted")
    server_bundle = _server_bundles(registry)
    safe = {spec.name: registry.safe_name(spec.name) for spec in all_tools}

    def bundle_of(spec: ToolSpec) -> str | None:
        return _bundle_of(spec, server_bundle)

    if not (want_bundles or want_tags or want_names):
        return Selection(
            tools=all_tools,
            web_search=search,
            mcp_servers=hosted,
            everything=True,
            _names=frozenset(safe) | frozenset(safe.values()),
        )

    known_bundles = {b for b in map(bundle_of, all_tools) if b is not None}
    known_bundles.update(s.bundle for s in (search, *hosted) if s is not None and s.bundle)
    known_tags = {tag for spec in all_tools for tag in spec.tags}
    known_names = set(safe) | set(safe.values()) | {s.name for s in hosted}
    if search is not None:
        known_names.add(WEB_SEARCH_NAME)
    for what, wanted, known in (
        ("bundle", want_bundles, known_bundles),
        ("tag", want_tags, known_tags),
        ("tool", want_names, known_names),
    ):
        missing = sorted(wanted - known)
        if missing:
            plural = "s" if len(missing) > 1 else ""
            listed = sorted(known)
            offer = ", ".join(listed[:_LISTED]) or "none"
            if len(listed) > _LISTED:
                offer += f" ... ({len(listed) - _LISTED} more)"
            raise ExportError(
                f"unknown {what}{plural} {', '.join(map(repr, missing))}; "
                f"the {what}s here are: {offer}"
            )

    tools = tuple(
        spec
        for spec in all_tools
        if bundle_of(spec) in want_bundles
        or not want_tags.isdisjoint(spec.tags)
        or spec.name in want_names
        or safe[spec.name] in want_names
    )
    chosen_search = (
        search
        if search is not None and (WEB_SEARCH_NAME in want_names or search.bundle in want_bundles)
        else None
    )
    servers = tuple(s for s in hosted if s.name in want_names or s.bundle in want_bundles)
    return Selection(
        tools=tools,
        web_search=chosen_search,
        mcp_servers=servers,
        everything=False,
        _names=frozenset(s.name for s in tools) | frozenset(safe[s.name] for s in tools),
    )


def _server_bundles(registry: ToolRegistry) -> dict[str, str]:
    return {s.name: s.bundle for s in registry.mcp_servers() if s.bundle is not None}


def _bundle_of(spec: ToolSpec, server_bundle: dict[str, str]) -> str | None:
    if spec.bundle is not None:
        return spec.bundle
    for tag in spec.tags:  # a raw tool of an attached server: the server's bundle
        if tag.startswith(_SERVER_TAG) and tag[len(_SERVER_TAG) :] in server_bundle:
            return server_bundle[tag[len(_SERVER_TAG) :]]
    return None


@dataclass(frozen=True, slots=True)
class Toolset:
    """A selection kept to apply again: what one MCP endpoint serves, reload after reload.

    The selectors are :func:`select_tools`' (a union; none selects everything).
    :meth:`check` is the start-up test (a selector that matches nothing raises
    :class:`ExportError`, as ``export`` does); :meth:`admits` is the per-call
    test, which never raises: after a reload that removed a bundle, its tools
    are simply no longer served.
    """

    bundles: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()
    name: str = ""
    """The toolset's name in ``[tool.tooldeck.toolsets]``; empty for the command line's own."""

    @classmethod
    def of(
        cls,
        *,
        bundles: Iterable[str] | None = None,
        tags: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        name: str = "",
    ) -> Toolset:
        return cls(
            _as_set(bundles, "bundles"), _as_set(tags, "tags"), _as_set(names, "names"), name
        )

    @property
    def everything(self) -> bool:
        return not (self.bundles or self.tags or self.names)

    def check(self, registry: ToolRegistry) -> Selection:
        """The selection now; raises :class:`ExportError` for a selector that matches nothing."""
        return select_tools(registry, bundles=self.bundles, tags=self.tags, names=self.names)

    def admits(self, spec: ToolSpec, registry: ToolRegistry) -> bool:
        """Whether ``spec`` (a tool of ``registry``) belongs to this toolset."""
        if self.everything:
            return True
        if self.names and (spec.name in self.names or registry.safe_name(spec.name) in self.names):
            return True
        if self.tags and not self.tags.isdisjoint(spec.tags):
            return True
        return bool(self.bundles) and _bundle_of(spec, _server_bundles(registry)) in self.bundles

    def admits_prompt(self, bundle: str | None, tags: Iterable[str], name: str) -> bool:
        """Prompts go with their bundle, their tags or their name, as tools do."""
        return (
            self.everything
            or name in self.names
            or (bundle is not None and bundle in self.bundles)
            or not self.tags.isdisjoint(tags)
        )
