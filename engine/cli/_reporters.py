"""Reporters: turn diagnostics into the text ``tooldeck lint --format NAME`` prints.

Modelled on check-jsonschema's reporters: each format is a small class whose
:meth:`Reporter.render` takes every diagnostic of a run at once (plus how many
files were checked) and returns the whole output as one string. The CLI picks
a class by name through :data:`REPORTER_BY_NAME` / :func:`get_reporter` and
writes the string to standard output as is.

Secrets: a reporter built with ``secrets=`` (the registry's
:class:`~tooldeck._secrets.Secrets`) masks them in every diagnostic in
:meth:`Reporter.render`, before a format quotes, escapes or percent-encodes
anything; formats implement :meth:`Reporter.emit` and only ever see redacted
diagnostics. Redacting the finished output instead would miss a secret that
JSON wrote as ``\\u00e9`` or ``\\"``, or GitHub as ``%2C``.

Formats:

``text``
    One ``file:line:col: CODE message`` line per diagnostic (``[warning]`` or
    ``[info]`` after the code when it is not an error), then a summary line.
    A line break inside a message (a name an MCP server chose, quoted) is
    written ``\\u000a``, so every line is one diagnostic.
``json``
    One JSON document with counts and one object per diagnostic; stable keys,
    ``null`` where a value is unknown.
``github``
    GitHub Actions workflow commands (``::error file=...::message``), which the
    runner turns into annotations on the pull request.
``sarif``
    SARIF 2.1.0 for GitHub code scanning (``github/codeql-action/upload-sarif``).

Control characters: the text a diagnostic quotes may come from a manifest or
a server. The CLI writes every report through
:class:`~tooldeck.cli._terminal.EscapingWriter`, which shows each control, C1
and bidi character as ``\\uXXXX`` (JSON's spelling: ``json`` and ``sarif``
stay the same JSON); ``github`` escapes what the runner reads as the end of a
command (``%``, ``\\r``, ``\\n``) itself.

Every reporter orders diagnostics the same way (file, line, column, code,
message; diagnostics without a location last) so output is deterministic
whatever order the checks ran in. Non-empty output always ends with a newline;
a reporter with nothing to say may return ``""`` (only ``github`` does).
"""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, ClassVar
from urllib.parse import quote

from .._diagnostics import Diagnostic, Severity
from .._secrets import Secrets
from .._words import plural
from ._terminal import one_line, printable

__all__ = [
    "REPORTER_BY_NAME",
    "GitHubReporter",
    "JsonReporter",
    "Reporter",
    "SarifReporter",
    "TextReporter",
    "artifact_location",
    "escape_github_data",
    "escape_github_property",
    "get_reporter",
    "sort_diagnostics",
]

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
"""The ``$schema`` written into SARIF logs."""
SARIF_VERSION = "2.1.0"
TOOL_NAME = "tooldeck"
TOOL_INFORMATION_URI = "https://pypi.org/project/tooldeck/"
SRCROOT = "%SRCROOT%"
"""The ``uriBaseId`` of relative artifact URIs; GitHub resolves it to the checkout."""


def _sort_key(diagnostic: Diagnostic) -> tuple[bool, str, int, int, str, str]:
    loc = diagnostic.location
    if loc is None:
        return (True, "", 0, 0, diagnostic.code, diagnostic.message)
    return (False, loc.file, loc.line, loc.column, diagnostic.code, diagnostic.message)


