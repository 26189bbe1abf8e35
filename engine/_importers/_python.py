"""A Python module's public functions -> manifest tools, inferred as ``add_tool`` infers them.

``tooldeck import python myapp.tools`` writes down what
``registry.add_tool(None, None, myapp.tools.some_function)`` would register:
the name in snake_case, the docstring's prose as the description, and the
parameters from :func:`tooldeck._inference.infer_params`, so the manifest
says explicitly what inference decides today and can be edited from there.

Only functions defined in the module itself are tools (a handler reference
must point where the function lives); ``__all__``, when the module has one,
chooses which, in its order. Each tool is compiled by the engine
(:func:`tooldeck._prepare.prepare_tool`) against the real function before it
is written, so a tool the loader would refuse is reported here instead
(TD511) and the others are still written.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from typing import Any

from .._errors import RegistrationError
from .._inference import describe_handler, infer_params, snake_case
from .._model import ToolSpec
from .._params import ParamDescriptor
from .._prepare import prepare_tool
from ._handlers import valid_module
from ._problems import ImportProblem, Severity
from ._result import ImportedTool, ImportResult
from ._schema_map import order_entry
from ._values import unwritable

__all__ = ["descriptor_entry", "import_python"]

_FIELDS = (
    "format",
    "pattern",
    "minimum",
    "maximum",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "inject",
)


def import_python(module_name: str) -> ImportResult:
    """One tool per public function defined in ``module_name`` (imported here)."""
    result = ImportResult(source=module_name, kind="python")
    if not valid_module(module_name):
        result.readable = False
        message = f"{module_name!r} is not a module name handlers can live in (dotted, no _private)"
        result.problems.append(ImportProblem(code="TD510", message=message))
        return result
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # any failure of the module's own code
        result.readable = False
        message = f"cannot import {module_name}: {type(exc).__name__}: {exc}"
        result.problems.append(ImportProblem(code="TD510", message=message))
        return result
    candidates = _candidates(module, result)
    result.definitions = len(candidates)
    seen: dict[str, int] = {}
    for index, (attribute, function) in enumerate(candidates, start=1):
        tool = _tool(index, module_name, attribute, function, result)
        if tool is None:
            continue
        if tool.name in seen:
            message = f"the tool name is already used by function {seen[tool.name]}; skipped"
            result.problems.append(
                ImportProblem(code="TD502", message=message, index=index, name=tool.name)
            )
            continue
        seen[tool.name] = index
        result.tools.append(tool)
    if not candidates:
        message = f"{module_name} defines no public functions"
        result.problems.append(ImportProblem(code="TD510", message=message))
        result.readable = False
    return result


def _candidates(module: Any, result: ImportResult) -> list[tuple[str, Any]]:
    namespace = vars(module)
    listed = namespace.get("__all__")
    explicit = isinstance(listed, list | tuple) and all(isinstance(n, str) for n in listed)
    names = list(listed) if explicit else list(namespace)
    found = []
    for name in names:
        value = namespace.get(name)
        if not inspect.isfunction(value):
            continue
        reason = None
        if name.startswith("_"):
            reason = "a private name cannot be a handler"
        elif value.__module__ != module.__name__:
            reason = f"it is imported from {value.__module__}; import that module instead"
        if reason is None:
            found.append((name, value))
        elif explicit:  # listed on purpose, so say why it is left out
            message = f"{name} is in __all__ but is not imported: {reason}"
            result.problems.append(
                ImportProblem(code="TD511", message=message, severity=Severity.WARNING, name=name)
            )
    return found


def _tool(
    index: int, module: str, attribute: str, function: Any, result: ImportResult
) -> ImportedTool | None:
    own = getattr(function, "__name__", "")
    name = snake_case(own if own.isidentifier() else attribute)  # a lambda: its attribute

    def skip(message: str) -> None:
        result.problems.append(ImportProblem(code="TD511", message=message, index=index, name=name))

    try:
        params = infer_params(function)
        description = describe_handler(function)
        prepare_tool(ToolSpec(name=name, description=description, handler=function, params=params))
    except RegistrationError as exc:
        skip(f"{module}:{attribute} cannot be registered: {exc.message}")
        return None
    entries = [descriptor_entry(param) for param in params]
    problem = unwritable({"description": description, "params": entries})
    if problem is not None:
        skip(problem)
        return None
    if not description.strip():
        result.problems.append(
            ImportProblem(
                code="TD515",
                message=f"{module}:{attribute} has no docstring, so the tool has no "
                "description and the model sees only its name; write one (tooldeck lint "
                "reports TD401 until then)",
                severity=Severity.WARNING,
                index=index,
                name=name,
            )
        )
    return ImportedTool(
        index=index,
        name=name,
        description=description,
        params=entries,
        handler=f"{module}:{attribute}",
    )


def descriptor_entry(param: ParamDescriptor, *, element: bool = False) -> dict[str, Any]:
    """The manifest entry that builds ``param`` again (``element``: an ``items`` mapping)."""
    entry: dict[str, Any] = {} if element else {"name": param.name}
    if not element and not param.required and not param.has_default:
        entry["required"] = False
    if param.description:
        entry["description"] = param.description
    if param.has_default and not element:
        entry["default"] = _plain(param.default)
    if param.schema is not None:
        entry["schema"] = _plain(param.schema)
        return order_entry(entry)
    entry["type"] = list(param.type) if isinstance(param.type, tuple) else param.type
    if param.enum is not None:
        entry["enum"] = _plain(param.enum)
    for key in _FIELDS:
        value = getattr(param, key)
        if value is not None:
            entry[key] = value
    if param.items is not None:
        items = descriptor_entry(param.items, element=True)
        entry["items"] = items["type"] if set(items) == {"type"} else items
    if param.properties is not None:
        entry["properties"] = [descriptor_entry(p) for p in param.properties]
    return order_entry(entry)


def _plain(value: Any) -> Any:
    """Mappings and tuples as the dicts and lists YAML writes."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value
