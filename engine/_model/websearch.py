"""Provider-hosted web search: :class:`WebSearchSpec`, checked when it is made.

The provider runs it, tooldeck only declares it (OpenAI's Responses API
``web_search`` tool types), so everything here is what the declaration may say.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._diagnostics import SourceLocation
from .._errors import RegistrationError

__all__ = ["SEARCH_CONTEXT_SIZES", "WEB_SEARCH_TYPES", "WebSearchSpec"]


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
                path=("type",),
            )
        for key in ("city", "country", "region", "timezone"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, str):
                raise RegistrationError(
                    f"web search {key} must be a string, not {type(value).__name__}",
                    tool_name="web_search",
                    param=key,
                    code="TD118",
                    path=(key,),
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
                path=("search_context_size",),
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
                path=("allowed_domains",),
            )
        if not domains:
            raise RegistrationError(
                "web search allowed_domains is empty; leave it out to search every domain",
                tool_name="web_search",
                param="filters",
                code="TD118",
                path=("allowed_domains",),
            )
        if self.type.startswith("web_search_preview"):
            raise RegistrationError(
                f"web search type {self.type!r} has no domain filters; "
                "use type web_search to limit the search to allowed_domains",
                tool_name="web_search",
                param="filters",
                code="TD118",
                path=("allowed_domains",),
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
