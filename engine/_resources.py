"""The data files tooldeck ships, found one way: through :mod:`importlib.resources`.

The bundled manifests (the repository's ``manifests/``, installed as
``tooldeck.bundled``) and the manifest meta-schema (``schemas/``, installed as
``tooldeck.schemas``) are packages of their own in ``pyproject.toml``'s
``package-dir`` (with an ``__init__.py`` each, which an editable install needs
to find a mapped subpackage), so a wheel, a zip and an editable install all
find them by package name, and no code works out a folder from ``__file__``.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

__all__ = ["bundled_manifests", "installed_schema", "schema_bytes"]

_BUNDLED = "tooldeck.bundled"
_SCHEMAS = "tooldeck.schemas"
_SCHEMA_FILE = "manifest.schema.json"


def bundled_manifests() -> Path:
    """The folder of manifests shipped with tooldeck, as a path the loader can walk.

    The built-in packs (file, git, HTTP and command tools, prompts): pass it to
    :func:`tooldeck.load_manifests` with the application config, e.g.
    ``load_manifests([bundled_manifests()], config={"tooldeck": {"files": {"write":
    True}}}, project_dir=".")``; the packs that change things load only when the
    config enables them.

    An installed package is a folder on disk (a wheel unpacks, an editable
    install points at the repository), which is what manifest discovery and
    hot reload need; a zipped install has no such folder and says so.
    """
    return _on_disk(files(_BUNDLED), "the bundled manifests")


def installed_schema() -> Path:
    """The meta-schema file shipped inside the installed package (``tooldeck schema --path``)."""
    return _on_disk(files(_SCHEMAS) / _SCHEMA_FILE, "the manifest meta-schema")


def schema_bytes() -> bytes:
    """The meta-schema's bytes, read from the package whatever form it is installed in."""
    return (files(_SCHEMAS) / _SCHEMA_FILE).read_bytes()


def _on_disk(resource: Traversable, what: str) -> Path:
    if isinstance(resource, Path):
        return resource
    raise FileNotFoundError(f"{what}: not a file on disk in this installation ({resource})")
