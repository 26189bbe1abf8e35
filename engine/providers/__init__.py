"""Tool definitions in the shapes LLM providers accept: pure dict transforms.

:func:`export_tools` turns a :class:`~tooldeck.ToolRegistry` into the
``tools`` list of one provider's request. Each provider's shapes live in its
own module (:mod:`~tooldeck.providers.openai`,
:mod:`~tooldeck.providers.anthropic`, :mod:`~tooldeck.providers.gemini`,
:mod:`~tooldeck.providers.mcp`), so adding or changing one touches one file;
the schema walking they share (``$ref``, ``allOf``, type lists, redaction)
is in one private module, so they cannot drift apart. :data:`EXPORTERS`
maps each name in :data:`PROVIDERS` to its :class:`Exporter`.

Nothing here imports a provider SDK (openai, anthropic, google, mcp):
exporting is data in, data out, and ``import tooldeck.providers`` stays as
light as the core. The shapes follow the installed SDKs' own types, which
the tests check them against.

Every definition uses the tool's provider-safe name
(:func:`tooldeck.safe_name`); the registry resolves calls that come back
under that name.

An export never fails for one tool a provider cannot take as asked: a schema
strict mode cannot express goes out non-strict, and hosted entries a
provider has no place for are left out, each with an :class:`ExportWarning`
(collected in ``export_tools(..., warnings=[])`` or logged on the
``tooldeck.providers`` logger). :func:`select_tools` picks the tools one
agent gets, by bundle, tag or name.
"""

from __future__ import annotations

import copy
import json
import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from .._errors import ExportError
from .._model import McpServerSpec, ToolSpec, WebSearchSpec
from . import anthropic, gemini, mcp, openai
from ._schema import object_root, redacted
from ._select import Selection, Toolset, select_tools
from .gemini import gemini_schema
from .openai import strict_schema

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = [
    "EXPORTERS",
    "PROVIDERS",
    "ExportError",
    "ExportWarning",
    "Exporter",
    "Selection",
    "Toolset",
    "definition_tokens",
    "export_tools",
    "gemini_schema",
    "select_tools",
    "strict_schema",
]

log = logging.getLogger("tooldeck.providers")

Hosted = Callable[[WebSearchSpec | None, Sequence[McpServerSpec]], list[dict[str, Any]]]
"""``(web_search, hosted_servers) -> definitions``: a provider's hosted entries."""


@dataclass(frozen=True, slots=True)
class Exporter:
    """How one provider spells tool definitions.

    ``tool(spec, name, schema, strict)`` builds one definition from a spec,
    its provider-safe ``name`` and a private copy of its input ``schema``
    (object-rooted; the exporter may keep or rewrite it). ``strict`` is
    OpenAI strict mode, passed only to exporters with ``strict_mode=True``
    (others always get False); a ``ValueError`` from a strict attempt makes
    :func:`export_tools` send that tool non-strict, with a warning.
    ``hosted(web_search, servers)``, when set, gives the provider-run tools
    (OpenAI's hosted web search and ``via="hosted"`` MCP servers) that follow
    the function definitions; without it such entries are left out, with a
    warning.
    """

    tool: Callable[[ToolSpec, str, dict[str, Any], bool], dict[str, Any]]
    hosted: Hosted | None = None
    strict_mode: bool = False
    """The provider has a strict mode (``strict`` can be True)."""
    notes: Callable[[dict[str, Any]], list[tuple[str, str]]] | None = None
    """``(path, message)`` for each place of a schema the provider's dialect cannot say
    exactly (Gemini); each becomes a ``"schema_changed"`` warning naming the tool."""


EXPORTERS: Mapping[str, Exporter] = MappingProxyType(
    {
        "openai-responses": Exporter(
            openai.responses_tool, hosted=openai.hosted_entries, strict_mode=True
        ),
        "openai-chat": Exporter(openai.chat_tool, strict_mode=True),
        "anthropic": Exporter(anthropic.anthropic_tool),
        "gemini": Exporter(gemini.gemini_tool, notes=gemini.gemini_notes),
        "mcp": Exporter(mcp.mcp_tool),
    }
)
"""Provider name -> its :class:`Exporter`; read-only, in :data:`PROVIDERS` order.

A lookup in one table, not a chain of name comparisons: the set of names
that :func:`export_tools` accepts, the list its error message offers and
:data:`PROVIDERS` cannot disagree."""

