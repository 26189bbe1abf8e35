"""The bundled files pack's resources: ``project://layout`` and ``project:///{+path}``.

An MCP client reads these by URI (``files.yaml`` declares them); they answer with the same
confinement as the file tools. A module apart from :mod:`tooldeck.handlers.resources`, which
the engine itself uses for ``file:`` resources (also under ``tooldeck lint --static``, which must
import no tool module).
"""

import mimetypes
from pathlib import Path

from tooldeck import ResourceContents

from .files import list_dir
from .resources import read_project_file

__all__ = ["MAX_PROJECT_FILE_BYTES", "project_file", "project_layout"]

MAX_PROJECT_FILE_BYTES = 2 * 1024 * 1024
"""The most a ``project:///{+path}`` read returns (the bundled template resource): a client
reads a file whole, unlike read_file's pages, so the cap is lower than a declared file's."""


def project_file(path: str, project_dir: Path) -> ResourceContents:
    """Any file of the project, by its path: the bundled ``project:///{+path}`` template.

    Text (UTF-8) is returned as text, anything else as bytes, with a type guessed from the name;
    the same confinement as :func:`read_project_file` applies, capped at
    :data:`MAX_PROJECT_FILE_BYTES`.
    """
    data = read_project_file(path, project_dir, MAX_PROJECT_FILE_BYTES)
    guessed = mimetypes.guess_type(path, strict=False)[0]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ResourceContents("", guessed or "application/octet-stream", data=data)
    if guessed is None or not (guessed.startswith("text/") or guessed.endswith(("json", "xml"))):
        guessed = "text/plain"
    return ResourceContents("", guessed, text=text)


def project_layout(project_dir: Path) -> list[dict[str, object]]:
    """The files and folders at the top of the project: the bundled ``project://layout``.

    What ``list_dir`` answers for the project root, so a client sees at a glance what the
    project holds (hidden and build folders skipped, at most 200 entries).
    """
    return list_dir(project_dir)
