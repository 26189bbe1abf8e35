"""Reading a pack's settings from the application config (``tooldeck: {<pack>: {...}}``).

The packs that change things are switched on by the application config (``tooldeck.files``,
``tooldeck.http``, ``tooldeck.commands``, ``tooldeck.git``), which a model must never be able to
supply. So the handlers take a :class:`~tooldeck.ToolContext` parameter, which the engine
injects by its annotation and never shows to the model (it is left out of an inferred schema),
and read the config from it (:func:`config_of`). A manifest could still declare a parameter
named ``context`` for the model to fill; what arrives then is JSON data, never a
``ToolContext``, and is refused. A plain ``config`` parameter would not have that guarantee: a
manifest that lets its parameters be inferred, or declares ``config`` without
``inject: config``, hands it to the model.

The config is the operator's, but it is plain data that may be incomplete or mistyped. The rule
for every pack: a missing level (``tooldeck``, ``tooldeck.<pack>``), or one that is not a mapping,
counts as absent, so the dangerous tools stay off; a key that *is* set but has the wrong type is a
mistake the operator must hear about, so it fails the call with a message naming the key (kind
``invalid_config``) rather than being silently replaced by a default.
"""

from collections.abc import Mapping
from typing import Any

from tooldeck import ToolContext, ToolFailed

__all__ = [
    "MISSING",
    "config_of",
    "number",
    "pack_settings",
    "string_list",
    "string_map",
    "whole_number",
]

MISSING: Any = object()
"""A sentinel for absent keys (``settings.get(name, MISSING)``)."""


def config_of(context: object) -> Mapping[str, Any]:
    """The application config of the call; refuses a context that the engine did not make."""
    if not isinstance(context, ToolContext):
        raise ToolFailed(
            f"this tool reads the operator's settings from the call's context, but got "
            f"{type(context).__name__} data instead: the manifest declares a parameter named "
            "'context' that a model could fill. Tell the user to remove it from the tool's "
            "params (the engine fills it); the tool stays off until then",
            kind="not_enabled",
        )
    return context.config


def pack_settings(context: object, pack: str) -> Mapping[str, Any]:
    """``tooldeck.<pack>`` of the call's config; empty when a level is missing or not a
    mapping. Refuses a context that the engine did not make (:func:`config_of`)."""
    config = config_of(context)
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