PROVIDERS: tuple[str, ...] = tuple(EXPORTERS)
"""The ``provider`` values :func:`export_tools` understands:
openai-responses, openai-chat, anthropic, gemini, mcp."""

_NO_HOSTED = {
    "openai-chat": "Chat Completions takes no hosted tools (use openai-responses)",
    "anthropic": "the anthropic export has no hosted tools",
    "gemini": "the gemini export has function declarations only",
    "mcp": "an MCP tool list has no hosted tools",
}
"""Why a provider leaves hosted entries out, for the warning."""


@dataclass(frozen=True, slots=True)
class ExportWarning:
    """Something an export could not send as declared; the definitions went out anyway.

    ``kind`` is ``"not_strict"`` (a tool sent without strict mode because its
    schema cannot be expressed in it), ``"left_out"`` (a hosted entry the
    provider cannot take) or ``"schema_changed"`` (a place of a tool's schema
    the provider's dialect cannot say, sent tighter, looser or as it is:
    Gemini; the message names the tool and the path). ``name`` is the tool's
    registered name, ``web_search`` or the MCP server's name.
    ``str(warning)`` is the message (redacted when the export was).
    """

    kind: Literal["not_strict", "left_out", "schema_changed"]
    provider: str
    name: str
    message: str

    def __str__(self) -> str:
        return self.message


