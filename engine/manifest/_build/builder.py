"""A validated manifest document -> ToolSpec / PromptSpec / ResourceSpec / McpServerSpec / ...

This is the only place YAML meets the data model, and it builds nothing the
programmatic API could not: every entry becomes the same ParamDescriptor and
ToolSpec a Python caller would write, and each tool and prompt is prepared
here (:func:`tooldeck._prepare.prepare_tool`) so its declaration mistakes (a
default that violates its type, a parameter the handler cannot accept) come
back as located diagnostics with the registry's own codes, each at the place
its :attr:`RegistrationError.path <tooldeck.RegistrationError.path>` names
(the spec's fields are written under the same names and in the same order
here, so a spec path is a document path); the prepared
objects travel on in the :class:`Bundle` to the registry, which uses them as
they are. One bad entry never hides the good ones: it is reported and skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..._binding import PreparedTool
from ..._diagnostics import Diagnostic, Severity, SourceLocation
from ..._errors import RegistrationError
from ..._inference import describe_handler, infer_params, snake_case
from ..._model import (
    McpServerSpec,
    McpPromptUse,
    McpToolUse,
    PromptSpec,
    ResourceSpec,
    ResultSpec,
    RetrySpec,
    ToolSpec,
    WebSearchSpec,
)
from ..._params import ParamDescriptor
from ..._prepare import prepare_tool
from ..._prompts import PreparedPrompt, prepare_prompt
from ..._resourceread import PreparedResource
from ..._yaml import YamlDocument
from .params import param_entry
from .resources import build_resource
from .use import build_prompt_use, build_use
from .._resolve import (
    STATIC_NOTES,
    HandlerResolver,
    ResolveError,
    parse_duration,
    resolve_handler,
)

__all__ = ["Bundle", "build_bundle"]

Path_ = tuple[str | int, ...]

_OPTION_KEYS = (
    "tags",
    "side_effects",
    "effect",
    "idempotent",
    "return_direct",
    "timeout",
    "strict",
    "result",
    "lenient",
    "inline",
    "retry",
    "substitute_result",
)
_LOCATION_KEYS = ("city", "country", "region", "timezone")


@dataclass
class Bundle:
    """What one manifest file declares, ready to register as one group."""

    file: str
    name: str
    description: str = ""
    active: bool = True
    inactive_reason: str = ""
    tools: list[ToolSpec] = field(default_factory=list)
    tool_paths: dict[str, Path_] = field(default_factory=dict)
    prompts: list[PromptSpec] = field(default_factory=list)
    prompt_paths: dict[str, Path_] = field(default_factory=dict)
    resources: list[ResourceSpec] = field(default_factory=list)
    resource_paths: dict[str, Path_] = field(default_factory=dict)
    """Each good resource's entry, by its key (the URI, or the template)."""
    servers: list[McpServerSpec] = field(default_factory=list)
    server_paths: dict[str, Path_] = field(default_factory=dict)
    uses: list[McpToolUse] = field(default_factory=list)
    """Tools implemented by attached MCP servers' tools (``use: SERVER/TOOL``)."""
    prompt_uses: list[McpPromptUse] = field(default_factory=list)
    """Prompts implemented by attached MCP servers' prompts (``use: SERVER/PROMPT``)."""
    web_search: WebSearchSpec | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    prepared_tools: dict[str, PreparedTool] = field(default_factory=dict, repr=False)
    """Each good tool compiled once, by name: what the registry stores."""
    prepared_prompts: dict[str, PreparedPrompt] = field(default_factory=dict, repr=False)
    prepared_resources: dict[str, PreparedResource] = field(default_factory=dict, repr=False)
    handlers: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    """Handler references resolved while building, also for tools that then failed."""


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
    builder.scopes = tuple((data.get("auth") or {}).get("scopes", ()))
    _activation(bundle, builder, data, search_root, app_class)
    defaults = dict(data.get("defaults", {}))
    for index, entry in enumerate(data.get("tools", [])):
        builder.tool(entry, ("tools", index), defaults)
    for index, entry in enumerate(data.get("prompts", [])):
        builder.prompt(entry, ("prompts", index))
    for index, entry in enumerate(data.get("resources", [])):
        build_resource(builder, entry, ("resources", index))
    for index, entry in enumerate(data.get("mcp_servers", [])):
        builder.server(entry, ("mcp_servers", index))
    if "web_search" in data:
        builder.web_search(data["web_search"])
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


