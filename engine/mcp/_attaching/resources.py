"""An attached server's resources and resource templates as registry resources.

A URI is not a name: it is what the server's own content refers to (a
prompt's embedded resource, a tool result's resource link, another
resource's text), so it is registered as the server gives it, never
rewritten. ``prefix`` applies to the resource's *name* (what clients show);
FastMCP's mounting rewrites URIs instead (``data://api/info``), which a
gateway that passes content on untouched cannot do without leaving those
references pointing nowhere. Which of them register:

* ``allowed_resources`` (if set) must list the resource's URI, or the
  template's template, and ``denied_resources`` must not;
* a resource the registry holds outside the servers' groups (a local one)
  keeps its URI; between servers, the one declared first keeps it;
* a template must be one the registry can match (``{name}`` and ``{+name}``
  only, :mod:`tooldeck._uritemplate`): any other is left out with the reason.

Each resource's handler reads the remote one (``resources/read``); a
template's handler reads the URI its values expand to. Pure apart from
compiling (:func:`~tooldeck._resourceread.prepare_resource`).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..._errors import RegistrationError
from ..._model import McpServerSpec, ResourceSpec
from ..._params import ParamDescriptor
from ..._resourceread import PreparedResource, ResourceContents, prepare_resource
from ..._shadowing import declaration_order
from ..._uritemplate import UriTemplate, UriTemplateError

if TYPE_CHECKING:
    from mcp_types import ReadResourceResult, Resource, ResourceTemplate

__all__ = ["ServerResources", "assign_resource_keys", "read_contents", "server_resources"]

log = logging.getLogger("tooldeck.mcp")

Reader = Callable[..., Any]
ReaderFactory = Callable[[str, "UriTemplate | None"], Reader]
"""``factory(key, template)``: the handler reading the resource (or template) ``key``."""


@dataclass
class ServerResources:
    """What the server's group should hold of resources, and what was left out and why."""

    prepared: list[PreparedResource] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    """URI (or template) -> why it is not registered."""
    compiled: dict[str, tuple[Any, PreparedResource]] = field(default_factory=dict)
    """Key -> (what it was built from, the resource): equal sources reuse it."""

    @property
    def keys(self) -> list[str]:
        return [prepared.key for prepared in self.prepared]


def assign_resource_keys(
    servers: Iterable[McpServerSpec], listed: Mapping[str, Iterable[str]], local: Container[str]
) -> tuple[dict[str, set[str]], dict[str, dict[str, str]]]:
    """Per server, the keys (URIs, templates) it registers, and the ones it loses and why."""
    held: dict[str, str] = {}
    mine: dict[str, set[str]] = {}
    lost: dict[str, dict[str, str]] = {}
    for spec in declaration_order(servers):
        keys = listed.get(spec.name)
        if keys is None:
            continue
        mine[spec.name] = set()
        for key in dict.fromkeys(keys):
            if not spec.offers_resource(key):
                continue
            holder = "a local resource" if key in local else held.get(key)
            if holder is not None:
                lost.setdefault(spec.name, {})[key] = f"{holder} holds the URI"
                continue
            held[key] = f"MCP server {spec.name!r}"
            mine[spec.name].add(key)
    return mine, lost


def server_resources(
    spec: McpServerSpec,
    remote: tuple[list[Resource], list[ResourceTemplate]] | None,
    keys: tuple[dict[str, set[str]], dict[str, dict[str, str]]],
    reader: ReaderFactory,
    compiled: Mapping[str, tuple[Any, PreparedResource]] | None = None,
) -> ServerResources:
    """The resources ``spec``'s group should hold, given its listings and the keys it won."""
    previous = compiled or {}
    out = ServerResources(left_out=dict(keys[1].get(spec.name, {})))
    if remote is None:
        return out
    won = keys[0].get(spec.name, set())
    fixed, templates = remote
    items: list[Resource | ResourceTemplate] = [*fixed, *templates]
    for item in items:
        key = getattr(item, "uri", None) or getattr(item, "uri_template", "")
        if key not in won:
            continue
        known = previous.get(key)
        if known is not None and known[0] == item:
            out.compiled[key] = known
            out.prepared.append(known[1])
            continue
        try:
            prepared = prepare_resource(_resource_spec(spec, item, key, reader))
        except (RegistrationError, UriTemplateError) as exc:
            why = exc.message if isinstance(exc, RegistrationError) else str(exc)
            out.left_out[key] = f"it cannot be registered: {why}"
            log.warning("MCP server %r: resource %r left out: %s", spec.name, key, why)
            continue
        out.compiled[key] = (item, prepared)
        out.prepared.append(prepared)
    return out


def _resource_spec(
    spec: McpServerSpec, item: Resource | ResourceTemplate, key: str, reader: ReaderFactory
) -> ResourceSpec:
    from .listing import MCP_TAG, group_name

    template = UriTemplate(key) if hasattr(item, "uri_template") else None
    params = tuple(
        ParamDescriptor(name=variable, type="string")
        for variable in (template.variables if template is not None else ())
    )
    return ResourceSpec(
        name=spec.prefix + item.name,
        description=item.description or item.title or f"{item.name} (MCP server {spec.name})",
        uri=None if template is not None else key,
        uri_template=key if template is not None else None,
        mime_type=item.mime_type,
        handler=reader(key, template),
        params=params,
        title=item.title,
        tags=(MCP_TAG, group_name(spec.name)),
    )


def read_contents(uri: str, result: ReadResourceResult) -> tuple[ResourceContents, ...]:
    """A ``resources/read`` result as the registry's contents: every part, text or bytes."""
    from mcp_types import BlobResourceContents

    contents = result.contents
    if not contents:
        raise ValueError("the server's reply has no contents")
    parts = []
    for part in contents:
        if isinstance(part, BlobResourceContents):
            data = base64.b64decode(part.blob, validate=False)
            parts.append(ResourceContents(part.uri or uri, part.mime_type, data=data))
        else:
            parts.append(ResourceContents(part.uri or uri, part.mime_type, text=part.text))
    return tuple(parts)
