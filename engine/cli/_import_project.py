"""What ``tooldeck import`` changes in the project besides the manifest: the schema copy.

The manifest's editor line points at the project's copy of the meta-schema
(:mod:`._schema_file`), which belongs to the project that holds the manifest:
the nearest settings file above it (then above the current directory, as
every command finds it), or, with none, the current directory.

Only a manifest written into that project changes it (``-o`` below the
project's folder): a manifest printed on standard output changes nothing, and
one written outside gets no ``$schema`` line (a path from there into the
project would not survive a commit of either).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tooldeck.cli._schema_file import (
    SCHEMA_FILE,
    reference,
    shown_path,
    write_missing_schema,
)
from tooldeck.manifest._settings import ProjectSettings, locate_project

__all__ = ["ImportProject"]


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
