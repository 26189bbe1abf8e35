"""The project's copy of the manifest meta-schema, and the ``$schema`` line that points at it.

A manifest's first line, ``# yaml-language-server: $schema=...``, gives editors
completion and inline errors. It is committed with the manifest, so it has to
resolve on every checkout: the installed file (in a virtualenv's
site-packages, or in another checkout for an editable install) exists on one
machine only. So the schema is copied into the project, and manifests point at
the copy by a path relative to their own folder (``../schemas/tooldeck.schema.json``).

The copy lives at :data:`SCHEMA_FILE`, ``schemas/tooldeck.schema.json`` below the
project root (the folder of the settings file, else the current one): a
visible folder meant to be committed (a dot folder reads as a cache, and is
often ignored), a name that says whose schema it is next to a project's own
schemas, and the ``.schema.json`` ending editors recognise. ``tooldeck schema
--write`` writes or refreshes it; ``init`` and ``import`` write it when it is
missing and never overwrite it. Every write goes through :mod:`._nolinks`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePath

__all__ = [
    "SCHEMA_FILE",
    "installed_schema",
    "is_tooldeck_schema",
    "reference",
    "schema_text",
    "shown_path",
    "write_missing_schema",
]

SCHEMA_FILE = PurePath("schemas", "tooldeck.schema.json")
"""Where the project's copy of the meta-schema goes, below the project root."""

_ID_PREFIX = "urn:tooldeck:schema:manifest:"
"""The ``$id`` every version of the meta-schema starts with."""


def installed_schema() -> Path:
    """The meta-schema file shipped inside the installed package (``tooldeck schema --path``)."""
    from .._resources import installed_schema as shipped

    return shipped()


def schema_text() -> str:
    """The meta-schema as ``tooldeck schema`` prints it, ending with a newline."""
    from ..manifest._meta import manifest_schema

    return json.dumps(manifest_schema(), indent=2, ensure_ascii=False) + "\n"


def is_tooldeck_schema(text: str) -> bool:
    """Whether ``text`` is some version of tooldeck's meta-schema (safe to refresh)."""
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and str(data.get("$id", "")).startswith(_ID_PREFIX)


def reference(folder: Path, schema: Path) -> str | None:
    """``schema`` as a ``$schema`` value for a manifest in ``folder``: relative, with ``/``.

    Both are made absolute first (links resolved), so a folder named through a
    link gets the path that works from where the file really is. None when no
    relative path exists (another drive on Windows).
    """
    try:
        return Path(os.path.relpath(schema.resolve(), folder.resolve())).as_posix()
    except ValueError:
        return None


def write_missing_schema(root: Path) -> str | None:
    """Write ``root/schemas/tooldeck.schema.json`` unless something is there; what happened.

    None when the file was there already; otherwise ``"wrote PATH"`` or why it was not
    written (a symlinked ``schemas/``, an unwritable folder): a missing schema costs
    the editor's help, never the manifest, so it is reported, not fatal.
    """
    from ._nolinks import StarterWriter, WriteRefused, refusals

    target = root / SCHEMA_FILE
    if os.path.lexists(target):
        return None
    shown = shown_path(target)
    problems = refusals(root, [SCHEMA_FILE], [])
    if problems:
        return f"{problems[0]}; the schema was not written ({shown})"
    try:
        with StarterWriter(root) as writer:
            writer.create(SCHEMA_FILE, schema_text())
    except (WriteRefused, OSError) as exc:
        return f"cannot write the schema {shown}: {exc}"
    return f"wrote the manifest schema for editors to {shown}"


def shown_path(path: Path) -> str:
    """``path`` relative to the current directory when below it, as a user would type it."""
    here, absolute = Path.cwd(), path.absolute()  # links kept: the path as it was named
    return str(absolute.relative_to(here)) if absolute.is_relative_to(here) else str(path)
