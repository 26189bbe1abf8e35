"""``tooldeck schema``: print the manifest meta-schema (JSON Schema 2020-12), or where it is.

``--path`` prints the installed file, for an editor's ``$schema`` setting:
``# yaml-language-server: $schema=<that path as a file:// URI>`` at the top of
a manifest (``tooldeck init`` writes it), or the YAML extension's
``yaml.schemas`` setting mapping the file to ``manifests/*.yaml``.
"""

from __future__ import annotations

from tooldeck.cli._common import EXIT_OK

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse


__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path", action="store_true", help="print where the installed schema file is instead"
    )
    parser.add_argument(
        "--uri", action="store_true", help="print it as a file:// URI (for $schema comments)"
    )


def run(args: argparse.Namespace) -> int:
    if args.path or args.uri:
        from tooldeck.cli._init_cmd import schema_path

        path = schema_path()
        print(path.as_uri() if args.uri else path)
        return EXIT_OK
    import json

    from tooldeck.manifest._metaschema import manifest_schema

    print(json.dumps(manifest_schema(), indent=2, ensure_ascii=False))
    return EXIT_OK
