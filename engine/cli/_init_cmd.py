"""``tooldeck init``: a starter that lints clean and answers a call right away.

Writes a manifest with one tool, the handler module it points at and the
``[tool.tooldeck]`` settings (appended to an existing pyproject.toml, never
replacing one), so ``tooldeck lint && tooldeck call greet --args '{"name": "Ada"}'``
works in that folder at once. The manifest's first line points editors at the
installed meta-schema (``tooldeck schema --path``) for completion and checks.
Existing files are never overwritten.
"""

from __future__ import annotations

import sys

from tooldeck.cli._common import EXIT_OK, EXIT_USAGE

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

__all__ = ["add_arguments", "run", "schema_path"]

MANIFEST = """\
# yaml-language-server: $schema={schema}
version: 1
bundle: hello
description: A starter bundle; add tools here and run `tooldeck lint`.
tools:
  - name: greet
    description: Greet someone by name with a short, friendly sentence.
    handler: {module}:greet
    params:
      - name: name
        type: string
        required: true
        description: Who to greet, e.g. Ada
"""

HANDLERS = '''\
"""Handlers for manifests/hello.yaml: plain functions, called with validated arguments."""


def greet(name: str) -> str:
    """Greet someone by name with a short, friendly sentence."""
    return f"Hello, {{name}}!"
'''

SETTINGS = """
[tool.tooldeck]
manifests = ["manifests"]
allow_handlers = ["{module}"]
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pathlib import Path

    parser.add_argument(
        "directory", nargs="?", type=Path, default=Path("."), help="where (default: here)"
    )
    parser.add_argument(
        "--module", default="hello_tools", help="name of the handler module (default: hello_tools)"
    )


def schema_path() -> Path:
    """The meta-schema file shipped inside the installed package."""
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "schemas" / "manifest.schema.json"


def run(args: argparse.Namespace) -> int:
    try:
        return _init(args)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"tooldeck: cannot create the starter: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _init(args: argparse.Namespace) -> int:
    import os

    root: Path = args.directory
    module: str = args.module
    if not module.isidentifier():
        print(f"tooldeck: --module {module!r} is not a Python module name", file=sys.stderr)
        return EXIT_USAGE
    manifest = root / "manifests" / "hello.yaml"
    handlers = root / f"{module}.py"
    pyproject = root / "pyproject.toml"
    # lexists: a dangling symlink counts as taken; writing through it would land elsewhere.
    taken = [str(p) for p in (manifest, handlers) if os.path.lexists(p)]
    if taken:
        print(f"tooldeck: not overwriting {', '.join(taken)}", file=sys.stderr)
        return EXIT_USAGE
    if pyproject.is_symlink():
        print(f"tooldeck: {pyproject} is a symlink; not writing through it", file=sys.stderr)
        return EXIT_USAGE
    existing = pyproject.read_text("utf-8") if pyproject.is_file() else ""
    if "[tool.tooldeck]" in existing:
        print(f"tooldeck: {pyproject} already has [tool.tooldeck]; left as it is", file=sys.stderr)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(
        MANIFEST.format(schema=schema_path().as_uri(), module=module), encoding="utf-8"
    )
    handlers.write_text(HANDLERS.format(), encoding="utf-8")
    if "[tool.tooldeck]" not in existing:
        separator = "" if not existing or existing.endswith("\n") else "\n"
        pyproject.write_text(
            existing
            + separator
            + SETTINGS.format(module=module).lstrip("\n" if not existing else ""),
            encoding="utf-8",
        )
    print(f"created {manifest}, {handlers} and [tool.tooldeck] in {pyproject}")
    where = "" if root.resolve() == root.cwd().resolve() else f"cd {root} && "
    print(f'next: {where}tooldeck lint && tooldeck call greet --args \'{{"name": "Ada"}}\'')
    return EXIT_OK
