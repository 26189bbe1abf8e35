"""``${env:NAME}``, ``${env:NAME:-default}`` and ``${config:dotted.key}`` in manifest strings.

Resolved at load time, in every string value of a document. ``${name}``
without a prefix is left alone: inside a parameter default it refers to an
earlier parameter and is filled at call time. ``$${`` writes a literal ``${``.

Values read from the environment are secrets by default: they are recorded
in a :class:`Secrets` set, and everything tooldeck prints (``list``,
``export``, diagnostics, error results, logs) passes through
:meth:`Secrets.redact`, which shows ``***`` instead.

=====  ==========================================================
TD301  ``${env:NAME}`` names an unset variable and has no default
TD302  ``${kind:...}`` with a kind other than env or config
TD303  ``${config:key}`` names a key the configuration does not have
=====  ==========================================================
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from engine.secrets import Secrets

__all__ = ["REFERENCE", "interpolate"]

REFERENCE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*):([^}]*)\}")
"""``$${`` (escape) or ``${kind:rest}``; plain ``${name}`` does not match."""

Problem = tuple[tuple[str | int, ...], str, str]
"""(path, code, message) for one unresolvable reference."""


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
        def one(match: re.Match[str]) -> str:
            kind = match.group(1)
            if kind is None:
                return "${"
            rest = match.group(2)
            if kind == "env":
                name, has_default, default = rest.partition(":-")
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
