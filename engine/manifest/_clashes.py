"""Names two manifests (or a manifest and code) both declare: found and located as values.

A file whose new names clash is held at its previous version by
:class:`~tooldeck.manifest._live.LiveManifests`; these functions only decide
which file and say why, with both declarations located (TD220).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._diagnostics import Diagnostic
from .._entries import KIND_LABELS
from .._errors import DuplicateToolError
from .._yaml import YamlDocument, read_yaml
from ._build import Bundle, key_path
from ._loader import GROUP_PREFIX

__all__ = ["code_clash", "cross_file_clashes", "declared_names"]

Updates = Mapping[str, tuple[Bundle | None, YamlDocument | None]]
_LABELS: Mapping[str, str] = {str(kind): label for kind, label in KIND_LABELS.items()}
NameKey = tuple[str, str]
"""(kind, name): the same name may be a tool in one file and a prompt in another; a
resource's name here is its URI (or template), which is what the registry keys it by."""


def declared_names(bundle: Bundle) -> list[tuple[NameKey, tuple[str | int, ...]]]:
    """Every name ``bundle`` declares, with the document path of its declaration."""
    out: list[tuple[NameKey, tuple[str | int, ...]]] = []
    for kind, paths in (
        ("tool", bundle.tool_paths),
        ("prompt", bundle.prompt_paths),
        ("MCP server", bundle.server_paths),
    ):
        for name, path in paths.items():
            out.append(((kind, name), (*path, "name")))
    for key in bundle.resource_paths:  # a resource is known by its URI (or template)
        out.append((("resource", key), key_path(bundle, key)))
    if bundle.web_search is not None:
        out.append((("web search", "web_search"), ("web_search",)))
    return out


def cross_file_clashes(
    good: Mapping[str, Bundle],
    updates: Updates,
    retried: set[str],
    order: Callable[[str], tuple[int, str]],
) -> list[tuple[str, list[Diagnostic]]]:
    """Updated files whose names another file already holds, with both places located.

    Files the user changed claim their names before files merely retried, so
    an edit wins over a file that was already waiting.
    """
    owners: dict[NameKey, tuple[str, Any]] = {}
    for file, current in good.items():
        if file not in updates:
            for key, path in declared_names(current):
                owners[key] = (file, path)
    held: list[tuple[str, list[Diagnostic]]] = []
    for file in sorted(updates, key=lambda f: (f in retried, order(f))):
        bundle, doc = updates[file]
        if bundle is None or doc is None:
            continue
        clashes = [(key, path) for key, path in declared_names(bundle) if key in owners]
        if not clashes:
            for key, path in declared_names(bundle):
                owners[key] = (file, path)
            continue
        found: list[Diagnostic] = []
        for (kind, name), path in clashes:
            other_file, other_path = owners[kind, name]
            other_doc = _doc_for(other_file, updates)
            here = doc.locate(path)
            there = other_doc.locate(other_path) if other_doc else None
            found.append(
                Diagnostic(
                    code="TD220",
                    tool_name=name,
                    location=here,
                    message=f"{kind} {name!r} is also declared at {there or other_file}",
                )
            )
            if there is not None:
                found.append(
                    Diagnostic(
                        code="TD220",
                        tool_name=name,
                        location=there,
                        message=f"{kind} {name!r} is also declared at {here}",
                    )
                )
        held.append((file, found))
    return held


def code_clash(updates: Updates, exc: DuplicateToolError) -> tuple[str, list[Diagnostic]]:
    """The file whose name the registry refused (code or another layer holds it), located.

    The registry says which group tried to take which name and who holds it;
    the words are this layer's: the file is where the diagnostic points, so
    it is not named again.
    """
    file = (exc.group or "").removeprefix(GROUP_PREFIX)
    if exc.group is None or file not in updates:  # not a file of this swap: the first, unlocated
        return next(iter(updates)), []
    bundle, doc = updates[file]
    label = _LABELS.get(exc.kind, exc.kind)
    declared = _LABELS["tool"] if exc.kind == "tool_use" else label  # a use declares a tool
    where = dict(declared_names(bundle)).get((declared, exc.name)) if bundle is not None else None
    holder = "code" if exc.owner is None else exc.owner
    diagnostic = Diagnostic(
        code="TD220",
        message=f"{label} {exc.name!r} is already registered by {holder}; rename it",
        location=doc.locate(where) if doc is not None and where is not None else None,
        tool_name=exc.name,
    )
    return file, [diagnostic]


def _doc_for(file: str, updates: Updates) -> YamlDocument | None:
    if file in updates and updates[file][1] is not None:
        return updates[file][1]
    doc = read_yaml(file)
    return doc if doc.root is not None else None