def sort_diagnostics(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics ordered by file, line, column, code, message; unlocated ones last."""
    return sorted(diagnostics, key=_sort_key)


def _count(diagnostics: Sequence[Diagnostic], severity: Severity) -> int:
    return sum(1 for d in diagnostics if d.severity == severity)


class Reporter(ABC):
    """Renders every diagnostic of one lint run as the text of one output format.

    ``secrets``: values shown as ``***`` in every message and tool name.
    """

    name: ClassVar[str]
    """The ``--format`` value that selects this reporter."""

    def __init__(self, *, secrets: Secrets | None = None) -> None:
        self.secrets = secrets

    def render(self, diagnostics: Sequence[Diagnostic], *, files_checked: int) -> str:
        """The whole output for ``diagnostics`` found in ``files_checked`` files.

        The one place diagnostics are redacted: before :meth:`emit` formats them.
        """
        if self.secrets:
            diagnostics = [self.secrets.redact_diagnostic(d) for d in diagnostics]
        return self.emit(diagnostics, files_checked=files_checked)

    @abstractmethod
    def emit(self, diagnostics: Sequence[Diagnostic], *, files_checked: int) -> str:
        """The format itself: ``diagnostics`` are already redacted."""


class TextReporter(Reporter):
    """``file:line:col: CODE [severity] message`` lines and a one-line summary.

    Errors carry no bracket; warnings and infos carry ``[warning]``/``[info]``.
    The summary counts errors and warnings (infos are shown, not counted):
    ``1 error, 2 warnings in 3 files``, or ``no problems in 3 files`` when there
    is no diagnostic at all.
    """

    name = "text"

    def emit(self, diagnostics: Sequence[Diagnostic], *, files_checked: int) -> str:
        lines = [one_line(self.format_line(d)) for d in sort_diagnostics(diagnostics)]
        lines.append(self.summary(diagnostics, files_checked=files_checked))
        return "\n".join(lines) + "\n"

    @staticmethod
    def format_line(diagnostic: Diagnostic) -> str:
        """One diagnostic as ``file:line:col: CODE [severity] message``."""
        where = f"{diagnostic.location}: " if diagnostic.location is not None else ""
        tag = "" if diagnostic.severity == Severity.ERROR else f" [{diagnostic.severity}]"
        return one_line(f"{where}{diagnostic.code}{tag} {diagnostic.message}")

    @staticmethod
    def summary(diagnostics: Sequence[Diagnostic], *, files_checked: int) -> str:
        """``N errors, M warnings in K files`` or ``no problems in K files``."""
        files = plural(files_checked, "file")
        if not diagnostics:
            return f"no problems in {files}"
        errors = plural(_count(diagnostics, Severity.ERROR), "error")
        warnings = plural(_count(diagnostics, Severity.WARNING), "warning")
        return f"{errors}, {warnings} in {files}"


class JsonReporter(Reporter):
    """One JSON document: version, counts, and the diagnostics in text order.

    ``{"version": 1, "files_checked": K, "errors": N, "warnings": M,
    "diagnostics": [{"code", "severity", "message", "file", "line", "column",
    "json_path", "tool"}, ...]}`` with ``null`` for what is unknown.
    """

    name = "json"
    FORMAT_VERSION: ClassVar[int] = 1

    def emit(self, diagnostics: Sequence[Diagnostic], *, files_checked: int) -> str:
        document = {
            "version": self.FORMAT_VERSION,
            "files_checked": files_checked,
            "errors": _count(diagnostics, Severity.ERROR),
            "warnings": _count(diagnostics, Severity.WARNING),
            "diagnostics": [self.to_dict(d) for d in sort_diagnostics(diagnostics)],
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

    @staticmethod
    def to_dict(diagnostic: Diagnostic) -> dict[str, Any]:
        """The JSON object for one diagnostic."""
        loc = diagnostic.location
        return {
            "code": diagnostic.code,
            "severity": str(diagnostic.severity),
            "message": diagnostic.message,
            "file": loc.file if loc is not None else None,
            "line": loc.line if loc is not None else None,
            "column": loc.column if loc is not None else None,
            "json_path": loc.json_path if loc is not None else None,
            "tool": diagnostic.tool_name,
        }


_GITHUB_COMMAND = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
}


def escape_github_data(value: str) -> str:
    """Escape a workflow command's message (``%``, ``\\r``, ``\\n``; other controls as text)."""
    escaped = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(escaped)


def escape_github_property(value: str) -> str:
    """Escape a workflow command property value (the data escapes plus ``:`` and ``,``)."""
    return escape_github_data(value).replace(":", "%3A").replace(",", "%2C")


class GitHubReporter(Reporter):
    """GitHub Actions workflow commands, one per diagnostic.

    ``::error file=F,line=L,col=C,title=CODE::message``; warnings use
    ``::warning`` and infos ``::notice``. Diagnostics without a location get
    only ``title``. No summary line: the runner would print it verbatim.
    """

    name = "github"

    def emit(self, diagnostics: Sequence[Diagnostic], *, files_checked: int) -> str:
        lines = [self.format_command(d) for d in sort_diagnostics(diagnostics)]
        return "".join(f"{line}\n" for line in lines)

    @staticmethod
    def format_command(diagnostic: Diagnostic) -> str:
        """One diagnostic as a workflow command line (without the newline)."""
        props: list[tuple[str, str]] = []
        loc = diagnostic.location
        if loc is not None:
            props += [("file", loc.file), ("line", str(loc.line)), ("col", str(loc.column))]
        props.append(("title", diagnostic.code))
        rendered = ",".join(f"{key}={escape_github_property(value)}" for key, value in props)
        command = _GITHUB_COMMAND[diagnostic.severity]
        return f"::{command} {rendered}::{escape_github_data(diagnostic.message)}"


_SARIF_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
}


