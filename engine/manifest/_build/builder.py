"""Tools and prompts of one manifest file -> prepared specs, every mistake located.

:class:`_Builder` holds what one file's entries share: the document (to
locate a path), the handlers already resolved, the diagnostics reported
once. Each tool and prompt is prepared here (:func:`tooldeck._prepare.prepare_tool`),
so a declaration mistake comes back with the registry's own code, at the key
that holds it. ``use:`` entries (:mod:`.use`) and servers and web search
(:mod:`.servers`) take the builder to report through.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..._diagnostics import Diagnostic, Severity, SourceLocation
from ..._errors import RegistrationError
from ..._inference import describe_handler, infer_params, snake_case
from ..._model import PromptSpec, ResultSpec, RetrySpec, ToolSpec
from ..._params import ParamDescriptor
from ..._prepare import prepare_tool
from ..._prompts import prepare_prompt
from ..._yaml import YamlDocument
from .._resolve import (
    STATIC_NOTES,
    HandlerResolver,
    ResolveError,
    parse_duration,
)
from .bundle import Bundle, Path_
from .params import find_injected, param_descriptor, param_path
from .use import build_use

__all__ = ["_Builder"]

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
_ERROR_FIELD = {"TD101": "type", "TD106": "default", "TD108": "default", "TD107": "pattern"}


class _Builder:
    """One file's entries being built: problems reported once, located; handlers resolved once."""

    def __init__(
        self, doc: YamlDocument, allowed: tuple[str, ...], resolver: HandlerResolver
    ) -> None:
        self.doc = doc
        self.allowed = allowed
        self.resolver = resolver
        self.bundle: Bundle
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
                params.append(param_descriptor(entry))
            except RegistrationError as exc:
                where = (*path, index, _ERROR_FIELD.get(exc.code, "name"))
                self.report(where, exc.code, exc.message, tool=owner)
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

    def registration_error(
        self, exc: RegistrationError, path: Path_, entries: list[Any] | None, name: str
    ) -> None:
        where: Path_ = path
        declared = exc.param is not None and any(
            isinstance(e, Mapping) and e.get("name") == exc.param for e in entries or ()
        )
        if exc.code == "TD111" or (exc.code == "TD110" and not declared):
            where = (*path, "handler")
        elif exc.code == "TD109":
            where = (*path, "result", "select")
        elif exc.code == "TD105" and exc.param and entries is not None:
            nested = find_injected(entries, exc.param)
            where = (*path, "params", *nested) if nested else path
        elif exc.param and entries is not None:
            matches = [
                index
                for index, entry in enumerate(entries)
                if isinstance(entry, Mapping) and entry.get("name") == exc.param
            ]
            if matches:  # a duplicate (TD103) is reported where it is repeated
                index = matches[-1] if exc.code == "TD103" else matches[0]
                below = param_path(entries[index], exc.field_path) or ()  # () when not as written
                where = (*path, "params", index, *below, _ERROR_FIELD.get(exc.code, "name"))
        self.report(where, exc.code, exc.message, tool=name)
        for other in exc.also:  # every problem the same pass found (all bad defaults)
            self.registration_error(other, path, entries, name)

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
            self.registration_error(exc, path, declared, name)
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
        return options

    def prompt(self, entry: Mapping[str, Any], path: Path_) -> None:
        name = entry["name"]
        if self.duplicate("prompt", name, path, self.bundle.prompt_paths):
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
            field_name = "template" if "template" in entry else "handler"
            self.registration_error(
                exc, (*path, field_name) if exc.code == "TD113" else path, declared, name
            )
            return
        self.bundle.prompts.append(spec)
        self.bundle.prepared_prompts[name] = prepared_prompt
        self.bundle.prompt_paths[name] = path


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
        builder.report(path, exc.code, exc.message, tool=tool)
        return None
