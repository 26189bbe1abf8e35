"""The ``tooldeck`` command line: parse -> build a registry -> execute one command."""

from engine.cli.main import main

__all__ = ["main"]
