"""What ``tooldeck import`` changes in the project besides the manifest, so lint passes at once.

An imported manifest names handler modules (``--stubs``, ``--handler-module``,
``--handler``, ``import python``) that ``tooldeck lint`` refuses until the
project's settings allow them, and its editor line points at a schema file.
Both belong to the project that holds the manifest: the nearest settings file
above it (then above the current directory, as every command finds it), or,
with none, the current directory, where a ``[tool.tooldeck]`` table is appended
to ``pyproject.toml`` (created if missing), as ``tooldeck init`` does.

Only a manifest written into that project changes it (``-o`` below the
project's folder): a manifest printed on standard output, or written outside,
changes nothing, and the import prints the exact line to add instead. The
same when the settings cannot be edited safely: ``tooldeck.yaml`` (YAML is not
rewritten), a link or a hard-linked file (:mod:`.._nolinks`), or an
``allow_handlers`` the minimal edit cannot reach (:mod:`.._pyproject_edit`).
A module the settings may not allow (the standard library, tooldeck itself)
is never added.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePath

from ...manifest._settings import ProjectSettings, locate_project
from .._schema_file import (
    SCHEMA_FILE,
    reference,
    shown_path,
    write_missing_schema,
)

__all__ = ["ImportProject"]

_ALWAYS_ALLOWED = ("tooldeck.handlers",)


@dataclass(frozen=True, kw_only=True)
class ImportProject:
    """The project an import's manifest goes into, and the changes it needs there."""

    output: Path | None
    """The manifest's path; None for standard output."""
    settings: ProjectSettings | None
    """The settings found for it, or None."""
    root: Path
    """The project folder: the settings file's, else the current directory (absolute)."""
    contains: bool
    """Whether the manifest lands inside ``root`` (standard output: the current directory)."""

    @classmethod
    def locate(cls, output: Path | None) -> ImportProject:
        """The project of a manifest written to ``output`` (standard output when None)."""
        settings = locate_project([output])
        root = settings.root if settings is not None else Path.cwd().resolve()
        place = output.parent if output is not None else Path.cwd()
        contains = place.resolve().is_relative_to(root.resolve())
        return cls(output=output, settings=settings, root=root, contains=contains)

    # ------------------------------------------------------------------ schema
    def schema_reference(self) -> str | None:
        """What the manifest's ``$schema`` line says: the project's copy, relative to it.

        None (no line) for a manifest outside the project: a path from there
        into the project would not survive a commit of either.
        """
        if not self.contains:
            return None
        folder = self.output.parent if self.output is not None else Path.cwd()
        return reference(folder, self.root / SCHEMA_FILE)

    def write_schema(self) -> str | None:
        """Write the project's schema copy when missing; a line saying what happened, or None."""
        schema = self.root / SCHEMA_FILE
        if self.output is None:
            if self.contains and not os.path.lexists(schema):
                return (
                    f"the $schema line points at {shown_path(schema)}, which does not exist "
                    "yet: tooldeck schema --write creates it"
                )
            return None
        if not self.contains:
            return (
                f"no $schema line: {self.output} is outside the project {self.root} "
                "(tooldeck schema --write PATH writes a copy to point at)"
            )
        return write_missing_schema(self.root)

    # --------------------------------------------------------- allow_handlers
    def allow(self, module: str) -> tuple[bool, list[str]]:
        """Make the project's settings allow ``module``: (whether they do now, lines to print)."""
        from ...manifest._resolve import is_allowed
        from ...manifest._settings import handler_prefix_problem

        allowed = self.settings.allow_handlers if self.settings is not None else ()
        if is_allowed(module, (*_ALWAYS_ALLOWED, *allowed)):
            return True, []
        why = handler_prefix_problem(module)
        if why is not None:
            return False, [f"{module} is not added to the project's settings: {why}"]
        source = self.settings.source if self.settings is not None else None
        wanted = [*allowed, module]
        if source is not None and source.name != "pyproject.toml":
            return False, [self._add_yourself(module, source, wanted, "YAML is not rewritten")]
        pyproject = source or self.root / "pyproject.toml"
        if self.output is None:
            return False, [self._add_yourself(module, pyproject, wanted, "")]
        if not self.contains:
            reason = f"{self.output} is outside the project {self.root}"
            return False, [self._add_yourself(module, pyproject, wanted, reason)]
        return self._edit(module, pyproject, wanted)

    def _edit(self, module: str, pyproject: Path, wanted: list[str]) -> tuple[bool, list[str]]:
        from ..._readfile import DEFAULT_LIMIT
        from .._nolinks import StarterWriter, WriteRefused
        from .._pyproject_edit import Uneditable, allow_handler

        name = PurePath(pyproject.name)
        existed = os.path.lexists(pyproject)
        try:
            with StarterWriter(pyproject.parent) as writer:
                if existed:
                    writer.replace(name, DEFAULT_LIMIT, lambda text: allow_handler(text, module))
                else:
                    writer.create(name, allow_handler("", module))
        except (Uneditable, WriteRefused, OSError, UnicodeDecodeError) as exc:
            return False, [self._add_yourself(module, pyproject, wanted, str(exc))]
        shown = shown_path(pyproject)
        table = "" if self.settings is not None else " (a new [tool.tooldeck] table)"
        created = "" if existed else f"; {shown} was created"
        return True, [f"added {module} to allow_handlers in {shown}{table}{created}"]

    @staticmethod
    def _add_yourself(module: str, settings: Path, wanted: list[str], reason: str) -> str:
        """The exact line to add, and where, when the import does not add it itself."""
        from .._pyproject_edit import setting_line

        yaml = settings.name != "pyproject.toml"
        line = setting_line(wanted, yaml=yaml)
        where = shown_path(settings) + ("" if yaml else ", under [tool.tooldeck]")
        because = f" ({reason})" if reason else ""
        return f"{module} is not in allow_handlers{because}; to allow it, set in {where}:\n  {line}"
