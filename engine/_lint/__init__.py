"""Lint: what makes a valid manifest a poor one, the checks CI runs.

``runner``: run the rules over loaded manifests, apply the configured severities;
``rules``: the rules (TD4xx, TD120); ``attached``: rules for attached MCP servers and
``use:`` entries (TD412-TD414); ``signature``: TD411, parameters against handler
signatures; ``resources``: file resources on disk (TD416, TD417); ``settings``:
``[tool.tooldeck.lint]`` thresholds and severities; ``live``: listing every attached
server once for the live checks (imports ``mcp`` when used).
"""

import typing

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .live import list_servers
    from .rules import LiveServer
    from .runner import LintSettings, apply_severity, lint
    from .settings import settings_from

__all__ = [
    "LintSettings",
    "LiveServer",
    "apply_severity",
    "lint",
    "list_servers",
    "settings_from",
]

_EXPORTS: dict[str, str] = {
    "LintSettings": ".runner",
    "LiveServer": ".rules",
    "apply_severity": ".runner",
    "lint": ".runner",
    "list_servers": ".live",
    "settings_from": ".settings",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
