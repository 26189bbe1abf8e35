"""A typed Python module with one stub per imported tool: the handlers to fill in.

Each stub takes the tool's parameters as keyword-only arguments (keyword-only
so required and optional ones may come in the catalogue's order), annotated
from the schema types (``str``, ``int``, ``float``, ``bool``,
``list[...]``, ``dict[str, Any]``, unions, ``... | None`` for a nullable
parameter or a ``null`` default), with the catalogue's defaults for plain
values and ``None`` for optional ones. Parameters whose names are not Python
identifiers (``from``, ``user-id``) arrive in ``**arguments``. The docstring
is the description plus an ``Args`` section; the body raises
``NotImplementedError``.

Everything taken from the input is escaped: names are identifiers by
construction (:func:`~tooldeck._importers._handlers.python_identifier`),
defaults are ``repr`` of JSON scalars, and text goes into docstrings with
quotes, backslashes and control characters escaped, so no catalogue can put
code into the generated module.
"""

from __future__ import annotations

import json
import keyword
import re
import textwrap
from collections.abc import Mapping
from typing import Any

from ._result import ImportedTool, ImportResult

__all__ = ["render_stubs"]

_PYTHON = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "object": "dict[str, Any]",
    "null": "None",
}
_LINE = 88
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def render_stubs(result: ImportResult) -> str:
    """The source of a module defining every tool's handler function, as assigned."""
    functions = [(_function_name(tool), tool) for tool in result.tools]
    names = sorted(name for name, _ in functions)
    if len(set(names)) < len(names):
        raise ValueError("stubs need one function per tool: assign handlers with handler_module=")
    header = _docstring(
        f"Handlers for the tools imported from {result.source} by `tooldeck import "
        f"{result.kind}`.\n\nOne function per tool, named as the manifest's handler references "
        "say. Each raises\nNotImplementedError until it is written. tooldeck calls it with the "
        "validated\narguments as keyword arguments; optional ones the model left out are not "
        "passed,\nso the defaults here apply.",
        indent="",
    )
    parts = [header, "", "from typing import Any", ""]
    parts.append("__all__ = [" + ", ".join(f'"{n}"' for n in names) + "]")
    if len(parts[-1]) > _LINE:
        parts[-1] = "__all__ = [\n" + "".join(f'    "{n}",\n' for n in names) + "]"
    for name, tool in functions:
        parts.extend(["", "", _stub(name, tool)])
    return "\n".join(parts) + "\n"


def _function_name(tool: ImportedTool) -> str:
    if tool.handler is None or ":" not in tool.handler:
        raise ValueError(f"tool {tool.name!r} has no handler reference; assign handlers first")
    return tool.handler.rsplit(":", 1)[1].rsplit(".", 1)[-1]


def _stub(name: str, tool: ImportedTool) -> str:
    arguments: list[str] = []
    docs: list[tuple[str, str]] = []
    extra: list[str] = []
    for entry in tool.params:
        param = entry["name"]
        if not param.isidentifier() or keyword.iskeyword(param) or param == "arguments":
            extra.append(param)
            continue
        arguments.append(_argument(entry))
        docs.append((param, _description(entry)))
    if extra:
        arguments.append("**arguments: Any")
        listed = ", ".join(repr(p) for p in extra)
        docs.append(("arguments", f"the parameters whose names are not Python names: {listed}"))
    head = _signature(name, arguments)
    body = _wrapped(tool.description.strip() or f"Run the tool {tool.name!r}.", "", "")
    if docs:
        body.append("")
        body.append("Args:")
        for param, text in docs:
            body.extend(_wrapped(f"{param}: {text}".rstrip(), "    ", "        "))
    message = f"tool {tool.name!r} is not implemented yet"
    return (
        f"{head}\n{_docstring(chr(10).join(body), indent='    ')}\n"
        f"    raise NotImplementedError({message!r})"
    )


def _wrapped(text: str, first: str, rest: str) -> list[str]:
    """``text`` wrapped to the stub's line length, each paragraph line on its own."""
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(
            textwrap.wrap(
                line,
                width=_LINE - 4,
                initial_indent=first,
                subsequent_indent=rest,
                break_long_words=False,
                break_on_hyphens=False,
            )
            or [""]
        )
    return out


def _signature(name: str, arguments: list[str]) -> str:
    keyword_only = [a for a in arguments if not a.startswith("**")]
    rest = [a for a in arguments if a.startswith("**")]
    parts = (["*", *keyword_only] if keyword_only else []) + rest
    one_line = f"def {name}({', '.join(parts)}) -> Any:"
    if len(one_line) <= _LINE:
        return one_line
    inner = "".join(f"    {part},\n" for part in parts)
    return f"def {name}(\n{inner}) -> Any:"


def _argument(entry: Mapping[str, Any]) -> str:
    annotation = _annotation(entry)
    if "default" in entry:
        value = entry["default"]
        if value is None or isinstance(value, list | dict):
            return f"{entry['name']}: {_nullable(annotation)} = None"
        literal = json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)
        return f"{entry['name']}: {annotation} = {literal}"
    if entry.get("required") is False:
        return f"{entry['name']}: {_nullable(annotation)} = None"
    return f"{entry['name']}: {annotation}"


def _annotation(entry: Mapping[str, Any]) -> str:
    schema = entry.get("schema")
    if isinstance(schema, Mapping):
        return _from_schema(schema)
    return _from_types(entry.get("type", "string"), entry.get("items"))


def _from_schema(schema: Mapping[str, Any]) -> str:
    if "type" in schema:
        return _from_types(schema["type"], schema.get("items"))
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list) and branches:
        kinds = [_from_schema(b) if isinstance(b, Mapping) else "Any" for b in branches]
        return _union(kinds)
    return "Any"


def _from_types(declared: Any, items: Any) -> str:
    names = [declared] if isinstance(declared, str) else list(declared)
    kinds = []
    for kind in names:
        if kind == "array":
            kinds.append(f"list[{_element(items)}]")
        else:
            kinds.append(_PYTHON.get(kind, "Any"))
    return _union(kinds)


def _element(items: Any) -> str:
    if isinstance(items, str):
        return _from_types(items, None)
    if isinstance(items, Mapping):
        if "schema" in items:
            return _from_schema(items["schema"])
        if "type" in items and "properties" not in items:
            return _from_types(items["type"], items.get("items"))
        if "type" in items or "anyOf" in items:
            return _from_schema(items)
    return "Any"


def _union(kinds: list[str]) -> str:
    if not kinds or "Any" in kinds:
        return "Any"
    unique = list(dict.fromkeys(k for k in kinds if k != "None"))
    if "None" in kinds:
        unique.append("None")
    return " | ".join(unique)


def _nullable(annotation: str) -> str:
    if annotation == "Any" or annotation.endswith("| None") or annotation == "None":
        return annotation
    return f"{annotation} | None"


def _description(entry: Mapping[str, Any]) -> str:
    text = entry.get("description")
    if not isinstance(text, str):
        schema = entry.get("schema")
        text = schema.get("description", "") if isinstance(schema, Mapping) else ""
    return " ".join(str(text).split())


def _docstring(text: str, *, indent: str) -> str:
    """``text`` as a triple-quoted docstring that cannot end early or run code."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    if text.endswith('"'):
        text = text[:-1] + '\\"'
    lines = text.split("\n")
    body = "\n".join(f"{indent}{line}" if line.strip() else "" for line in lines[1:])
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""'
    return f'{indent}"""{lines[0]}\n{body}\n{indent}"""'
