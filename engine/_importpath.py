"""The current directory is importable for the CLI, after every installed package.

Handler modules of the project being worked on (``--allow-handlers
myapp.tools``) import from the current directory, as uvicorn's ``--app-dir``
default does. A directory on ``sys.path`` would also shadow installed packages
that live behind import hooks (editable installs), and ``sys.path[0]`` would
shadow everything, so a local ``yaml.py`` or ``handlers/`` could replace the
code tooldeck runs. Instead a finder for the current directory goes at the
very end of ``sys.meta_path``: it is asked only for top-level names no
installed package provides.

That still includes the optional imports of tooldeck's own dependencies
(``copy`` tries ``org.python.core``, jsonschema ``webcolors`` and other
format checkers), which then find the project's files of those names.
``tooldeck lint --static`` promises to run nothing of the project, so it
adds no finder: it looks for handler modules in these folders itself.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["ProjectFinder", "project_importable_last"]


class ProjectFinder(importlib.abc.MetaPathFinder):
    """Finds top-level modules in one directory, consulted after all other finders."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if path is not None or "." in fullname:
            return None  # submodules are found through their package's __path__
        return importlib.machinery.PathFinder.find_spec(fullname, [self.directory])


def project_importable_last(directory: str | None = None) -> ProjectFinder | None:
    """Make ``directory`` (the current one by default) importable, last; idempotent.

    Returns the finder it added (None when one was already there), so an
    in-process caller can take it out again.
    """
    directory = os.path.abspath(directory or os.getcwd())
    for finder in sys.meta_path:
        if isinstance(finder, ProjectFinder) and finder.directory == directory:
            return None
    added = ProjectFinder(directory)
    sys.meta_path.append(added)
    return added
