"""``tooldeck init``: a starter that lints clean and answers a call right away.

Writes a manifest with one tool, the handler module it points at and the
``[tool.tooldeck]`` settings (appended to an existing pyproject.toml, never
replacing one), so ``tooldeck lint && tooldeck call greet --args '{"name": "Ada"}'``
works in that folder at once. The manifest's first line points editors at the
project's copy of the meta-schema, ``schemas/tooldeck.schema.json`` (written
too unless it is there already), by a relative path that works on every
checkout (:mod:`tooldeck.cli._schema_file`).
Existing files are never overwritten, and nothing is written through a link:
a symlinked ``manifests/`` or file, or a hard-linked ``pyproject.toml``, is
refused before anything is written (:mod:`tooldeck.cli._nolinks`).
"""

from __future__ import annotations

import sys

from ._common import EXIT_OK, EXIT_USAGE

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

__all__ = ["add_arguments", "run"]

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
# Data an MCP client reads by URI (tooldeck serve), such as a file of the project:
# resources:
#   - {{uri: "docs://readme", name: readme, description: The README., file: README.md}}
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


def run(args: argparse.Namespace) -> int:
    from ._nolinks import WriteRefused

    try:
        return _init(args)
    except WriteRefused as exc:  # a swap after the checks: what was created is gone again
        print(f"tooldeck: {exc}; nothing was written", file=sys.stderr)
        return EXIT_USAGE
    except (OSError, UnicodeDecodeError) as exc:
        print(f"tooldeck: cannot create the starter: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _init(args: argparse.Namespace) -> int:
    import os
    from pathlib import PurePath

    from .._readfile import DEFAULT_LIMIT
    from ._nolinks import StarterWriter, refusals
    from ._schema_file import SCHEMA_FILE, schema_text

    root: Path = args.directory
    module: str = args.module
    if not module.isidentifier():
        print(f"tooldeck: --module {module!r} is not a Python module name", file=sys.stderr)
        return EXIT_USAGE
    manifest = PurePath("manifests", "hello.yaml")
    handlers = PurePath(f"{module}.py")
    pyproject = PurePath("pyproject.toml")
    # Links below the folder are refused before anything is written: a symlinked manifests/
    # or file would put the starter elsewhere, a hard-linked pyproject.toml would change
    # another file too. The writer enforces the same through descriptors, against swaps.
    # The schema copy is shared by every manifest of the project: kept when it is there.
    schema = None if os.path.lexists(root / SCHEMA_FILE) else SCHEMA_FILE
    created = [manifest, handlers, *([schema] if schema is not None else [])]
    problems = refusals(root, created, [pyproject])
    if problems:
        for problem in problems:
            print(f"tooldeck: {problem}", file=sys.stderr)
        print("tooldeck: nothing was written", file=sys.stderr)
        return EXIT_USAGE

    def settings(existing: str) -> str:
        if "[tool.tooldeck]" in existing:
            return ""
        separator = "" if not existing or existing.endswith("\n") else "\n"
        return separator + SETTINGS.format(module=module).lstrip("\n" if not existing else "")

    with StarterWriter(root) as writer:
        reference = PurePath("..", SCHEMA_FILE).as_posix()  # from manifests/
        writer.create(manifest, MANIFEST.format(schema=reference, module=module))
        writer.create(handlers, HANDLERS.format())
        if schema is not None:
            writer.create(schema, schema_text())
        existing = writer.append(pyproject, DEFAULT_LIMIT, settings)  # last: it cannot be undone
    if "[tool.tooldeck]" in existing:
        print(
            f"tooldeck: {root / pyproject} already has [tool.tooldeck]; left as it is",
            file=sys.stderr,
        )
    files = ", ".join(str(root / path) for path in created)
    print(f"created {files} and [tool.tooldeck] in {root / pyproject}")
    where = "" if root.resolve() == root.cwd().resolve() else f"cd {root} && "
    print(f'next: {where}tooldeck lint && tooldeck call greet --args \'{{"name": "Ada"}}\'')
    return EXIT_OK
