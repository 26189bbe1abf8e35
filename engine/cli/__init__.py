"""The ``tooldeck`` command line: parse -> build a registry -> execute one command."""

from ._main import main

__all__ = ["main"]
