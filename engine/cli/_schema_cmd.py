"""``tooldeck schema``: print the manifest meta-schema (JSON Schema 2020-12)."""

from __future__ import annotations

from tooldeck.cli._common import EXIT_OK

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse


__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``schema`` takes no options beyond ``-h``."""


def run(args: argparse.Namespace) -> int:
    import json

    from tooldeck.manifest._metaschema import manifest_schema

    print(json.dumps(manifest_schema(), indent=2, ensure_ascii=False))
    return EXIT_OK