class SarifReporter(Reporter):
    """SARIF 2.1.0 with one run, one rule per distinct code, one result per diagnostic.

    ``rule_help`` maps a code to its one-line description (from the diagnostics
    reference); codes it lacks use the first message seen for them (in sorted
    order). Files are written as relative POSIX URIs against ``%SRCROOT%``
    (``base_dir``, default the working directory) when they lie under it, and as
    ``file://`` URIs otherwise. Diagnostics without a location become results
    without ``locations``: valid SARIF, but GitHub code scanning rejects a log
    containing such a result, so the CLI should keep them out of uploads.
    """

    name = "sarif"

    def __init__(
        self,
        rule_help: Mapping[str, str] | None = None,
        *,
        base_dir: str | os.PathLike[str] | None = None,
        secrets: Secrets | None = None,
    ) -> None:
        super().__init__(secrets=secrets)
        self.rule_help: Mapping[str, str] = dict(rule_help or {})
        self.base_dir = base_dir

    def emit(self, diagnostics: Sequence[Diagnostic], *, files_checked: int) -> str:
        return json.dumps(self.to_log(diagnostics), indent=2, ensure_ascii=False) + "\n"

    def to_log(self, diagnostics: Sequence[Diagnostic]) -> dict[str, Any]:
        """The SARIF log as a JSON-ready dict (``diagnostics`` as given: not redacted here)."""
        ordered = sort_diagnostics(diagnostics)
        first_message: dict[str, str] = {}
        for diagnostic in ordered:
            first_message.setdefault(diagnostic.code, diagnostic.message)
        codes = sorted(first_message)
        rule_index = {code: index for index, code in enumerate(codes)}
        rules = [self._rule(code, first_message[code]) for code in codes]
        base = Path(self.base_dir) if self.base_dir is not None else Path.cwd()
        results = [self._result(d, rule_index[d.code], base) for d in ordered]
        return {
            "$schema": SARIF_SCHEMA_URI,
            "version": SARIF_VERSION,
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": TOOL_NAME,
                            "informationUri": TOOL_INFORMATION_URI,
                            "version": _tool_version(),
                            "rules": rules,
                        }
                    },
                    "columnKind": "unicodeCodePoints",
                    "results": results,
                }
            ],
        }

    def _rule(self, code: str, first_message: str) -> dict[str, Any]:
        description = self.rule_help.get(code, first_message)
        return {
            "id": code,
            "name": code,
            "shortDescription": {"text": description},
            "help": {
                "text": (
                    f"{description}\n\nSee the tooldeck diagnostics reference, "
                    f"docs/diagnostics.md#{code.lower()}."
                )
            },
        }

    @staticmethod
    def _result(diagnostic: Diagnostic, rule_index: int, base: Path) -> dict[str, Any]:
        result: dict[str, Any] = {
            "ruleId": diagnostic.code,
            "ruleIndex": rule_index,
            "level": _SARIF_LEVEL[diagnostic.severity],
            "message": {"text": diagnostic.message},
        }
        loc = diagnostic.location
        if loc is not None:
            result["locations"] = [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact_location(loc.file, base),
                        "region": {"startLine": loc.line, "startColumn": loc.column},
                    }
                }
            ]
        properties: dict[str, str] = {}
        if loc is not None:
            properties["jsonPath"] = loc.json_path
        if diagnostic.tool_name is not None:
            properties["tool"] = diagnostic.tool_name
        if properties:
            result["properties"] = properties
        return result


def artifact_location(file: str, base: str | os.PathLike[str]) -> dict[str, str]:
    """A SARIF ``artifactLocation`` for ``file`` (as given to the loader).

    Relative to ``base`` as a percent-encoded POSIX URI with ``uriBaseId``
    ``%SRCROOT%`` when the file lies under it (lexically; nothing is resolved
    on disk), otherwise an absolute ``file://`` URI.
    """
    base_path = Path(os.path.abspath(base))
    path = Path(os.path.abspath(Path.cwd() / file))
    try:
        relative = path.relative_to(base_path)
    except ValueError:
        return {"uri": path.as_uri()}
    return {"uri": quote(PurePath(relative).as_posix()), "uriBaseId": SRCROOT}


def _tool_version() -> str:
    from .._version import __version__

    return __version__


REPORTER_BY_NAME: dict[str, type[Reporter]] = {
    TextReporter.name: TextReporter,
    JsonReporter.name: JsonReporter,
    GitHubReporter.name: GitHubReporter,
    SarifReporter.name: SarifReporter,
}
"""``--format`` value -> reporter class; every class builds with no arguments."""


def get_reporter(name: str, *, secrets: Secrets | None = None) -> Reporter:
    """A default-configured reporter for ``--format name`` that masks ``secrets``.

    Raises:
        ValueError: ``name`` is not a key of :data:`REPORTER_BY_NAME`; the message
            lists the allowed names.
    """
    try:
        cls = REPORTER_BY_NAME[name]
    except KeyError:
        allowed = ", ".join(sorted(REPORTER_BY_NAME))
        raise ValueError(f"unknown report format {name!r}; expected one of: {allowed}") from None
    return cls(secrets=secrets)
