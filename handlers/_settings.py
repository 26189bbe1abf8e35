"""The operator's settings of the tool packs, read from the engine's ``ToolContext`` only.

The packs that change things are switched on by the application config (``tooldeck.files``,
``tooldeck.http``, ``tooldeck.commands``, ``tooldeck.git``), which a model must never be able to
supply. So the handlers take a :class:`~tooldeck.ToolContext` parameter, which the engine
injects by its annotation and never shows to the model (it is left out of an inferred schema),
and read the config from it. A manifest could still declare a parameter named ``context`` for
the model to fill; what arrives then is JSON data, never a ``ToolContext``, and is refused here.
A plain ``config`` parameter would not have that guarantee: a manifest that lets its parameters
be inferred, or declares ``config`` without ``inject: config``, hands it to the model.
"""

from collections.abc import Mapping
from typing import Any

from tooldeck import ToolContext, ToolFailed

__all__ = ["config_of", "pack_settings"]


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


def pack_settings(context: object, pack: str) -> Mapping[str, Any] | None:
    """``tooldeck.<pack>`` of the application config, or None when it is missing or not a
    mapping (the pack is then off). Refuses a context that the engine did not make."""
    config = config_of(context)
    section = config.get("tooldeck") if isinstance(config, Mapping) else None
    settings = section.get(pack) if isinstance(section, Mapping) else None
    return settings if isinstance(settings, Mapping) else None
