"""Lint: run the rules over loaded manifests and apply the configured severities.

The rules are in :mod:`tooldeck._lint.rules` (what makes a valid
manifest a poor one: TD4xx and TD120), the ``[tool.tooldeck.lint]`` settings
in :mod:`tooldeck._lint.settings`; this module runs every rule that
is not switched off and re-levels what they found. It is the one the CLI
imports from (``RULES``, ``LintSettings``, ``Rule`` and ``load_settings`` are
re-exported here), and :func:`lint` reads ``RULES`` from this module, so a
test may swap the rule list here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from .._diagnostics import Diagnostic
from .._registry import ToolRegistry
from ..manifest._manifests import LoadResult
from . import (
    attached,  # noqa: F401  (registers the MCP rules, TD412-TD414)
    auth,  # noqa: F401  (registers the authentication rule, TD415)
    resources,  # noqa: F401  (registers the file resource rules, TD416-TD417)
)
from .rules import (
    RULE_BY_CODE,
    RULES,
    LintContext,
    LintSettings,
    LiveServer,
    Rule,
)
from .settings import _LEVELS, STATIC_CODES, load_settings

__all__ = ["RULES", "LintSettings", "LiveServer", "Rule", "apply_severity", "lint", "load_settings"]


def lint(
    result: LoadResult,
    registry: ToolRegistry,
    settings: LintSettings,
    *,
    live: Mapping[str, LiveServer] | None = None,
) -> list[Diagnostic]:
    """Run every rule; returns the rule diagnostics with configured severities applied.

    ``live`` is what connecting to the ``via: client`` MCP servers found
    (None: lint did not connect, and the live checks are skipped).
    """
    ctx = LintContext(result, registry, settings, live)
    found: list[Diagnostic] = []
    for item in RULES:
        if settings.severity.get(item.code) == "off":
            continue
        found.extend(item.check(ctx))
    return apply_severity(found, settings)


def apply_severity(diagnostics: Iterable[Diagnostic], settings: LintSettings) -> list[Diagnostic]:
    """Re-level what the rules found (and TD316/TD317 from loading) as the settings say."""
    out = []
    for diagnostic in diagnostics:
        level = settings.severity.get(diagnostic.code)
        known = diagnostic.code in RULE_BY_CODE or diagnostic.code in STATIC_CODES
        if level == "off" and known:
            continue
        if level in _LEVELS and known:
            out.append(replace(diagnostic, severity=_LEVELS[level]))
        else:
            out.append(diagnostic)
    return out
