"""File tools that change the project: write, append, edit, move, make folders, delete.

They are off unless the operator sets ``tooldeck: {files: {write: true}}`` in the application
config; every tool checks that itself (a manifest may reference it without ``enabled_when``), and
with it off even ``dry_run`` refuses. The model cannot change the config.

What they promise, whatever the model sends and whatever another process does meanwhile:

* **Changes stay inside the project.** A path's folder is resolved and verified through
  descriptors, and the final name is only used relative to that folder's descriptor, never
  followed (:mod:`tooldeck.handlers._confined_write`). A symlink as the target of a write, edit
  or append is refused; delete and move act on the link itself.
* **Never in ``.git``** (any component, any case) and never on a path matching the operator's
  ``tooldeck.files.protect`` globs; a folder holding such a path is not deleted or moved whole.
* **Atomic**: file content is written to a temporary file in the same folder and renamed over
  the name, so a reader sees the old file or the new one, never a torn one.
* **Bounded**: a resulting file over ``tooldeck.files.max_write_bytes`` (5 MiB) is refused before
  anything is written; answers carry a unified diff cut at :data:`MAX_DIFF_CHARS`.

The tools must stay *defined* here: a manifest's handler reference resolves only to callables
whose ``__module__`` is the module named (``tooldeck.handlers.files_write:write_file``).
"""

import os
from contextlib import ExitStack
from pathlib import Path

from tooldeck import ToolContext, ToolFailed

from ._confined import Project
from ._confined_write import (
    Rules,
    Slot,
    census,
    kind_of,
    make_folder,
    read_regular,
    remove_tree,
    rename,
    slot,
    write_replacing,
)
from ._diff import MAX_DIFF_CHARS
from ._write_steps import (
    DEFAULT_MAX_WRITE_BYTES,
    WHAT,
    answer,
    encoded,
    existing,
    file_diff,
    refusals,
    settings,
    too_large,
    writable,
)

__all__ = [
    "DEFAULT_MAX_WRITE_BYTES",
    "MAX_DIFF_CHARS",
    "append_file",
    "delete_path",
    "edit_file",
    "make_dir",
    "move_path",
    "write_file",
]


# --- the tools ------------------------------------------------------------------------------


def write_file(
    path: str,
    content: str,
    dry_run: bool = False,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, object]:
    """Create a text file in the project, or replace one whole; missing folders are created.

    Returns "path", "action" ("created" or "replaced"), "bytes" written and a unified "diff".

    Args:
        path: File path relative to the project directory, e.g. "src/app.py".
        content: The file's complete new content.
        dry_run: Change nothing; answer what would happen, with the diff.
    """
    cap, rules = settings(context)
    data = encoded(content, "content")
    if len(data) > cap:
        raise too_large(path, len(data), cap)
    with (
        refusals(),
        Project(project_dir) as project,
        slot(project, path, rules, create_parents=not dry_run) as place,
    ):
        kind = writable(place)
        old, mode = read_regular(place, cap) if kind == "file" else (None, None)
        if old is not None and len(old) > cap:
            diff = "the old file is over the size cap, no diff"
        else:
            diff = file_diff(place.rel, old, data)
        if not dry_run:
            write_replacing(place, data, mode)
        action = "replaced" if kind == "file" else "created"
        return answer(place, action, dry_run, bytes=len(data), diff=diff)


def append_file(
    path: str,
    content: str,
    dry_run: bool = False,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, object]:
    """Add text at the end of a text file in the project (created, with its folders, if missing).

    Returns "path", "action" ("appended" or "created"), "bytes" added and a unified "diff".

    Args:
        path: File path relative to the project directory.
        content: The text to add; include a leading newline if the file may not end with one.
        dry_run: Change nothing; answer what would happen, with the diff.

    Why a copy and a rename rather than ``O_APPEND``: a reader never sees half an append, the
    size cap holds for the whole result, and a file hard-linked from outside the project is not
    written through (the project's name gets the new file, the other link keeps the old one).
    The cost is a copy of at most the size cap, and an append made by another process between the
    read and the rename is lost.
    """
    cap, rules = settings(context)
    data = encoded(content, "content")
    with (
        refusals(),
        Project(project_dir) as project,
        slot(project, path, rules, create_parents=not dry_run) as place,
    ):
        kind = writable(place)
        old, mode = existing(place, cap, text=True) if kind == "file" else (b"", None)
        new = old + data
        if len(new) > cap:
            raise too_large(place.rel, len(new), cap)
        if not dry_run:
            write_replacing(place, new, mode)
        action = "appended" if kind == "file" else "created"
        return answer(place, action, dry_run, bytes=len(data), diff=file_diff(place.rel, old, new))


