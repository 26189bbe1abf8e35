"""The ``tooldeck`` command line: parse -> build a registry -> execute one command."""

from tooldeck.cli._main import main

__all__ = ["main"]
