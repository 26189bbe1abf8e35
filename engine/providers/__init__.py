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
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from tooldeck._errors import ExportError
from tooldeck._model import ToolSpec
from tooldeck.providers import anthropic, gemini, mcp, openai
from tooldeck.providers._schema import object_root, redacted
from tooldeck.providers.gemini import gemini_schema
from tooldeck.providers.openai import strict_schema

if TYPE_CHECKING:
    from tooldeck._registry import ToolRegistry

__all__ = [
    "EXPORTERS",
    "PROVIDERS",
    "ExportError",
    "Exporter",
    "definition_tokens",
    "export_tools",
    "gemini_schema",
    "strict_schema",
]


@dataclass(frozen=True, slots=True)
class Exporter:
    """How one provider spells tool definitions.

    ``tool(spec, name, schema, strict)`` builds one definition from a spec,
    its provider-safe ``name`` and a private copy of its input ``schema``
    (object-rooted; the exporter may keep or rewrite it). ``strict`` is
    OpenAI strict mode; exporters for providers without it ignore it.
    ``hosted(registry)``, when set, lists provider-run tools (OpenAI's hosted
    web search and MCP servers) that follow the function definitions.
    """

    tool: Callable[[ToolSpec, str, dict[str, Any], bool], dict[str, Any]]
    hosted: Callable[[ToolRegistry], list[dict[str, Any]]] | None = None


EXPORTERS: Mapping[str, Exporter] = MappingProxyType(
    {
        "openai-responses": Exporter(openai.responses_tool, hosted=openai.hosted_tools),
        "openai-chat": Exporter(openai.chat_tool),
        "anthropic": Exporter(anthropic.anthropic_tool),
        "gemini": Exporter(gemini.gemini_tool),
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


def export_tools(
    registry: ToolRegistry,
    provider: str,
    *,
    strict: bool | None = None,
    include_hosted: bool = True,
    redact: Callable[[str], str] | None = None,
) -> list[dict[str, Any]]:
    """One tool definition per registered tool, in registration order, for ``provider``.

    Args:
        registry: where the tools (and hosted entries) come from.
        provider: one of :data:`PROVIDERS`; anything else raises
            :class:`ExportError` listing them.
        strict: OpenAI strict mode for every tool; ``None`` uses each tool's
            ``ToolSpec.strict`` (``None`` there means off). Strict schemas go
            through :func:`strict_schema`; a schema that cannot be made strict
            raises :class:`ExportError` naming the tool. Other providers ignore it.
        include_hosted: for ``openai-responses``, append the hosted web search
            and the ``via="hosted"`` MCP servers after the function tools.
            ``via="client"`` servers are never exported here: their tools are
            registered as ordinary tools once tooldeck connects to them.
        redact: applied to every string value of the output (not to keys:
            interpolation never fills them) and to the message of an
            :class:`ExportError`, e.g. ``registry.secrets.redact``. Applied to the
            data, before anyone serialises it, so escaping cannot hide a secret.

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
    out: list[dict[str, Any]] = []
    for spec in registry.tools():
        name = registry.safe_name(spec.name)
        schema = object_root(copy.deepcopy(registry.input_schema(spec.name)))
        use_strict = strict if strict is not None else bool(spec.strict)
        try:
            out.append(exporter.tool(spec, name, schema, use_strict))
        except ValueError as exc:  # its message may quote schema values
            message = f"tool {spec.name!r} ({provider}): {exc}"
            raise ExportError(
                message if redact is None else redact(message),
                provider=provider,
                tool_name=spec.name,
            ) from None
    if include_hosted and exporter.hosted is not None:
        out.extend(exporter.hosted(registry))
    if redact is not None:
        out = [redacted(d, redact) for d in out]
    return out


def definition_tokens(definition: Mapping[str, Any]) -> int:
    """A rough estimate of the tokens ``definition`` costs a model's context.

    ``ceil(characters of compact JSON / 4)``: the usual four-characters-a-token
    rule of thumb for English text and JSON, with no tokenizer dependency.
    Real counts differ by model and provider (they also add per-tool framing),
    so use it to compare definitions and spot large ones, not to budget exactly.
    """
    text = json.dumps(definition, separators=(",", ":"), ensure_ascii=False)
    return math.ceil(len(text) / 4)
