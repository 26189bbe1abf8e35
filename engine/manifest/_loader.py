"""Manifest files, one at a time: discover, parse, check, interpolate, build.

:func:`load_file` turns one file into a :class:`Bundle` (or located
diagnostics); :class:`tooldeck.manifest._live.LiveManifests` registers bundles
file by file (each file is one registry group, ``manifest:<path>``), and
:mod:`tooldeck.manifest._manifests` is its one-shot form. A file with errors
is not registered at all (its problems are reported, the other files still
load); warnings never block.

=====  ==========================================================
TD200  a path given to the loader does not exist or has no manifests
TD215  ``enabled_when`` is not a valid JMESPath expression
TD220  a tool or prompt name declared in two files (both reported)
TD299  processing one file failed inside tooldeck (an unexpected
       exception); that file is skipped, the others still load
=====  ==========================================================
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._diagnostics import Diagnostic, SourceLocation
from .._errors import DuplicateToolError
from .._readfile import read_text_lines
from .._registry import ToolRegistry
from .._yaml import YamlDocument, read_yaml
from ._build import Bundle, build_bundle
from ._interpolate import interpolate
from ._meta import check_document
from ._resolve import HandlerResolver, resolve_handler

if TYPE_CHECKING:
    from .._config import Config
    from .._secrets import Secrets

__all__ = [
    "GROUP_PREFIX",
    "SUFFIXES",
    "contained",
    "discover",
    "failure_reason",
    "load_file",
    "located",
    "register_config",
]

GROUP_PREFIX = "manifest:"
SUFFIXES = (".yaml", ".yml")


def discover(paths: Iterable[str | Path]) -> tuple[list[Path], list[Diagnostic]]:
    """Manifest files under ``paths``: files as given, folders searched for *.yaml/*.yml.

    Whatever is not a folder counts, FIFOs and devices included: the reader
    refuses those with a located TD200 (without opening them for reading), so
    they are reported rather than silently skipped. A file in a folder that is
    a link to somewhere outside the folder is not read (TD200): a pull request
    could otherwise point ``manifests/x.yaml`` at a file on the CI machine and
    have its text quoted in diagnostics. A file named on its own is read
    wherever it points.
    """
    files: list[Path] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.suffix in SUFFIXES
                and _not_a_folder(p)
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not found:
                problems.append(_nowhere("TD200", f"no *.yaml or *.yml manifests in {path}", path))
            files.extend(_inside(path, found, problems))
        elif path.exists():
            files.append(path)
        else:
            problems.append(_nowhere("TD200", f"no such file or directory: {path}", path))
    unique = list(dict.fromkeys(files))
    return unique, problems


def located(path: str | Path) -> str:
    """The absolute path of a file as named: its folder resolved, its own name kept.

    A manifest is known by this: a symlinked manifest stays itself (not the
    file it points at), and a manifest swapped for a symlink to ``/dev/zero``
    is still that manifest, which its reader then refuses, located.
    """
    absolute = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))


def _inside(folder: Path, found: list[Path], problems: list[Diagnostic]) -> list[Path]:
    """The files of ``found`` that resolve inside ``folder``; a TD200 for each that does not."""
    boundary = folder.resolve()
    kept = []
    for file in found:
        target = file.resolve()
        if target.is_relative_to(boundary):
            kept.append(file)
            continue
        message = (
            f"{file} is a link to {target}, outside {folder}; not read (name it with -m to "
            "read it anyway)"
        )
        problems.append(_nowhere("TD200", message, file))
    return kept


def _not_a_folder(path: Path) -> bool:
    """Something that exists (symlinks followed) and is not a folder; stat only, no open."""
    return path.exists() and not path.is_dir()


def _nowhere(code: str, message: str, path: Path) -> Diagnostic:
    return Diagnostic(code=code, message=message, location=SourceLocation(file=str(path)))


def load_file(
    path: str | Path,
    *,
    registry: ToolRegistry,
    config: Config,
    allowed: Sequence[str],
    app_class: type | None = None,
    environ: Mapping[str, str] | None = None,
    resolver: HandlerResolver = resolve_handler,
) -> tuple[YamlDocument, Bundle | None]:
    """Parse and build one file (no registration); problems are in the bundle/doc.

    Never raises for what the file contains: a manifest is untrusted, so an
    exception from any step (a bug, or a limit nobody foresaw, such as
    ``re.compile`` recursing on a pattern of 5,000 nested groups) becomes a
    TD299 diagnostic on this file, which is skipped while the others load.
    ``SystemExit`` from a handler module's import is contained too; Ctrl-C
    (``KeyboardInterrupt``) still stops the program.
    """
    try:
        return _load_file(
            path,
            registry=registry,
            config=config,
            allowed=allowed,
            app_class=app_class,
            environ=environ,
            resolver=resolver,
        )
    except BaseException as exc:
        if not contained(exc):
            raise
        reason = failure_reason(exc, registry.secrets)
        diagnostic = Diagnostic(
            code="TD299",
            message=f"loading this file failed inside tooldeck ({reason}); it was skipped",
            location=SourceLocation(file=str(path), line=1, column=1),
        )
        return YamlDocument(file=str(path), data=None, root=None, diagnostics=[diagnostic]), None


def contained(exc: BaseException) -> bool:
    """Whether a failure while loading is reported as TD299 rather than raised.

    Everything is contained (``SystemExit`` from a module's top level
    included) except a real Ctrl-C on the main thread; a watcher thread
    contains even a ``KeyboardInterrupt`` that module code raises.
    """
    if isinstance(exc, GeneratorExit):
        return False
    if isinstance(exc, KeyboardInterrupt):
        return threading.current_thread() is not threading.main_thread()
    return True


def failure_reason(exc: BaseException, secrets: Secrets) -> str:
    """``Type: message`` on one line, at most 300 characters, secrets masked before cutting."""
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())
    if secrets:  # before cutting: a cut secret would no longer be recognised
        reason = secrets.redact(reason)
    return reason if len(reason) <= 300 else reason[:297] + "..."


def _load_file(
    path: str | Path,
    *,
    registry: ToolRegistry,
    config: Config,
    allowed: Sequence[str],
    app_class: type | None,
    environ: Mapping[str, str] | None,
    resolver: HandlerResolver,
) -> tuple[YamlDocument, Bundle | None]:
    """The steps of :func:`load_file`: read, check, interpolate, build."""
    doc = read_yaml(path)
    if doc.diagnostics:
        return doc, None
    if doc.data is None:
        doc.diagnostics.append(
            Diagnostic(
                code="TD205",
                message="file has no content; a manifest needs at least `version: 1`",
                location=doc.locate(()),
            )
        )
        return doc, None
    if not isinstance(doc.data, dict):
        doc.diagnostics.append(
            Diagnostic(
                code="TD212",
                message="a manifest must be a mapping with `version: 1`",
                location=doc.locate(()),
            )
        )
        return doc, None
    # References resolve first, so `timeout: "${env:TIMEOUT:-5s}"` is checked as 5s.
    data: Any = doc.data
    problems: list[tuple[tuple[str | int, ...], str, str]] = []
    if doc.has_references:
        data, problems = interpolate(
            doc.data, config=config.data, secrets=registry.secrets, environ=environ
        )
    for where, code, message in problems:
        doc.diagnostics.append(Diagnostic(code=code, message=message, location=doc.locate(where)))
    schema_problems = check_document(doc, data)
    if schema_problems or problems:
        doc.diagnostics.extend(schema_problems)
        return doc, None
    bundle = build_bundle(
        doc,
        data,
        allowed=allowed,
        search_root=config.search_root(),
        app_class=app_class,
        resolver=resolver,
    )
    return doc, bundle


def register_config(registry: ToolRegistry, config: Config) -> list[Diagnostic]:
    """Register the web search and MCP servers the configuration's sections declare.

    A clash with a manifest's web search drops only the configured search,
    never the configured servers.
    """
    if config.web_search is None and not config.mcp_servers:
        return []
    problems = []
    group = "config:" + (config.source or "mapping")
    search = config.web_search
    for _ in range(2):
        try:
            registry.replace_group(group, servers=config.mcp_servers, web_search=search)
            break
        except DuplicateToolError as exc:
            label = "web search" if exc.kind == "web_search" else "MCP server"
            holder = "code" if exc.owner is None else exc.owner
            clash = (
                "is declared twice"
                if exc.owner == group
                else f"from {group} is already registered by {holder}"
            )
            problems.append(
                Diagnostic(
                    code="TD220",
                    message=f"{label} {exc.name!r} {clash}; remove one of them",
                    location=_config_location(config, exc.name),
                    tool_name=exc.name,
                )
            )
            if exc.kind != "web_search":
                break
            search = None
    return problems


def _config_location(config: Config, name: str | None) -> SourceLocation | None:
    """The line of the config key that declared ``name`` (a ``.properties`` key or YAML)."""
    if not config.source:
        return None
    key = "WebSearchTool" if name == "web_search" else None
    lines = read_text_lines(config.source)  # the file may have changed into anything since
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if text.startswith(("#", "!")):
            continue
        if (key and text.startswith(key)) or (name and name in text):
            return SourceLocation(file=config.source, line=number, column=line.find(text) + 1)
    return SourceLocation(file=config.source)
