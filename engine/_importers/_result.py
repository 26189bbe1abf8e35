"""What an import produces: tools ready to write as a manifest, plus the problems found.

The tool entries hold plain values in manifest form (``params`` are the
entries a manifest's ``params:`` list holds), not yet escaped for
interpolation: the YAML writer escapes ``${`` when it writes them, so the
values here are exactly what the loader will hand to the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._problems import ImportProblem, Severity

__all__ = ["ImportResult", "ImportedTool"]


@dataclass
class ImportedTool:
    """One tool, in the order and form the manifest will declare it."""

    index: int
    """1-based position of its definition in the input (for messages and tests)."""
    name: str
    description: str
    params: list[dict[str, Any]]
    """Manifest parameter entries (``params: []`` when the tool takes none)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Tool options carried over: ``strict``, ``side_effects``, ``idempotent``."""
    handler: str | None = None
    """``module:function``; set by :func:`~tooldeck._importers.assign_handlers` for JSON imports."""
    source: Mapping[str, Any] | None = None
    """The definition's original parameters schema (JSON imports), for comparisons;
    None when it has none."""
    line: int | None = None
    """1-based line of the definition in the input, when known (JSONL)."""
    opened: bool = False
    """The source left its parameters open (root ``additionalProperties`` absent or true):
    imported closed, as tooldeck's default is, and counted in the file's TD516."""


@dataclass
class ImportResult:
    """Everything one import found, in input order."""

    source: str
    """What was read: a file path or a module name, as given."""
    kind: str
    """``openai`` or ``python``: the ``tooldeck import`` sub-command that reads it."""
    tools: list[ImportedTool] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    definitions: int = 0
    """How many definitions the input held (imported, skipped and hosted ones)."""
    readable: bool = True
    """False when the input as a whole could not be read (no definitions at all)."""

    @property
    def errors(self) -> list[ImportProblem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def skipped(self) -> int:
        """Definitions not imported because of an error (hosted tools are not counted)."""
        return len({p.index for p in self.errors if p.index is not None})

    def exit_code(self) -> int:
        """0 imported everything it could, 1 definitions were skipped, 2 unreadable input."""
        if not self.readable:
            return 2
        return 1 if self.errors else 0
