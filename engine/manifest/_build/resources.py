"""A ``resources:`` manifest entry -> :class:`~tooldeck.ResourceSpec`, prepared and located.

The entry becomes the same spec ``registry.add_resource`` builds, and is
prepared here (:func:`tooldeck._resourceread.prepare_resource`) so the
registry's own declaration checks (TD121: a template variable without a
parameter, a ``file`` outside the project, a media type that is not one ...)
come back located at the field their :attr:`RegistrationError.path
<tooldeck.RegistrationError.path>` names, as a tool's do. The prepared
resource travels on in the :class:`~tooldeck.manifest._build.Bundle` to the
registry, which uses it as it is: one file's tools, prompts and resources are
swapped in together.

A resource takes the file's ``bundle`` name and its ``auth: {scopes}`` (added
to its own, the file's first) as a tool does; the file's ``defaults:`` are
tool options (timeouts, approval, result shaping) and do not apply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..._diagnostics import Severity, SourceLocation
from ..._errors import RegistrationError
from ..._inference import infer_params
from ..._model import ResourceSpec
from ..._params import ParamDescriptor
from ..._resourceread import prepare_resource

__all__ = ["build_resource", "key_field", "key_path"]

Path_ = tuple[str | int, ...]


class _Builder(Protocol):
    """What this module needs of :class:`tooldeck.manifest._build.builder._Builder`."""

    bundle: Any
    scopes: tuple[str, ...]

    def report(
        self,
        path: Path_,
        code: str,
        message: str,
        *,
        severity: Severity = ...,
        tool: str | None = None,
    ) -> None: ...

    def locate(self, path: Path_) -> SourceLocation: ...

    def handler(self, reference: str, path: Path_) -> Callable[..., Any] | None: ...

    def params(
        self, entries: list[Any], path: Path_, owner: str | None
    ) -> tuple[ParamDescriptor, ...] | None: ...

    def registration_error(self, exc: RegistrationError, path: Path_, name: str) -> None: ...


def key_field(entry: Mapping[str, Any]) -> str:
    """The field that holds an entry's registry key: ``uri``, or ``uri_template``."""
    return "uri" if "uri" in entry else "uri_template"


def build_resource(builder: _Builder, entry: Mapping[str, Any], path: Path_) -> None:
    """Check one ``resources:`` entry and add it, prepared, to the builder's bundle.

    Every problem is reported at its place and the entry skipped; a URI
    declared twice in the file is TD220 at the second declaration.
    """
    bundle = builder.bundle
    name = entry["name"]
    field = key_field(entry)
    key = entry[field]
    first = bundle.resource_paths.get(key)
    if first is not None:
        there = builder.locate(key_path(bundle, key))
        builder.report(
            (*path, field),
            "TD220",
            f"resource {key!r} is declared twice in this file (first at line {there.line})",
            tool=name,
        )
        return
    handler = None
    if "handler" in entry:
        handler = builder.handler(entry["handler"], path)
        if handler is None:
            return
    declared = entry.get("params")
    if declared is None and handler is not None and field == "uri_template":
        try:  # as add_resource does: a template's variables are the handler's parameters
            params: tuple[ParamDescriptor, ...] | None = tuple(infer_params(handler))
        except RegistrationError as exc:  # an annotation with no JSON form (TD116)
            builder.report((*path, "handler"), exc.code, exc.message, tool=name)
            return
    else:
        params = builder.params(declared or [], (*path, "params"), name)
    if params is None:
        return
    own = (entry.get("auth") or {}).get("scopes", ())
    try:
        spec = ResourceSpec(
            name=name,
            description=entry.get("description", ""),
            uri=entry.get("uri"),
            uri_template=entry.get("uri_template"),
            mime_type=entry.get("mime_type"),
            handler=handler,
            file=entry.get("file"),
            params=params,
            title=entry.get("title"),
            tags=tuple(entry.get("tags", ())),
            bundle=bundle.name,
            scopes=tuple(dict.fromkeys((*builder.scopes, *own))),  # the file's first, each once
            origin=builder.locate(path),
        )
        prepared = prepare_resource(spec)
    except RegistrationError as exc:
        builder.registration_error(exc, path, name)
        return
    bundle.resources.append(spec)
    bundle.prepared_resources[key] = prepared
    bundle.resource_paths[key] = path


def key_path(bundle: Any, key: str) -> Path_:
    """Where the bundle's resource ``key`` is written: its ``uri`` or ``uri_template`` value."""
    field = "uri_template" if bundle.prepared_resources[key].template is not None else "uri"
    return (*bundle.resource_paths[key], field)
