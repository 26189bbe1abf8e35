"""Reading a pack's settings from the application config (``tooldeck: {<pack>: {...}}``).

The config is the operator's, but it is plain data that may be incomplete or mistyped. The rule
for every pack: a missing level (``tooldeck``, ``tooldeck.<pack>``), or one that is not a mapping,
counts as absent, so the dangerous tools stay off; a key that *is* set but has the wrong type is a
mistake the operator must hear about, so it fails the call with a message naming the key (kind
``invalid_config``) rather than being silently replaced by a default.
"""

from collections.abc import Mapping
from typing import Any

from tooldeck import ToolFailed

__all__ = ["MISSING", "number", "pack_settings", "string_list", "string_map", "whole_number"]

MISSING: Any = object()
"""A sentinel for absent keys (``settings.get(name, MISSING)``)."""


def pack_settings(config: Mapping[str, Any], pack: str) -> Mapping[str, Any]:
    """``config["tooldeck"][pack]``; empty when a level is missing or not a mapping."""
    root = config.get("tooldeck") if isinstance(config, Mapping) else None
    section = root.get(pack) if isinstance(root, Mapping) else None
    return section if isinstance(section, Mapping) else {}


def _invalid(key: str, wanted: str, value: object) -> ToolFailed:
    return ToolFailed(
        f"the application config sets {key} to {value!r}, but it must be {wanted}; this tool "
        "cannot run until the operator fixes the config (tooldeck --config FILE)",
        kind="invalid_config",
    )


def number(settings: Mapping[str, Any], name: str, key: str, default: float) -> float:
    """A positive number of seconds (or other unit); ``default`` when the key is absent."""
    value = settings.get(name, MISSING)
    if value is MISSING:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise _invalid(key, "a positive number", value)
    return float(value)


def whole_number(settings: Mapping[str, Any], name: str, key: str, default: int) -> int:
    """A positive whole number; ``default`` when the key is absent."""
    value = settings.get(name, MISSING)
    if value is MISSING:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _invalid(key, "a positive whole number", value)
    return value


def string_list(settings: Mapping[str, Any], name: str, key: str) -> list[str]:
    """A list of strings; empty when the key is absent or null."""
    value = settings.get(name)
    if value is None:
        return []
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise _invalid(key, "a list of strings", value)
    return list(value)


def string_map(settings: Mapping[str, Any], name: str, key: str) -> dict[str, str]:
    """A mapping of strings to strings (environment variables); empty when absent or null."""
    value = settings.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise _invalid(key, "a mapping of names to string values", value)
    for k, v in value.items():
        if not k or "=" in k or "\0" in k or "\0" in v:
            raise _invalid(key, "variable names without '=' or NUL, values without NUL", k)
    return dict(value)