def export_tools(
    registry: ToolRegistry,
    provider: str,
    *,
    strict: bool | None = None,
    include_hosted: bool = True,
    redact: Callable[[str], str] | None = None,
    bundles: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    names: Iterable[str] | None = None,
    warnings: list[ExportWarning] | None = None,
    send_credentials: bool = False,
) -> list[dict[str, Any]]:
    """One tool definition per selected tool, in registration order, for ``provider``.

    Args:
        registry: where the tools (and hosted entries) come from.
        provider: one of :data:`PROVIDERS`; anything else raises
            :class:`ExportError` listing them.
        strict: OpenAI strict mode for every tool: True asks for it, False
            never uses it; ``None`` (the default) uses each tool's
            ``ToolSpec.strict``, where ``None`` means auto: strict when
            :func:`strict_schema` can convert the schema. A schema that cannot
            be made strict never fails the export: that tool goes out
            non-strict with a ``"not_strict"`` warning (also under auto, so the
            reason is visible). Other providers have no strict mode.
        include_hosted: append the hosted web search and the ``via="hosted"``
            MCP servers after the function tools (``openai-responses``); for
            providers that cannot take them, each one left out is a
            ``"left_out"`` warning. ``via="client"`` servers are never hosted
            entries: their tools are ordinary tools once tooldeck connects.
        redact: applied to every string value of the output (not to keys:
            interpolation never fills them), to warnings and to the message of
            an :class:`ExportError`, e.g. ``registry.secrets.redact``. Applied to
            the data, before anyone serialises it, so escaping cannot hide a secret.
        bundles, tags, names: export only the tools these select, as a union
            (:func:`select_tools`; an unknown one raises :class:`ExportError`).
            None of them exports everything.
        warnings: a list that receives an :class:`ExportWarning` per thing sent
            differently from its declaration; without one, each is logged on
            the ``tooldeck.providers`` logger at WARNING level.
        send_credentials: keep a hosted MCP server's credentials out of
            ``redact``: its ``server_url``, ``authorization`` and header values
            go out as they are, ``${env:...}`` values included. For a request
            to the provider, which must reach the server (the model loop);
            never for output a person reads (``tooldeck export``).

    The result is fresh (deep-copied) data: changing it never changes the
    registry. Output is deterministic for a given registry. :class:`ExportError`
    is a ``ValueError``, so ``except ValueError`` keeps working.
    """
    exporter = EXPORTERS.get(provider)
    if exporter is None:
        raise ExportError(
            f"unknown provider {provider!r}; use one of: {', '.join(PROVIDERS)}",
            provider=provider,
        )
    try:
        selection = select_tools(registry, bundles=bundles, tags=tags, names=names)
    except ExportError as exc:
        if redact is None:
            raise
        raise ExportError(redact(exc.message), provider=provider) from None
    found: list[ExportWarning] = []

    def warn(
        kind: Literal["not_strict", "left_out", "schema_changed"], name: str, message: str
    ) -> None:
        text = message if redact is None else redact(message)
        found.append(ExportWarning(kind, provider, name, text))

    out: list[dict[str, Any]] = []
    hosted: list[dict[str, Any]] = []
    for spec in selection.tools:
        name = registry.safe_name(spec.name)
        schema = object_root(copy.deepcopy(registry.input_schema(spec.name)))
        wanted = spec.strict if strict is None else strict
        definition = None
        if exporter.strict_mode and wanted is not False:
            try:
                definition = exporter.tool(spec, name, schema, True)
            except ValueError as exc:  # strict_schema says where; the message may quote values
                how = "strict mode was asked for" if wanted else "strict: auto"
                warn(
                    "not_strict",
                    spec.name,
                    f"tool {spec.name!r} ({provider}) goes out non-strict ({how}): {exc}",
                )
                schema = object_root(copy.deepcopy(registry.input_schema(spec.name)))
        if definition is None:
            try:
                definition = exporter.tool(spec, name, schema, False)
            except ValueError as exc:  # its message may quote schema values
                message = f"tool {spec.name!r} ({provider}): {exc}"
                raise ExportError(
                    message if redact is None else redact(message),
                    provider=provider,
                    tool_name=spec.name,
                ) from None
            if exporter.notes is not None:
                schema = object_root(copy.deepcopy(registry.input_schema(spec.name)))
                for where, note in exporter.notes(schema):
                    warn(
                        "schema_changed",
                        spec.name,
                        f"tool {spec.name!r} ({provider}): {where}: {note}",
                    )
        out.append(definition)
    if include_hosted:
        servers = selection.mcp_servers
        if exporter.hosted is not None:
            hosted = exporter.hosted(selection.web_search, servers)
        else:
            why = _NO_HOSTED.get(provider, f"the {provider} export has no hosted tools")
            if selection.web_search is not None:
                kind = selection.web_search.type
                warn("left_out", "web_search", f"hosted web search ({kind}) left out: {why}")
            for server in servers:
                warn(
                    "left_out",
                    server.name,
                    f"hosted MCP server {server.name!r} left out: {why}",
                )
    if redact is not None:
        out = [redacted(d, redact) for d in out]
        hosted = [_redacted_hosted(d, redact, send_credentials) for d in hosted]
    out.extend(hosted)
    if warnings is not None:
        warnings.extend(found)
    else:
        for warning in found:
            log.warning("%s", warning.message)
    return out


_CREDENTIALS = ("server_url", "authorization", "headers")
"""A hosted MCP entry's keys that carry what the provider needs to reach the server."""


def _redacted_hosted(
    definition: dict[str, Any], redact: Callable[[str], str], send_credentials: bool
) -> dict[str, Any]:
    """A hosted entry redacted; with ``send_credentials``, an MCP entry keeps its credentials."""
    if not send_credentials or definition.get("type") != "mcp":
        whole: dict[str, Any] = redacted(definition, redact)
        return whole
    rest = redacted({k: v for k, v in definition.items() if k not in _CREDENTIALS}, redact)
    return {key: definition[key] if key in _CREDENTIALS else rest[key] for key in definition}


def definition_tokens(definition: Mapping[str, Any]) -> int:
    """A rough estimate of the tokens ``definition`` costs a model's context.

    ``ceil(characters of compact JSON / 4)``: the usual four-characters-a-token
    rule of thumb for English text and JSON, with no tokenizer dependency.
    Real counts differ by model and provider (they also add per-tool framing),
    so use it to compare definitions and spot large ones, not to budget exactly.
    """
    text = json.dumps(definition, separators=(",", ":"), ensure_ascii=False)
    return math.ceil(len(text) / 4)
