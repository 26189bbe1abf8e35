"""Lint settings from ``pyproject.toml``: thresholds and severities, with TD400 for bad ones.

Severities and thresholds are configurable in ``pyproject.toml``::

    [tool.tooldeck.lint]
    min_description_length = 20        # TD402
    min_param_description_length = 8   # TD404
    token_budget = 4000                # TD406, per bundle
    [tool.tooldeck.lint.severity]
    TD402 = "off"                      # error | warning | info | off

Only rule codes (TD4xx), the provider-name warning TD120 and what
``lint --static`` could not decide (TD316, TD317) can be re-levelled;
problems that stop a file from loading are always errors.

Separate from the rules (:mod:`tooldeck._lint.rules`) because it is
file reading and validation of user settings, not manifest checking.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .._diagnostics import Diagnostic, Severity
from .._readfile import Unreadable, read_bounded
from .rules import RULE_BY_CODE, LintSettings

__all__ = ["STATIC_CODES", "_LEVELS", "load_settings", "settings_from"]

_LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO}
STATIC_CODES = frozenset({"TD316", "TD317"})
"""What ``lint --static`` could not decide without an import: re-levellable like the rules."""


def load_settings(start: Path | None = None) -> tuple[LintSettings, list[Diagnostic]]:
    """``[tool.tooldeck.lint]`` from the nearest pyproject.toml at or above ``start``.

    A folder with no pyproject.toml but a ``tooldeck.yaml`` (projects without
    one) is read the same way: its ``lint:`` mapping holds the same keys.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        # exists(), not is_file(): a FIFO or device there is reported, not walked past
        candidate = folder / "pyproject.toml"
        if candidate.exists():
            return _parse_settings(candidate)
        standalone = folder / "tooldeck.yaml"
        if standalone.exists():
            return _parse_settings(standalone)
    return LintSettings(), []


def _parse_settings(path: Path) -> tuple[LintSettings, list[Diagnostic]]:
    from .._diagnostics import SourceLocation

    def problem(message: str) -> Diagnostic:
        return Diagnostic(code="TD400", message=message, location=SourceLocation(file=str(path)))

    if path.suffix == ".yaml":
        from .._yaml import read_yaml

        doc = read_yaml(path)
        if doc.diagnostics:
            return LintSettings(), list(doc.diagnostics)
        table = doc.data if isinstance(doc.data, dict) else {}
    else:
        raw = read_bounded(path)  # never blocks, never reads past the cap
        if isinstance(raw, Unreadable):
            return LintSettings(), [problem(f"cannot read lint settings: {raw}")]
        try:
            data = tomllib.loads(raw.decode("utf-8"))
            tool = data.get("tool", {})
            table = tool.get("tooldeck", {}) if isinstance(tool, dict) else {}
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            return LintSettings(), [problem(f"cannot read lint settings: {exc}")]
        except RecursionError:  # tomllib recurses per nesting level
            return LintSettings(), [problem("cannot read lint settings: nested too deep")]
    raw = table.get("lint", {}) if isinstance(table, dict) else {}
    serve = table.get("serve") if isinstance(table, dict) else None
    return settings_from(raw, path, serve=serve)


_UNREAD: Any = object()


def settings_from(
    raw: Any, path: Path, *, serve: Any = _UNREAD
) -> tuple[LintSettings, list[Diagnostic]]:
    """Lint settings from the ``lint`` table already read from ``path`` (project settings).

    ``serve``: the project's ``serve`` table, for TD415; read from ``path`` when not given.
    """
    from .._diagnostics import SourceLocation

    def problem(message: str) -> Diagnostic:
        return Diagnostic(code="TD400", message=message, location=SourceLocation(file=str(path)))

    if not isinstance(raw, dict):
        return LintSettings(), [problem("lint settings must be a table (a mapping)")]
    problems = []
    values: dict[str, Any] = {"source": str(path)}
    for key in ("min_description_length", "min_param_description_length", "token_budget"):
        if key in raw:
            if isinstance(raw[key], int) and not isinstance(raw[key], bool) and raw[key] >= 0:
                values[key] = raw[key]
            else:
                problems.append(problem(f"[tool.tooldeck.lint] {key} must be a whole number"))
    severity = {}
    levels = raw.get("severity", {})
    if not isinstance(levels, dict):
        problems.append(problem("[tool.tooldeck.lint.severity] must be a table of CODE = level"))
        levels = {}
    for code, level in levels.items():
        if code not in RULE_BY_CODE and code not in STATIC_CODES:
            problems.append(
                problem(
                    f"[tool.tooldeck.lint.severity] {code} is not a lint rule; "
                    f"rules: {', '.join(sorted({*RULE_BY_CODE, *STATIC_CODES}))}"
                )
            )
        elif code in STATIC_CODES and level == "off":
            problems.append(
                problem(
                    f"[tool.tooldeck.lint.severity] {code} cannot be off: what static lint "
                    "could not check stays in its report (set it to info to keep --strict)"
                )
            )
        elif level not in (*_LEVELS, "off"):
            problems.append(
                problem(
                    f"[tool.tooldeck.lint.severity] {code} = {level!r}; use "
                    "error, warning, info or off"
                )
            )
        else:
            severity[code] = level
    unknown = set(raw) - {
        "min_description_length",
        "min_param_description_length",
        "token_budget",
        "severity",
    }
    problems.extend(problem(f"[tool.tooldeck.lint] unknown setting {k!r}") for k in sorted(unknown))
    if serve is _UNREAD:
        serve = _serve_table(path)
    values["serve_auth"] = _auth_mode(serve)
    return LintSettings(severity=severity, **values), problems


def _serve_table(path: Path) -> Any:
    """The ``serve`` table of the settings file at ``path``; None when it cannot be read.

    Lenient on purpose: the serve settings are checked where they are used
    (``tooldeck serve``); lint only asks whether authentication is on.
    """
    try:
        if path.suffix == ".yaml":
            from .._yaml import read_yaml

            data: Any = read_yaml(path).data
        else:
            raw = read_bounded(path)
            if isinstance(raw, Unreadable):
                return None
            data = tomllib.loads(raw.decode("utf-8")).get("tool", {}).get("tooldeck", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, AttributeError):
        return None
    return data.get("serve") if isinstance(data, dict) else None


def _auth_mode(serve: Any) -> str:
    """``serve.auth`` as a mode name: ``"none"`` unless it says otherwise."""
    auth = serve.get("auth") if isinstance(serve, dict) else None
    if auth is None or auth is False or auth == "":
        return "none"
    if isinstance(auth, str):
        return auth.strip().lower() or "none"
    return "on"  # a table of options (or true): authentication of some kind
