"""OpenAI-style function definitions -> manifest tools, each one checked by the engine itself.

Every definition is classified by shape: Chat Completions
(``{"type": "function", "function": {...}}``), Responses (``{"type":
"function", "name", ...}``), or bare ``{name, description, parameters}``
(the legacy ``functions`` list, MCP's ``inputSchema`` and Anthropic's
``input_schema`` too). Hosted entries (``web_search``, ``mcp``,
``file_search`` ...) are skipped with a TD503 warning.

Its properties become manifest entries (:mod:`._schema_map`); then the
entries are compiled exactly as the manifest loader will compile them
(``manifest._build.param_entry`` and :func:`tooldeck._prepare.prepare_tool`),
so a declaration the engine would refuse is found here: the offending
parameter falls back to a raw ``schema:`` fragment (a default that breaks its
own type stays an annotation, TD507), and only what no fragment can hold
(a pattern RE2 cannot run, an invalid JSON Schema) skips the definition with
the engine's own message (TD504). One bad definition never stops the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import RegistrationError
from .._model import ToolSpec
from .._prepare import prepare_tool
from ._fragments import DRAFTS, MAX_SCHEMA_DEPTH, Unsupported, schema_depth
from ._pointers import move_pointed
from ._problems import ImportProblem, Severity
from ._reading import RawEntry, read_entries
from ._result import ImportedTool, ImportResult
from ._schema_map import SchemaMapper
from ._values import unwritable

__all__ = ["import_openai"]

_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "parametersJsonSchema")
_FUNCTION_KEYS = frozenset({"name", "description", "strict", "annotations", *_SCHEMA_KEYS})
_ROOT_KEYS = frozenset({"type", "properties", "required", "additionalProperties"})
_DEFS_KEYS = ("$defs", "definitions")
_MAX_NAME = 1000


def import_openai(text: str, *, source: str = "<input>") -> ImportResult:
    """Every function definition in ``text`` as a manifest tool (handlers not yet assigned)."""
    entries, problems, readable = read_entries(text)
    result = ImportResult(
        source=source,
        kind="openai",
        problems=problems,
        definitions=len(entries),
        readable=readable,
    )
    seen: dict[str, int] = {}
    for entry in entries:
        tool = _Definition(entry, result.problems).convert()
        if tool is None:
            continue
        if tool.name in seen:
            result.problems.append(
                ImportProblem(
                    code="TD502",
                    message=f"the name is already used by definition {seen[tool.name]}; "
                    "this one is skipped (rename one of them)",
                    index=tool.index,
                    name=tool.name,
                    line=tool.line,
                )
            )
            continue
        seen[tool.name] = tool.index
        result.tools.append(tool)
    if readable and not entries:
        result.problems.append(ImportProblem(code="TD500", message="no tool definitions found"))
        result.readable = False
    _report_opened(result)
    return result


_SHOWN = 5
"""How many tool names the TD516 summary lists."""


def _report_opened(result: ImportResult) -> None:
    """One TD516 per input: how many tools were open in the source and are closed now.

    JSON Schema leaves an object open unless it says ``additionalProperties:
    false``, and most catalogues never say it; tooldeck closes a tool's
    arguments, so a call with an undeclared key that the source accepted is
    refused. Per file rather than per definition, since it concerns most of them.
    """
    opened = [tool.name for tool in result.tools if tool.opened]
    if not opened:
        return
    names = ", ".join(opened[:_SHOWN]) + (
        f" and {len(opened) - _SHOWN} more" if len(opened) > _SHOWN else ""
    )
    result.problems.append(
        ImportProblem(
            code="TD516",
            message=f"{len(opened)} of {len(result.tools)} tools accept undeclared arguments in "
            "the source (no additionalProperties: false at the root of their parameters) and "
            f"are imported closed, so tooldeck refuses a call with one ({names}); add "
            "additional_properties: true to a tool that should stay open",
            severity=Severity.WARNING,
        )
    )


def _accept_any(**arguments: Any) -> None:
    """The handler the checks compile against: it accepts every declared parameter."""


class _Definition:
    """One entry of the input on its way to an :class:`ImportedTool`."""

    def __init__(self, entry: RawEntry, problems: list[ImportProblem]) -> None:
        self.entry = entry
        self.problems = problems
        self.name: str | None = None
        self.opened = False
        """The root of the parameters accepts undeclared keys (absent or true)."""
        self._noted: set[tuple[str, str, str]] = set()

    def report(
        self, code: str, message: str, severity: Severity = Severity.ERROR, path: str = ""
    ) -> None:
        if (code, message, path) in self._noted:
            return  # the mapper may look at a property twice (descriptor, then fragment)
        self._noted.add((code, message, path))
        self.problems.append(
            ImportProblem(
                code=code,
                message=message,
                severity=severity,
                index=self.entry.index,
                name=self.name,
                line=self.entry.line,
                path=path,
            )
        )

    def note(self, code: str, severity: Severity, message: str, path: str) -> None:
        self.report(code, message, severity, path)

    def convert(self) -> ImportedTool | None:
        value = self.entry.value
        if not isinstance(value, dict):
            self.report("TD501", f"a definition must be a JSON object, found {_kind(value)}")
            return None
        inner = value.get("function")
        label = (inner if isinstance(inner, dict) else value).get("name")
        self.name = label if isinstance(label, str) else None
        function = self._function(value)
        if function is None:
            return None
        name, description = function.get("name"), function.get("description")
        if not isinstance(name, str) or not name.strip() or len(name) > _MAX_NAME:
            self.report("TD501", "the definition has no usable name (a non-empty string)")
            return None
        self.name = name
        if description is not None and not isinstance(description, str):
            self.report("TD501", "description must be a string", path="description")
            return None
        key = next((k for k in _SCHEMA_KEYS if k in function), "parameters")
        schema = function.get(key)
        params = self._params({} if schema is None else schema, key)
        if params is None:
            return None
        options = self._options(function)
        tool = ImportedTool(
            index=self.entry.index,
            name=name,
            description=description or "",
            params=params,
            options=options,
            source=schema if isinstance(schema, dict) else None,
            line=self.entry.line,
        )
        problem = unwritable({"name": name, "description": tool.description, "params": params})
        if problem is not None:
            self.report("TD504", problem)
            return None
        tool.opened = self.opened and schema is not None  # no parameters: takes none
        if not tool.description.strip():
            what = "no description" if description is None else "an empty description"
            self.report(
                "TD515",
                f"the definition has {what}, so the model sees only the tool's name; write one "
                "in the manifest (tooldeck lint reports TD401 until then)",
                Severity.WARNING,
                "description" if description is not None else "",
            )
        return tool

    def _function(self, value: dict[str, Any]) -> dict[str, Any] | None:
        """The part holding name/description/parameters; extras reported, hosted skipped."""
        kind = value.get("type")
        if kind == "function" and isinstance(value.get("function"), dict):
            self._extras(value, {"type", "function"}, "")
            function: dict[str, Any] = value["function"]
            self._extras(function, _FUNCTION_KEYS, "function.")
            return function
        if kind in (None, "function") or (kind == "custom" and "input_schema" in value):
            self._extras(value, _FUNCTION_KEYS | {"type"}, "")
            return value
        label = value.get("name") or value.get("server_label")
        self.name = label if isinstance(label, str) else self.name
        self.report(
            "TD503",
            f"a {kind!r} tool is run by the provider, not a function; skipped",
            Severity.WARNING,
        )
        return None

    def _extras(self, value: Mapping[str, Any], known: frozenset[str] | set[str], at: str) -> None:
        for key in value:
            if key not in known:
                what = "a response schema" if key == "response" else repr(key)
                self.report(
                    "TD506",
                    f"{what} has no place in a manifest; not carried over",
                    Severity.WARNING,
                    at + key,
                )

    def _options(self, function: Mapping[str, Any]) -> dict[str, Any]:
        options: dict[str, Any] = {}
        strict = function.get("strict")
        if strict is True or strict is False:  # an explicit false stays off (unset is auto)
            options["strict"] = strict
        elif strict is not None:
            self.report("TD506", "strict must be true or false; not carried over", Severity.WARNING)
        hints = function.get("annotations")
        if isinstance(hints, dict):
            if hints.get("destructiveHint") is True and hints.get("readOnlyHint") is not True:
                options["side_effects"] = True
            if hints.get("idempotentHint") is True:
                options["idempotent"] = True
            rest = sorted(k for k in hints if k not in ("destructiveHint", "idempotentHint"))
            if rest:
                self.report(
                    "TD506",
                    f"annotations {', '.join(rest)} have no place in a manifest; not carried "
                    "over (destructiveHint becomes side_effects, idempotentHint idempotent)",
                    Severity.WARNING,
                    "annotations",
                )
        elif hints is not None:
            self.report("TD506", "annotations must be an object; ignored", Severity.WARNING)
        return options

    def _params(self, schema: Any, key: str) -> list[dict[str, Any]] | None:
        if not isinstance(schema, dict):
            self.report("TD501", f"{key} must be a JSON Schema object", path=key)
            return None
        if schema_depth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH:
            self.report("TD504", f"{key} nest deeper than {MAX_SCHEMA_DEPTH} levels", path=key)
            return None
        try:
            schema = move_pointed(schema, key, self.note)
        except Unsupported as exc:
            self.report("TD504", exc.message, path=f"{key}.{exc.path}")
            return None
        defs = self._defs(schema, key)
        mapper = SchemaMapper(defs or {}, self.note)
        kind = mapper.types(schema.get("type", "object"), key)
        if kind not in ("object", "any") or defs is None:
            if defs is not None:
                self.report("TD501", f"{key} must be an object schema", path=f"{key}.type")
            return None
        properties = schema.get("properties") or {}
        required = schema.get("required") or []
        if not isinstance(properties, dict):
            self.report("TD501", "properties must be an object", path=f"{key}.properties")
            return None
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            self.report("TD506", "required is not a list of names; ignored", Severity.WARNING, key)
            required = []
        self._root(schema, properties, required, key)
        params = []
        try:
            for name, sub in properties.items():
                where = f"{key}.properties.{name}"
                if not name:
                    raise Unsupported("a parameter needs a non-empty name", where)
                if name == "project_dir":
                    self.report("TD506", _INJECTED, Severity.WARNING, where)
                params.append(mapper.entry(name, sub, name in required, where))
            return self._checked(params, properties, required, mapper, key)
        except Unsupported as exc:
            self.report("TD504", exc.message, path=exc.path)
            return None

    def _defs(self, schema: Mapping[str, Any], key: str) -> dict[str, Any] | None:
        defs: dict[str, Any] = {}
        for name in _DEFS_KEYS:
            found = schema.get(name)
            if found is None:
                continue
            if not isinstance(found, dict):
                self.report("TD504", f"{name} must map names to schemas", path=f"{key}.{name}")
                return None
            for def_name, definition in found.items():
                if def_name in defs and defs[def_name] != definition:
                    message = f"{def_name!r} is defined differently in $defs and definitions"
                    self.report("TD504", message, path=f"{key}.{name}")
                    return None
                defs[def_name] = definition
        return defs

    def _root(
        self,
        schema: Mapping[str, Any],
        properties: Mapping[str, Any],
        required: list[str],
        key: str,
    ) -> None:
        """Report what a tool's fixed parameter object cannot say."""
        for name in schema:
            if name in _ROOT_KEYS or name in _DEFS_KEYS:
                continue
            if name == "$schema" and schema[name] in DRAFTS:
                continue  # its idioms are rewritten to 2020-12 (TD508): dropping it is a no-op
            self.report(
                "TD506",
                f"{name!r} at the root of {key} has no place in a manifest; not carried over",
                Severity.WARNING,
                f"{key}.{name}",
            )
        extra = schema.get("additionalProperties", True)
        if extra is True:
            self.opened = True  # counted for the file's TD516
        elif extra is not False:
            self.report(
                "TD506",
                "additionalProperties at the root is a schema for undeclared arguments, which a "
                "manifest has no place for; imported closed: tooldeck accepts only the declared "
                "parameters",
                Severity.WARNING,
                f"{key}.additionalProperties",
            )
        unknown = [name for name in required if name not in properties]
        if unknown:
            self.report(
                "TD506",
                f"required names {', '.join(map(repr, unknown))} are not properties; ignored",
                Severity.WARNING,
                f"{key}.required",
            )

    def _checked(
        self,
        params: list[dict[str, Any]],
        properties: Mapping[str, Any],
        required: list[str],
        mapper: SchemaMapper,
        key: str,
    ) -> list[dict[str, Any]] | None:
        """``params`` as the engine accepts them; a refused parameter falls back to a fragment."""
        if _refusal(self.name or "tool", params) is None:
            return params
        for index, entry in enumerate(params):
            problem = _refusal(self.name or "tool", [entry])
            if problem is None:
                continue
            name = entry["name"]
            where = f"{key}.properties.{name}"
            fallback = mapper.fragment_entry(
                name, properties[name], name in required, where, keep_default=True
            )
            if _refusal(self.name or "tool", [fallback]) is not None:
                self.report("TD504", problem.message, path=where)
                return None
            params[index] = fallback
            if problem.code == "TD108":
                message = (
                    f"{problem.message}; the default is kept as an annotation in schema: and "
                    "is not filled in at call time"
                )
                self.report("TD507", message, Severity.WARNING, where)
            else:
                message = (
                    f"kept as a raw schema: the descriptor form was refused ({problem.message})"
                )
                self.report("TD508", message, Severity.INFO, where)
        problem = _refusal(self.name or "tool", params)
        if problem is not None:
            self.report("TD504", problem.message, path=key)
            return None
        return params


_INJECTED = (
    "tooldeck fills a parameter named project_dir with the project directory and never "
    "shows it to the model; rename it in the handler if the model should send it"
)


def _refusal(name: str, params: list[dict[str, Any]]) -> RegistrationError | None:
    """What the manifest loader would say about these entries, or None when it takes them."""
    from ..manifest._build import param_entry  # the loader's own entry -> descriptor

    try:
        descriptors = tuple(param_entry(p) for p in params)
        prepare_tool(ToolSpec(name=name, description="", handler=_accept_any, params=descriptors))
    except RegistrationError as exc:
        return exc
    return None


def _kind(value: Any) -> str:
    names = {str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return names.get(type(value), "null" if value is None else f"a {type(value).__name__}")
