"""``${env:NAME}``, ``${env:NAME:-default}`` and ``${config:dotted.key}`` in manifest strings.

Resolved at load time, in every string value of a document. ``${name}``
without a prefix is left alone: inside a parameter default it refers to an
earlier parameter and is filled at call time. ``$${`` writes a literal ``${``.

Values read from the environment are secrets by default: they are recorded
in a :class:`Secrets` set, and everything tooldeck prints (``list``,
``export``, diagnostics, call results, logs) passes through
:meth:`Secrets.redact`, which shows ``***`` instead.

An identifier (a tool, prompt, resource, parameter or server name, a resource URI,
a type, a format, a handler reference ...: see :data:`IDENTIFIER_FIELDS`) must not come from the
environment: it is printed, quoted, compared, suggested ("did you mean") and
rewritten (provider-safe aliases) in too many places to redact reliably, and
a renamed or cut-off secret no longer looks like the secret. Such a
reference is TD304 and is left unresolved, so the secret never enters the
identifier at all. ``${config:...}`` stays allowed there: configuration is
not secret.

=====  ==========================================================
TD301  ``${env:NAME}`` names an unset variable and has no default
TD302  ``${kind:...}`` with a kind other than env or config
TD303  ``${config:key}`` names a key the configuration does not have
TD304  ``${env:NAME}`` inside an identifier (name, type, handler ...)
=====  ==========================================================
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from .._secrets import Secrets

__all__ = ["IDENTIFIER_FIELDS", "REFERENCE", "identifier_field", "interpolate"]

REFERENCE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*):([^}]*)\}")
"""``$${`` (escape) or ``${kind:rest}``; plain ``${name}`` does not match."""

Problem = tuple[tuple[str | int, ...], str, str]
"""(path, code, message) for one unresolvable reference."""

_PARAM = r"(?:tools|prompts|resources)\[\]\.params\[\](?:\.properties\[\]|\.items)*"
"""A parameter, a nested field (``properties``) or an element description (``items``)."""
_OPTIONS = r"(?:tools\[\]|defaults)"
"""Where tool options live: on a tool, or in the file's ``defaults``."""

IDENTIFIER_FIELDS: tuple[tuple[str, str], ...] = (
    (r"bundle", "the bundle name"),
    (r"supported_for\[\]", "an application class in supported_for"),
    (r"tools\[\]\.name", "a tool name"),
    (r"prompts\[\]\.name", "a prompt name"),
    (r"(?:tools|prompts|resources)\[\]\.handler", "a handler reference"),
    (r"resources\[\]\.name", "a resource name"),
    (r"resources\[\]\.(?:uri|uri_template)", "a resource URI"),
    (r"resources\[\]\.file", "a resource file"),
    (r"resources\[\]\.mime_type", "a resource mime type"),
    (r"prompts\[\]\.role", "a prompt role"),
    (rf"{_PARAM}\.name", "a parameter name"),
    (rf"{_PARAM}\.(?:type|type\[\]|items)", "a parameter type"),
    (rf"{_PARAM}\.format", "a parameter format"),
    (rf"{_PARAM}\.inject", "a parameter's inject"),
    (
        rf"{_PARAM}\.schema(?:\.[^.\[]+|\[\])*\.(?:type|type\[\]|format|\$ref|required\[\])",
        "a JSON Schema keyword of a raw schema",
    ),
    (rf"{_OPTIONS}\.result\.format", "a result format"),
    (rf"{_OPTIONS}\.retry\.on\[\]", "an exception name in retry.on"),
    (r"web_search\.type", "the web search type"),
    (r"mcp_servers\[\]\.name", "an MCP server name"),
    (r"mcp_servers\[\]\.via", "an MCP server's via"),
    (r"mcp_servers\[\]\.prefix", "an MCP tool name prefix"),
    (r"mcp_servers\[\]\.allowed_tools\[\]", "a tool name in allowed_tools"),
)
"""(pattern over the dotted path, what the field is) for every identifier-like field.

Paths are written as ``tools[].params[].name``: keys joined by dots, list
indices as ``[]``. Free text (descriptions, templates, ``effect``), values
(defaults, enums, URLs, headers, ``env``), expressions (``enabled_when``,
``result.select``), patterns and free-form ``tags`` may hold secrets; they
are redacted wherever they are printed.
"""

_IDENTIFIER = [(re.compile(pattern), what) for pattern, what in IDENTIFIER_FIELDS]


def identifier_field(path: tuple[str | int, ...]) -> str | None:
    """What identifier the value at ``path`` is (e.g. "a tool name"), or None for other fields."""
    dotted = "".join("[]" if isinstance(part, int) else f".{part}" for part in path)
    dotted = dotted.removeprefix(".")
    for pattern, what in _IDENTIFIER:
        if pattern.fullmatch(dotted):
            return what
    return None


def interpolate(
    data: Any,
    *,
    config: Mapping[str, Any],
    secrets: Secrets,
    environ: Mapping[str, str] | None = None,
) -> tuple[Any, list[Problem]]:
    """``data`` with references resolved, and the problems found (by JSON path)."""
    env = os.environ if environ is None else environ
    problems: list[Problem] = []

    def resolve(text: str, path: tuple[str | int, ...]) -> str:
        identifier = identifier_field(path)

        def one(match: re.Match[str]) -> str:
            kind = match.group(1)
            if kind is None:
                return "${"
            rest = match.group(2)
            if kind == "env":
                name, has_default, default = rest.partition(":-")
                if identifier is not None:
                    if name in env:  # still a secret, wherever else it turns up
                        secrets.add(env[name])
                    problems.append((path, "TD304", _secret_in_identifier(name, identifier)))
                    return match.group(0)  # the secret never enters the identifier
                if name in env:
                    secrets.add(env[name])
                    return env[name]
                if has_default:
                    return default
                problems.append(
                    (
                        path,
                        "TD301",
                        f"environment variable {name!r} is not set and "
                        f"${{env:{name}}} has no default; use ${{env:{name}:-value}}",
                    )
                )
                return match.group(0)
            if kind == "config":
                found = _lookup(config, rest)
                if found is _MISSING:
                    problems.append(
                        (path, "TD303", f"configuration has no key {rest!r} (${{config:{rest}}})")
                    )
                    return match.group(0)
                return found if isinstance(found, str) else _text(found)
            problems.append(
                (
                    path,
                    "TD302",
                    f"unknown reference ${{{kind}:...}}; use ${{env:NAME}} or ${{config:key}}",
                )
            )
            return match.group(0)

        return REFERENCE.sub(one, text)

    return _walk(data, (), resolve), problems


def _secret_in_identifier(name: str, identifier: str) -> str:
    """The TD304 message; it names the variable, never its value."""
    return (
        f"${{env:{name}}} in {identifier}: values from the environment are secrets, and "
        "identifiers are shown everywhere (to the model, in listings and exports); "
        "write it literally or use ${config:key}"
    )


def _walk(
    value: Any, path: tuple[str | int, ...], resolve: Callable[[str, tuple[str | int, ...]], str]
) -> Any:
    if isinstance(value, str):
        return resolve(value, path) if "${" in value else value
    if isinstance(value, list):
        return [_walk(item, (*path, index), resolve) for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: _walk(item, (*path, key), resolve) for key, item in value.items()}
    return value


_MISSING = object()


def _lookup(config: Mapping[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def _text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False) if isinstance(value, list | dict) else str(value)
