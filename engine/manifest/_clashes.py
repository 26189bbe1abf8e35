"""Names two manifests (or a manifest and code) both declare: found and located as values.

A file whose new names clash is held at its previous version by
:class:`~tooldeck.manifest._live.LiveManifests`; these functions only decide
which file and say why, with both declarations located (TD220).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._diagnostics import Diagnostic
from .._errors import DuplicateToolError
from .._yaml import YamlDocument, read_yaml
from ._build import Bundle
from ._loader import GROUP_PREFIX

__all__ = ["code_clash", "cross_file_clashes", "declared_names"]

Updates = Mapping[str, tuple[Bundle | None, YamlDocument | None]]
NameKey = tuple[str, str]
"""(kind, name): the same name may be a tool in one file and a prompt in another."""


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
    """The file declaring the name that clashed with code, and that clash, located."""
    name = exc.tool_name or ""
    for file, (bundle, doc) in updates.items():
        if bundle is None or doc is None:
            continue
        for (_, declared), path in declared_names(bundle):
            if declared == name:
                message = exc.message.replace(f" from {GROUP_PREFIX}{file}", "")
                diagnostic = Diagnostic(
                    code="TD220",
                    message=f"{message}; rename it",
                    location=doc.locate(path),
                    tool_name=name,
                )
                return file, [diagnostic]
    return next(iter(updates)), []


def _doc_for(file: str, updates: Updates) -> YamlDocument | None:
    if file in updates and updates[file][1] is not None:
        return updates[file][1]
    doc = read_yaml(file)
    return doc if doc.root is not None else None