def _one_match(text: str, old_text: str, rel: str) -> int:
    """Where the one occurrence of ``old_text`` starts; refused when none or several."""
    count = text.count(old_text)
    first = text.find(old_text)
    if count == 0:
        hint = (
            " (the file has CRLF line endings: send them in old_text)"
            if "\r\n" in text and "\r\n" not in old_text
            else ""
        )
        raise ToolFailed(
            f"old_text was not found in {rel!r}{hint}; read the file again and copy the exact "
            "text, including indentation and line breaks",
            kind="not_found",
        )
    if count > 1 or text.find(old_text, first + 1) != -1:
        times = f"{count} times" if count > 1 else "more than once (overlapping)"
        raise ToolFailed(
            f"old_text occurs {times} in {rel!r}; include more surrounding lines in old_text so "
            "that it matches exactly one place",
            kind="invalid_arguments",
        )
    return first


def edit_file(
    path: str,
    old_text: str,
    new_text: str,
    dry_run: bool = False,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, object]:
    """Replace one exact, unique piece of text in a text file in the project.

    old_text must occur exactly once (copy it from read_file, with its indentation); if it
    occurs several times, include more surrounding lines. Returns "path", "action", "bytes" of
    the new file and a unified "diff".

    Args:
        path: File path relative to the project directory.
        old_text: The exact text to replace, occurring exactly once in the file.
        new_text: The text to put in its place (empty to delete it).
        dry_run: Change nothing; answer what would happen, with the diff.
    """
    cap, rules = settings(context)
    if not old_text:
        raise ToolFailed(
            "old_text is empty; send the exact text to replace (use append_file to add text at "
            "the end, write_file to replace the whole file)",
            kind="invalid_arguments",
        )
    new_bytes = encoded(new_text, "new_text")
    with refusals(), Project(project_dir) as project, slot(project, path, rules) as place:
        writable(place, allow_missing=False)
        old, mode = existing(place, cap, text=True)
        text = old.decode("utf-8")
        start = _one_match(text, old_text, place.rel)
        prefix, suffix = text[:start].encode(), text[start + len(old_text) :].encode()
        new = prefix + new_bytes + suffix
        if len(new) > cap:
            raise too_large(place.rel, len(new), cap)
        action = "edited" if new != old else "unchanged"
        if not dry_run and new != old:
            write_replacing(place, new, mode)
        return answer(place, action, dry_run, bytes=len(new), diff=file_diff(place.rel, old, new))


def make_dir(
    path: str, dry_run: bool = False, *, project_dir: Path, context: ToolContext
) -> dict[str, object]:
    """Create a folder in the project, with any missing parent folders.

    An existing folder is fine: "action" is then "exists". Returns "path", "action" and the
    folders created.

    Args:
        path: Folder path relative to the project directory, e.g. "src/utils".
        dry_run: Change nothing; answer what would happen.
    """
    _, rules = settings(context)
    with (
        refusals(),
        Project(project_dir) as project,
        slot(project, path, rules, create_parents=not dry_run) as place,
    ):
        kind = kind_of(place.lstat)
        if kind == "dir":
            return answer(place, "exists", dry_run)
        if kind != "missing":
            what = WHAT.get(kind, "FIFO, socket or device")
            raise FileExistsError(f"{place.rel!r} exists and is a {what}, not a folder")
        if not dry_run:
            make_folder(place)
        made = answer(place, "created", dry_run)
        key = "would_create_folders" if dry_run else "created_folders"
        made[key] = [*place.missing, place.rel]
        return made


