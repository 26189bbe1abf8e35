"""``tooldeck schema``: print the manifest meta-schema (JSON Schema 2020-12), or write it.

``--write [PATH]`` copies it into the project (``schemas/tooldeck.schema.json``
below the project root by default) for manifests to point at with a path that
survives a commit: ``# yaml-language-server: $schema=../schemas/tooldeck.schema.json``
(``tooldeck init`` and ``tooldeck import`` write both). Run it again after
upgrading tooldeck to refresh the copy; a file there that is not a tooldeck
schema is kept unless ``--force``. ``--path`` and ``--uri`` print where the
installed file is (valid on this machine only).
"""

from __future__ import annotations

import sys

from ._common import EXIT_OK, EXIT_USAGE

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from pathlib import Path


__all__ = ["add_arguments", "run"]

_PROJECT_DEFAULT = "project default"
"""``--write`` without a path: the project's ``schemas/tooldeck.schema.json``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--path", action="store_true", help="print where the installed schema file is instead"
    )
    shown.add_argument(
        "--uri", action="store_true", help="print it as a file:// URI (this machine only)"
    )
    shown.add_argument(
        "--write",
        nargs="?",
        const=_PROJECT_DEFAULT,
        metavar="PATH",
        help="write it into the project for manifests' $schema lines (default: "
        "schemas/tooldeck.schema.json below the project root); refreshes an older copy",
    )
    parser.add_argument(
        "--force", action="store_true", help="with --write: replace a file that is not a schema"
    )


def run(args: argparse.Namespace) -> int:
    if args.write is not None:
        return _write(args.write, force=args.force)
    if args.force:
        print("tooldeck schema: --force applies to --write", file=sys.stderr)
        return EXIT_USAGE
    if args.path or args.uri:
        from ._schema_file import installed_schema

        path = installed_schema()
        print(path.as_uri() if args.uri else path)
        return EXIT_OK
    from ._schema_file import schema_text

    sys.stdout.write(schema_text())
    return EXIT_OK


def _write(where: str, *, force: bool) -> int:
    from pathlib import Path, PurePath

    from .._readfile import DEFAULT_LIMIT, read_bounded
    from ..manifest._settings import locate_project
    from ._nolinks import StarterWriter, WriteRefused, refusals
    from ._schema_file import SCHEMA_FILE, is_tooldeck_schema, schema_text, shown_path

    settings = locate_project([])
    if where == _PROJECT_DEFAULT:
        root = settings.root if settings is not None else Path.cwd()
        relative = SCHEMA_FILE
    else:
        given = Path(where)
        root, relative = given.parent, PurePath(given.name)
        if given.suffix != ".json" or not given.name:
            print(f"tooldeck schema: --write {where}: name a .json file", file=sys.stderr)
            return EXIT_USAGE
    target = root / relative
    text = schema_text()
    refused = refusals(root, [], [relative])
    if refused:
        print(f"tooldeck schema: {refused[0]}; nothing was written", file=sys.stderr)
        return EXIT_USAGE

    def refreshed(existing: str) -> str:
        if not force and existing.strip() and not is_tooldeck_schema(existing):
            raise WriteRefused(
                f"{shown_path(target)} is not a tooldeck schema; not replacing it (--force does)"
            )
        return text

    existing = read_bounded(target) if target.exists() else None
    if isinstance(existing, bytes) and existing == text.encode("utf-8"):
        print(f"up to date: {shown_path(target)}")
        _point_at(target, settings.manifests if settings is not None else (), root)
        return EXIT_OK
    try:
        with StarterWriter(root) as writer:
            if existing is None:
                writer.create(relative, text)
            else:
                writer.replace(relative, DEFAULT_LIMIT, refreshed)
    except (WriteRefused, OSError, UnicodeDecodeError) as exc:
        print(f"tooldeck schema: {exc}; nothing was written", file=sys.stderr)
        return EXIT_USAGE
    print(f"{'wrote' if existing is None else 'refreshed'} {shown_path(target)}")
    _point_at(target, settings.manifests if settings is not None else (), root)
    return EXIT_OK


def _point_at(target: Path, manifests: tuple[Path, ...], root: Path) -> None:
    """Say which first line points the project's manifests at ``target``."""
    from ._schema_file import reference, shown_path

    folder = next((m for m in manifests if m.is_dir()), root / "manifests")
    line = reference(folder, target)
    if line is not None:
        where = shown_path(folder)
        print(f"first line of a manifest in {where}/: # yaml-language-server: $schema={line}")
