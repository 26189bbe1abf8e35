"""A validated manifest document -> ToolSpec / PromptSpec / McpServerSpec / WebSearchSpec.

This folder is the only place YAML meets the data model, and it builds nothing the
programmatic API could not: every entry becomes the same ParamDescriptor and
ToolSpec a Python caller would write, and each tool and prompt is prepared
by the builder (:func:`tooldeck._prepare.prepare_tool`) so its declaration mistakes (a
default that violates its type, a parameter the handler cannot accept) come
back as located diagnostics with the registry's own codes; the prepared
objects travel on in the :class:`Bundle` to the registry, which uses them as
they are. One bad entry never hides the good ones: it is reported and skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..._yaml import YamlDocument
from .._resolve import HandlerResolver, resolve_handler
from .builder import _Builder
from .bundle import Bundle
from .servers import build_server, build_web_search

__all__ = ["build_bundle"]


def build_bundle(
    doc: YamlDocument,
    data: Mapping[str, Any],
    *,
    allowed: Iterable[str],
    search_root: Mapping[str, Any],
    app_class: type | None,
    resolver: HandlerResolver = resolve_handler,
) -> Bundle:
    """Turn a document that passed the meta-schema into specs plus diagnostics.

    ``resolver`` turns a handler reference into a callable: by default it
    imports the module; ``tooldeck lint --static`` passes one that reads the
    source instead (:class:`~tooldeck.manifest._static.resolve.StaticResolver`).
    """
    builder = _Builder(doc, tuple(allowed), resolver)
    bundle = Bundle(
        file=doc.file,
        name=str(data.get("bundle") or Path(doc.file).stem),
        description=str(data.get("description", "")),
    )
    builder.bundle = bundle
    _activation(bundle, builder, data, search_root, app_class)
    defaults = dict(data.get("defaults", {}))
    for index, entry in enumerate(data.get("tools", [])):
        builder.tool(entry, ("tools", index), defaults)
    for index, entry in enumerate(data.get("prompts", [])):
        builder.prompt(entry, ("prompts", index))
    for index, entry in enumerate(data.get("mcp_servers", [])):
        build_server(builder, entry, ("mcp_servers", index))
    if "web_search" in data:
        build_web_search(builder, data["web_search"])
    return bundle


def _activation(
    bundle: Bundle,
    builder: _Builder,
    data: Mapping[str, Any],
    search_root: Mapping[str, Any],
    app_class: type | None,
) -> None:
    supported = data.get("supported_for")
    if supported and app_class is not None:
        names = {f"{c.__module__}:{c.__qualname__}" for c in app_class.__mro__}
        if not names.intersection(supported):
            bundle.active = False
            bundle.inactive_reason = f"supported_for does not include {app_class.__qualname__}"
    expression = data.get("enabled_when")
    if expression:
        import jmespath

        try:
            enabled = jmespath.search(expression, dict(search_root))
        except Exception as exc:
            builder.report(("enabled_when",), "TD215", f"invalid JMESPath expression: {exc}")
            return
        if not enabled and bundle.active:
            bundle.active = False
            bundle.inactive_reason = f"enabled_when {expression!r} is false"