def delete_path(
    path: str,
    recursive: bool = False,
    dry_run: bool = False,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, object]:
    """Delete a file, a symbolic link (never what it points to) or a folder in the project.

    A folder that is not empty is deleted only with recursive=true. Returns "path", "action",
    "type" and, for a folder, how many "files" and "folders" were inside.

    Args:
        path: File or folder path relative to the project directory.
        recursive: Also delete everything inside a folder.
        dry_run: Change nothing; answer what would be deleted.
    """
    _, rules = settings(context)
    with refusals(), Project(project_dir) as project, slot(project, path, rules) as place:
        kind = kind_of(place.lstat)
        if kind == "missing":
            raise FileNotFoundError(f"{place.rel!r} does not exist; nothing to delete")
        if kind == "special":
            raise ValueError(f"{place.rel!r} is a FIFO, socket or device; it is not deleted")
        if kind != "dir":
            if not dry_run:
                os.unlink(place.name, dir_fd=place.verify())
            return answer(place, "deleted", dry_run, type=WHAT[kind])
        inside = census(place, rules)
        if inside.files + inside.folders and not recursive:
            raise ValueError(
                f"{place.rel!r} is a folder holding {inside.files} files and {inside.folders} "
                "folders; send recursive=true to delete it with everything inside"
            )
        if not dry_run:
            remove_tree(place)
        return answer(
            place, "deleted", dry_run, type="folder", files=inside.files, folders=inside.folders
        )


def move_path(
    source: str,
    destination: str,
    overwrite: bool = False,
    dry_run: bool = False,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, object]:
    """Move or rename a file, symbolic link or folder inside the project.

    Missing folders of the destination are created. An existing destination is replaced only
    with overwrite=true, and only by the same type (a file by a file, an empty folder by a
    folder). Returns "source", "destination" and "action".

    Args:
        source: The file or folder to move, relative to the project directory.
        destination: Its new path, relative to the project directory.
        overwrite: Replace an existing destination of the same type.
        dry_run: Change nothing; answer what would happen.
    """
    _, rules = settings(context)
    with refusals(), Project(project_dir) as project, ExitStack() as stack:
        src = stack.enter_context(slot(project, source, rules))
        dst = stack.enter_context(slot(project, destination, rules))
        kind, action = _check_move(src, dst, overwrite, rules)
        if dst.parent is None and not dry_run:  # create its folders only now it may move
            dst = stack.enter_context(slot(project, destination, rules, create_parents=True))
        if not dry_run:
            rename(src, dst)
        moved = answer(dst, action, dry_run, source=src.rel, destination=dst.rel, type=kind)
        del moved["path"]
        return moved


def _check_move(src: Slot, dst: Slot, overwrite: bool, rules: Rules) -> tuple[str, str]:
    """The moved thing's type and "moved"/"replaced", or a refusal saying why not."""
    kind, there = kind_of(src.lstat), kind_of(dst.lstat)
    if kind == "missing":
        raise FileNotFoundError(f"{src.rel!r} does not exist; nothing to move")
    if kind == "special":
        raise ValueError(f"{src.rel!r} is a FIFO, socket or device; it is not moved")
    if dst.rel == src.rel:
        raise ValueError(f"source and destination are both {src.rel!r}; nothing to move")
    if kind == "dir" and (dst.rel + "/").startswith(src.rel + "/"):
        raise ValueError(f"{src.rel!r} cannot be moved into itself ({dst.rel!r})")
    if kind == "dir":
        census(src, rules)  # refuses a .git or protected path inside before anything moves
    if there == "missing":
        return WHAT[kind], "moved"
    if not overwrite:
        raise FileExistsError(
            f"{dst.rel!r} already exists; send overwrite=true to replace it, or choose another name"
        )
    if there == "special":
        raise ValueError(f"{dst.rel!r} is a FIFO, socket or device; it is not replaced")
    if (kind == "dir") != (there == "dir"):
        raise IsADirectoryError(
            f"{dst.rel!r} is a {WHAT[there]} and {src.rel!r} a {WHAT[kind]}: a folder is never "
            "replaced by a file or a file by a folder; delete it first or choose another name"
        )
    if there == "dir" and (found := census(dst, rules)).files + found.folders:
        raise FileExistsError(
            f"{dst.rel!r} is a folder that is not empty; delete it first or choose another name"
        )
    return WHAT[kind], "replaced"