class _Builder:
    def __init__(
        self, doc: YamlDocument, allowed: tuple[str, ...], resolver: HandlerResolver
    ) -> None:
        self.doc = doc
        self.allowed = allowed
        self.resolver = resolver
        self.bundle: Bundle
        self.scopes: tuple[str, ...] = ()
        """The file's ``auth: {scopes}``: added to every tool's and resource's own."""
        self._reported: set[tuple[str, SourceLocation]] = set()
        self._handlers: dict[str, Callable[..., Any]] = {}
        """Handler references resolved in this file: tools often share a handler."""

    def report(
        self,
        path: Path_,
        code: str,
        message: str,
        *,
        severity: Severity = Severity.ERROR,
        tool: str | None = None,
    ) -> None:
        location = self.doc.locate(path)
        line = message.strip().splitlines()[0] if message.strip() else message
        if (code, location) in self._reported:
            return  # a `defaults:` problem is reported once, where it is written
        self._reported.add((code, location))
        self.bundle.diagnostics.append(
            Diagnostic(
                code=code, message=line, severity=severity, location=location, tool_name=tool
            )
        )

    def locate(self, path: Path_) -> SourceLocation:
        return self.doc.locate(path)

    def place(self, path: Path_, below: tuple[str | int, ...]) -> Path_:
        """Where to report a :class:`RegistrationError` whose ``path`` is ``below`` ``path``.

        A path ending at a parameter means the parameter as a whole, shown at
        its name; a field not written in the file (params inferred from the
        handler, an option from ``defaults:``) at the nearest place that is.
        """
        at = (*path, *below, "name") if below and isinstance(below[-1], int) else (*path, *below)
        return self.doc.existing(at)

    def handler(self, reference: str, path: Path_) -> Callable[..., Any] | None:
        found = self._handlers.get(reference)
        if found is None:
            try:
                found = self._handlers[reference] = self.resolver(reference, self.allowed)
            except ResolveError as exc:  # not remembered: each entry naming it is reported
                self.report((*path, "handler"), exc.code, exc.message)
                return None
            self.bundle.handlers[reference] = found
        notes = getattr(found, STATIC_NOTES, None)
        if notes is not None:  # resolved from source: say what only an import could tell
            where = (*path, "handler")
            if notes.needs_import:
                self.report(
                    where,
                    "TD316",
                    f"{reference} was checked from source, but only importing it could "
                    f"resolve it faithfully: {'; '.join(notes.needs_import)}",
                    severity=Severity.WARNING,
                )
            if notes.unjudged:
                self.report(
                    where,
                    "TD317",
                    f"static lint could not judge everything about {reference}: "
                    f"{'; '.join(notes.unjudged)}",
                    severity=Severity.INFO,
                )
        return found

    def params(
        self, entries: list[Any], path: Path_, owner: str | None
    ) -> tuple[ParamDescriptor, ...] | None:
        params = []
        ok = True
        for index, entry in enumerate(entries):
            try:
                params.append(param_entry(entry))
            except RegistrationError as exc:
                self.report(self.place(path, (index, *exc.path)), exc.code, exc.message, tool=owner)
                ok = False
        return tuple(params) if ok else None

    def duplicate(self, kind: str, name: str, path: Path_, seen: Mapping[str, Path_]) -> bool:
        """Report a name declared twice in this file (at the second place); True if so."""
        first = seen.get(name)
        if first is None:
            return False
        there = self.locate((*first, "name"))
        self.report(
            (*path, "name"),
            "TD220",
            f"{kind} {name!r} is declared twice in this file (first at line {there.line})",
            tool=name,
        )
        return True

    def registration_error(self, exc: RegistrationError, path: Path_, name: str) -> None:
        """Report ``exc`` (a tool's or prompt's spec at ``path``) where its path points."""
        self.report(self.place(path, exc.path), exc.code, exc.message, tool=name)
        for other in exc.also:  # every problem the same pass found (all bad defaults)
            self.registration_error(other, path, name)

    def tool(self, entry: Mapping[str, Any], path: Path_, defaults: Mapping[str, Any]) -> None:
        if "use" in entry:
            build_use(self, entry, path, defaults)
            return
        handler = self.handler(entry["handler"], path)
        if handler is None:
            return
        name = entry.get("name") or snake_case(getattr(handler, "__name__", "tool"))
        declared = entry.get("params")
        if declared is None:
            try:
                params: tuple[ParamDescriptor, ...] | None = infer_params(handler)
            except RegistrationError as exc:  # an annotation with no JSON form (TD116)
                self.report((*path, "handler"), exc.code, exc.message, tool=name)
                return
        else:
            params = self.params(declared, (*path, "params"), name)
        if params is None:
            return
        if self.duplicate("tool", name, path, self.bundle.tool_paths):
            return
        try:
            options = self.options(entry, path, defaults, name)
            if options is None:
                return
            description = entry.get("description")
            spec = ToolSpec(
                name=name,
                description=description if description is not None else describe_handler(handler),
                handler=handler,
                params=params,
                additional_properties=entry.get("additional_properties", False),
                bundle=self.bundle.name,
                origin=self.locate(path),
                **options,
            )
            prepared = prepare_tool(spec)
        except RegistrationError as exc:
            self.registration_error(exc, path, name)
            return
        self.bundle.tools.append(spec)
        self.bundle.prepared_tools[name] = prepared
        self.bundle.tool_paths[name] = path

    def options(
        self, entry: Mapping[str, Any], path: Path_, defaults: Mapping[str, Any], name: str
    ) -> dict[str, Any] | None:
        """The entry's ToolSpec options over the file's ``defaults``; None once reported.

        Raises RegistrationError for a result spec the model rejects.
        """
        options = {**defaults, **{k: entry[k] for k in _OPTION_KEYS if k in entry}}
        if isinstance(defaults.get("result"), Mapping) and isinstance(entry.get("result"), Mapping):
            options["result"] = {**defaults["result"], **entry["result"]}  # merged, not replaced

        def option_path(key: str) -> Path_:
            return (*path, key) if key in entry else ("defaults", key)

        if "timeout" in options:
            try:
                options["timeout"] = parse_duration(options["timeout"])
            except ResolveError as exc:
                self.report(option_path("timeout"), exc.code, exc.message, tool=name)
                return None
        if "retry" in options:
            retry = _retry(options["retry"], option_path("retry"), self, name)
            if retry is None:
                return None
            options["retry"] = retry
        if "result" in options:
            options["result"] = ResultSpec(**options["result"])
        if "tags" in options:
            options["tags"] = tuple(options["tags"])
        if options.get("strict") == "auto":
            options["strict"] = None
        own = (entry.get("auth") or {}).get("scopes", ())
        if self.scopes or own:  # the file's first, then the tool's, each once
            options["scopes"] = tuple(dict.fromkeys((*self.scopes, *own)))
        return options

    def prompt(self, entry: Mapping[str, Any], path: Path_) -> None:
        name = entry["name"]
        if self.duplicate("prompt", name, path, self.bundle.prompt_paths):
            return
        if "use" in entry:
            build_prompt_use(self, entry, path)
            return
        handler = None
        if "handler" in entry:
            handler = self.handler(entry["handler"], path)
            if handler is None:
                return
        declared = entry.get("params")
        if declared is None and handler is not None:
            try:
                params: tuple[ParamDescriptor, ...] | None = infer_params(handler)
            except RegistrationError as exc:  # an annotation with no JSON form (TD116)
                self.report((*path, "handler"), exc.code, exc.message, tool=name)
                return
        else:
            params = self.params(declared or [], (*path, "params"), name)
        if params is None:
            return
        try:
            spec = PromptSpec(
                name=name,
                description=entry.get("description", ""),
                role=entry.get("role", "assistant"),
                params=params,
                template=entry.get("template"),
                handler=handler,
                tags=tuple(entry.get("tags", ())),
                bundle=self.bundle.name,
                origin=self.locate(path),
            )
            prepared_prompt = prepare_prompt(spec)
        except RegistrationError as exc:
            self.registration_error(exc, path, name)
            return
        self.bundle.prompts.append(spec)
        self.bundle.prepared_prompts[name] = prepared_prompt
        self.bundle.prompt_paths[name] = path

    def server(self, entry: Mapping[str, Any], path: Path_) -> None:
        if self.duplicate("MCP server", entry["name"], path, self.bundle.server_paths):
            return
        options = dict(entry)
        try:
            for key in ("cache_ttl", "timeout"):
                if key in options:
                    try:
                        options[key] = parse_duration(options[key])
                    except ResolveError as exc:
                        self.report((*path, key), exc.code, exc.message, tool=entry.get("name"))
                        return
            if "command" in options:
                command = options["command"]
                argv = (command,) if isinstance(command, str) else tuple(command)
                options["command"] = argv + tuple(options.pop("args", ()))
            elif "args" in options:
                self.report(
                    (*path, "args"), "TD114", "args applies to a command", tool=entry.get("name")
                )
                return
            for key in ("allowed_tools", "denied_tools"):
                if key in options:
                    options[key] = tuple(options[key])
            spec = McpServerSpec(origin=self.locate(path), bundle=self.bundle.name, **options)
        except RegistrationError as exc:
            self.report(self.place(path, exc.path), exc.code, exc.message, tool=entry.get("name"))
            return
        self.bundle.servers.append(spec)
        self.bundle.server_paths[spec.name] = path

    def web_search(self, entry: Mapping[str, Any]) -> None:
        """``web_search:`` -> the bundle's WebSearchSpec; a bad combination is TD118 at its key."""
        path: Path_ = ("web_search",)
        flat = {k: entry[k] for k in _LOCATION_KEYS if k in entry}
        location = entry.get("user_location")
        if location is not None and flat:
            self.report(
                (*path, "user_location"),
                "TD118",
                "give the location either as user_location or as "
                f"{', '.join(flat)} directly under web_search, not both",
            )
            return
        filters = entry.get("filters") or {}
        try:
            self.bundle.web_search = WebSearchSpec(
                type=entry.get("type", "default"),
                search_context_size=entry.get("search_context_size"),
                allowed_domains=(
                    tuple(filters["allowed_domains"]) if "allowed_domains" in filters else None
                ),
                bundle=self.bundle.name,
                origin=self.locate(path),
                **(location if location is not None else flat),
            )
        except RegistrationError as exc:  # the spec's fields are flat, the file nests some
            field_name = exc.path[0] if exc.path else None
            if field_name == "allowed_domains":
                below: Path_ = ("filters",)  # (the domains' own mistakes stop at the meta-schema)
            elif field_name in _LOCATION_KEYS and location is not None:
                below = ("user_location", field_name)
            else:
                below = exc.path
            self.report(self.place(path, below), exc.code, exc.message)


def _retry(entry: Mapping[str, Any], path: Path_, builder: _Builder, tool: str) -> RetrySpec | None:
    """A YAML retry block -> RetrySpec; problems are reported at the offending key."""
    values = dict(entry)
    for key in ("backoff", "max_backoff"):
        if key in values:
            try:
                values[key] = parse_duration(values[key], allow_zero=True)
            except ResolveError as exc:
                builder.report((*path, key), exc.code, exc.message, tool=tool)
                return None
    if "on" in values:
        values["on"] = tuple(values["on"])
    try:
        return RetrySpec(**values)
    except RegistrationError as exc:
        builder.report(builder.place(path, exc.path), exc.code, exc.message, tool=tool)
        return None
