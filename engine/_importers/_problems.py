"""What an import reports: located problems as values, never tracebacks.

An import reads files other people wrote (a catalogue downloaded from a
benchmark, a server's tool list), so every surprise in them is a value here:
a code, a severity, a message, and where it is: the input's line and column
when the parser knows them, else the definition's 1-based position and name,
and the place inside the definition (``parameters.properties.unit.type``).
``error`` means the definition (or the whole input) was not imported;
``warning`` means it was imported with a change worth reading; ``info`` says
what was rewritten without changing the meaning.

=====  ==========================================================
TD500  the input cannot be read: missing, too large, not UTF-8, not JSON
TD501  an entry is not a function definition (no name, no object schema)
TD502  a tool name is declared twice; the later definition is skipped
TD503  a hosted or non-function tool (web_search, mcp ...) is skipped
TD504  a schema tooldeck cannot accept (pattern RE2 cannot run, non-local
       $ref, too deep, invalid JSON Schema); the definition is skipped
TD505  a type name that is not JSON Schema (HashMap, char ...) was mapped
       to the nearest JSON type, or dropped when unknown
TD506  something with no place in a manifest was left out (a response
       schema, annotations, root keywords, unknown required names)
TD507  a default that is not valid for its own parameter is kept as an
       annotation in ``schema:``, so it is not filled in at call time
TD508  an older JSON Schema idiom rewritten to 2020-12 (definitions,
       tuple items, boolean required/exclusiveMinimum), duplicates removed
TD509  a tool name that is not a Python identifier got another handler name
TD510  a Python module cannot be imported or has no public functions
TD511  a Python function cannot become a tool and is skipped
TD512  the manifest written is larger than the loader reads (2 MiB)
=====  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from .._diagnostics import Severity

__all__ = ["ImportProblem", "Severity"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportProblem:
    """One located, coded finding of an import."""

    code: str
    """Stable ``TD5xx`` code (see the module docstring and docs/diagnostics.md)."""
    message: str
    severity: Severity = Severity.ERROR
    index: int | None = None
    """The definition's 1-based position in the input; None for the input as a whole."""
    name: str | None = None
    """The definition's (tool's) name, when it has one."""
    line: int | None = None
    """1-based line in the input, when known (JSON syntax errors, JSONL lines)."""
    column: int | None = None
    path: str = ""
    """Where inside the definition, e.g. ``parameters.properties.unit.type``."""

    def format(self, source: str) -> str:
        """``file:line:col: definition N (name): CODE [severity] message (at path)``.

        Without a line the prefix is ``file:``; the severity is left out for
        errors, as tooldeck's other diagnostics do.
        """
        where = source
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        parts = [f"{where}:"]
        if self.index is not None:
            parts.append(f"definition {self.index}" + (f" ({self.name}):" if self.name else ":"))
        parts.append(self.code)
        if self.severity is not Severity.ERROR:
            parts.append(f"[{self.severity.value}]")
        parts.append(self.message + (f" (at {self.path})" if self.path else ""))
        return " ".join(parts)
