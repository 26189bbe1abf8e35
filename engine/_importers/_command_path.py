"""The command ``tooldeck import mcp`` writes: one that starts without an activated virtualenv.

An MCP client starts ``tooldeck serve`` (and with it every ``command:`` server
of the manifest) with its own environment: Claude Desktop, an IDE or a CI job
never sourced ``.venv/bin/activate``. A server installed into the virtualenv
(``pip install mcp-server-time``) puts its console script in the interpreter's
scripts folder, which is on ``PATH`` only while the virtualenv is activated. A
manifest saying ``command: mcp-server-time`` then works in the shell that ran
the import and nowhere else, and fails with "no command" when it matters.

So the command word is resolved the way starting the server resolves it (the
``PATH`` of this process), and written as the absolute path of what was found
when that is in the scripts folder of an activated environment (the running
interpreter's when it is a virtualenv, ``$VIRTUAL_ENV``'s, ``$CONDA_PREFIX``'s)
and ``PATH`` without those folders would not find the same file. A word not on
``PATH`` at all is looked up in the running interpreter's scripts folder
(``.venv/bin/tooldeck import mcp -- mcp-server-time`` without activating), and
written the same way. ``python -m server`` is the same case: ``python`` found
in the virtualenv's folder is written as that interpreter's path. A word found
on a plain ``PATH``, and a command already written as a path, are kept as
typed. The last link is not followed when comparing: a virtualenv's ``python``
is a link to the base interpreter, and only the link's path runs with the
virtualenv's packages.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["ResolvedCommand", "activated_folders", "resolve_command", "scripts_folders"]


@dataclass(frozen=True, kw_only=True)
class ResolvedCommand:
    """The command word to run and write, and why it differs from what was typed."""

    command: str
    """What was typed, or the absolute path of the program it names."""
    note: str | None = None
    """Why the path was written (None when ``command`` is the word as typed)."""


def scripts_folders() -> tuple[str, ...]:
    """The running interpreter's scripts folders: where its packages' console scripts are."""
    found = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    return tuple(dict.fromkeys(os.path.abspath(folder) for folder in found if folder))


def activated_folders(
    environ: Mapping[str, str], scripts: Iterable[str], *, in_virtualenv: bool
) -> tuple[str, ...]:
    """Folders that are on ``PATH`` only because an environment was activated.

    The interpreter's own scripts folders when it runs in a virtualenv, and the
    ``bin`` (``Scripts`` on Windows) folder of ``$VIRTUAL_ENV`` and ``$CONDA_PREFIX``.
    """
    folders = list(scripts) if in_virtualenv else []
    bin_name = "Scripts" if os.name == "nt" else "bin"
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = environ.get(variable, "")
        if prefix:
            folders.append(os.path.join(prefix, bin_name))
    return tuple(dict.fromkeys(os.path.abspath(folder) for folder in folders))


def resolve_command(
    word: str,
    *,
    environ: Mapping[str, str] | None = None,
    scripts: Iterable[str] | None = None,
    in_virtualenv: bool | None = None,
) -> ResolvedCommand:
    """``word`` (a command line's first word) as a manifest should hold it; see the module.

    ``environ`` (``os.environ``), ``scripts`` (:func:`scripts_folders`) and
    ``in_virtualenv`` (whether the interpreter runs in one) describe this
    process; tests pass their own.
    """
    if os.sep in word or (os.altsep and os.altsep in word) or not word:
        return ResolvedCommand(command=word)  # a path: found the same way with or without PATH
    values = os.environ if environ is None else environ
    own = tuple(scripts_folders() if scripts is None else scripts)
    virtual = sys.prefix != sys.base_prefix if in_virtualenv is None else in_virtualenv
    path = values.get("PATH", os.defpath)
    found = shutil.which(word, path=path)
    if found is None:
        for folder in own:
            found = shutil.which(word, path=folder)
            if found is not None:
                where = os.path.dirname(os.path.abspath(found))
                note = (
                    f"{word} is not on PATH; found it in this Python's scripts folder "
                    f"({where}) and wrote its full path"
                )
                return ResolvedCommand(command=os.path.abspath(found), note=note)
        return ResolvedCommand(command=word)  # starting it says "no command"
    found = os.path.abspath(found)
    activated = activated_folders(values, own, in_virtualenv=virtual)
    where = os.path.dirname(found)
    if not _among(where, activated):
        return ResolvedCommand(command=word)
    plain = os.pathsep.join(
        entry for entry in path.split(os.pathsep) if entry and not _among(entry, activated)
    )
    elsewhere = shutil.which(word, path=plain) if plain else None
    if elsewhere is not None and _same_file(elsewhere, found):
        return ResolvedCommand(command=word)
    note = (
        f"{word} is in {where}, which is on PATH only while its environment is activated "
        "(an MCP client starting tooldeck does not activate it); wrote its full path"
    )
    return ResolvedCommand(command=found, note=note)


def _among(folder: str, folders: tuple[str, ...]) -> bool:
    key = os.path.normcase(os.path.abspath(folder))
    return any(key == os.path.normcase(other) for other in folders)


def _same_file(one: str, other: str) -> bool:
    """The same file, the last link not followed: a virtualenv's ``python`` links to
    ``/usr/bin/python3``, and runs with the virtualenv's packages only by that link."""
    try:
        first, second = os.lstat(one), os.lstat(other)
    except OSError:
        return False
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)
