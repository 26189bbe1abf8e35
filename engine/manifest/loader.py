"""Load manifest files into a registry: discover, parse, check, interpolate, build, register.

Each file is one registry group (``manifest:<path>``), swapped in atomically
with :meth:`ToolRegistry.replace_group`. A file with errors is not
registered at all (its problems are reported, the other files still load);
warnings never block. Problems are collected as values in
:class:`LoadResult`; :meth:`LoadResult.raise_for_errors` turns them into a
:class:`ManifestError` for callers that want an exception.

=====  ==========================================================
TD200  a path given to the loader does not exist or has no manifests
TD215  ``enabled_when`` is not a valid JMESPath expression
TD220  a tool or prompt name declared in two files (both reported)
=====  ==========================================================
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.diagnostics import Diagnostic, Severity, SourceLocation
from engine.errors import DuplicateToolError, ManifestError
from engine.manifest.build import Bundle, build_bundle
from engine.manifest.interpolate import interpolate
from engine.manifest.metaschema import check_document
from engine.manifest.resolve import DEFAULT_ALLOWED
from engine.manifest.yamlsource import YamlDocument, read_yaml
from engine.registry import GroupContent, ToolRegistry
from engine.secrets import Secrets

if TYPE_CHECKING:
    from engine.config import Config

__all__ = ["GROUP_PREFIX", "LoadResult", "discover", "load_file", "load_manifests"]

GROUP_PREFIX = "manifest:"
SUFFIXES = (".yaml", ".yml")


@dataclass
class LoadResult:
    """What a load found: per-file bundles and every diagnostic, in file order."""

    files: list[str] = field(default_factory=list)
    bundles: dict[str, Bundle] = field(default_factory=dict)
    documents: dict[str, YamlDocument] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)
    """Files whose entries are now in the registry."""
    dropped: set[str] = field(default_factory=set)
    """Files that lost an entry to a name declared earlier in another file."""
    keepers: list[Diagnostic] = field(default_factory=list)
    """TD220s at the first declaration of a clashing name: reported, but not failing it."""

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_for_errors(self) -> None:
        """Raise :class:`ManifestError` carrying every error, if there are any."""
        if self.errors:
            raise ManifestError(self.errors)


def discover(paths: Iterable[str | Path]) -> tuple[list[Path], list[Diagnostic]]:
    """Manifest files under ``paths``: files as given, folders searched for *.yaml/*.yml."""
    files: list[Path] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.suffix in SUFFIXES
                and p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not found:
                problems.append(_nowhere("TD200", f"no *.yaml or *.yml manifests in {path}", path))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append(_nowhere("TD200", f"no such file or directory: {path}", path))
    unique = list(dict.fromkeys(files))
    return unique, problems


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
) -> tuple[YamlDocument, Bundle | None]:
    """Parse and build one file (no registration); problems are in the bundle/doc."""
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
    group = GROUP_PREFIX + doc.file
    bundle = build_bundle(
        doc,
        data,
        allowed=allowed,
        validate=lambda spec: registry.validate_spec(spec, group=group),
        search_root=config.search_root(),
        app_class=app_class,
    )
    return doc, bundle


def load_manifests(
    paths: Iterable[str | Path],
    *,
    registry: ToolRegistry | None = None,
    config: Config | Mapping[str, Any] | str | Path | None = None,
    allowed_handlers: Iterable[str] = (),
    app_class: type | None = None,
    register: bool = True,
    environ: Mapping[str, str] | None = None,
) -> tuple[ToolRegistry, LoadResult]:
    """Load manifests into ``registry`` (a new one when None) and report what happened.

    ``allowed_handlers`` extends the default handler prefix ``handlers``;
    ``app_class`` decides ``supported_for``; ``register=False`` only checks.
    """
    paused = gc.isenabled()
    gc.disable()  # a load builds many long-lived objects; collecting midway only costs time
    try:
        return _load(paths, registry, config, allowed_handlers, app_class, register, environ)
    finally:
        if paused:
            gc.enable()


def _load(  # noqa: PLR0917 - the arguments of load_manifests, passed through
    paths: Iterable[str | Path],
    registry: ToolRegistry | None,
    config: Config | Mapping[str, Any] | str | Path | None,
    allowed_handlers: Iterable[str],
    app_class: type | None,
    register: bool,
    environ: Mapping[str, str] | None,
) -> tuple[ToolRegistry, LoadResult]:
    from engine.config import Config, load_config

    cfg = config if isinstance(config, Config) else load_config(config)
    if registry is None:
        registry = ToolRegistry(config=cfg.data)
    allowed = tuple(dict.fromkeys((*DEFAULT_ALLOWED, *allowed_handlers)))
    result = LoadResult()
    result.diagnostics.extend(cfg.diagnostics)
    files, problems = discover(paths)
    result.diagnostics.extend(problems)
    for path in files:
        doc, bundle = load_file(
            path,
            registry=registry,
            config=cfg,
            allowed=allowed,
            app_class=app_class,
            environ=environ,
        )
        result.files.append(doc.file)
        result.documents[doc.file] = doc
        result.diagnostics.extend(doc.diagnostics)
        if bundle is not None:
            result.bundles[doc.file] = bundle
            result.diagnostics.extend(bundle.diagnostics)
    _cross_file_duplicates(result)
    if register:
        _register(registry, result, cfg)
    result.diagnostics[:] = [_redacted(d, registry.secrets) for d in result.diagnostics]
    return registry, result


def _cross_file_duplicates(result: LoadResult) -> None:
    """A name declared in two files is an error at both places; the first file keeps it."""
    kinds = (
        ("tool", "tools", "tool_paths"),
        ("prompt", "prompts", "prompt_paths"),
        ("MCP server", "servers", "server_paths"),
    )
    for kind, attr, paths_attr in kinds:
        seen: dict[str, tuple[Bundle, Any]] = {}
        for bundle in result.bundles.values():
            keep = []
            for spec in getattr(bundle, attr):
                path = getattr(bundle, paths_attr)[spec.name]
                if spec.name in seen:
                    first_bundle, first_path = seen[spec.name]
                    _clash(
                        result,
                        kind,
                        spec.name,
                        (bundle, (*path, "name")),
                        (first_bundle, (*first_path, "name")),
                    )
                    continue
                seen[spec.name] = (bundle, path)
                keep.append(spec)
            setattr(bundle, attr, keep)
    searching = [b for b in result.bundles.values() if b.web_search is not None]
    for bundle in searching[1:]:
        _clash(
            result,
            "web search",
            "web_search",
            (bundle, ("web_search",)),
            (searching[0], ("web_search",)),
        )
        bundle.web_search = None


def _clash(
    result: LoadResult,
    kind: str,
    name: str,
    here: tuple[Bundle, tuple[str | int, ...]],
    there: tuple[Bundle, tuple[str | int, ...]],
) -> None:
    """Report one duplicate at both of its places."""
    here_at = result.documents[here[0].file].locate(here[1])
    there_at = result.documents[there[0].file].locate(there[1])
    for at, other in ((here_at, there_at), (there_at, here_at)):
        diagnostic = Diagnostic(
            code="TD220",
            message=f"{kind} {name!r} is also declared at {other}",
            location=at,
            tool_name=name,
        )
        result.diagnostics.append(diagnostic)
    here[0].diagnostics.append(result.diagnostics[-2])
    result.dropped.add(here[0].file)
    result.keepers.append(result.diagnostics[-1])


def _register(registry: ToolRegistry, result: LoadResult, config: Config) -> None:
    # A duplicate fails the file that repeats the name; the first file keeps it.
    keepers = {id(d) for d in result.keepers}
    failed = {
        d.location.file for d in result.errors if d.location is not None and id(d) not in keepers
    }
    staged = {f: b for f, b in result.bundles.items() if f not in failed}
    while staged:  # one swap for every file; a file clashing with code is dropped and retried
        contents = {GROUP_PREFIX + f: _content(b) for f, b in staged.items()}
        try:
            registry.replace_groups(contents)
        except DuplicateToolError as exc:
            culprit = _declaring(staged, exc.tool_name)
            result.diagnostics.append(_conflict(result, staged.pop(culprit), exc))
            continue
        result.registered.extend(f for f, b in staged.items() if b.active)
        break
    if config.web_search is not None or config.mcp_servers:
        group = "config:" + (config.source or "mapping")
        search = config.web_search
        for _ in range(2):
            try:
                registry.replace_group(group, servers=config.mcp_servers, web_search=search)
                break
            except DuplicateToolError as exc:
                result.diagnostics.append(
                    Diagnostic(
                        code="TD220",
                        message=f"{exc.message}; remove one of them",
                        location=_config_location(config, exc.tool_name),
                        tool_name=exc.tool_name,
                    )
                )
                if exc.tool_name != "web_search":
                    break
                search = None  # keep the configured MCP servers without the clashing search


def _config_location(config: Config, name: str | None) -> SourceLocation | None:
    """The line of the config key that declared ``name`` (seed properties or YAML)."""
    if not config.source:
        return None
    key = "WebSearchTool" if name == "web_search" else None
    try:
        lines = Path(config.source).read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return SourceLocation(file=config.source)
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if text.startswith(("#", "!")):
            continue
        if (key and text.startswith(key)) or (name and name in text):
            return SourceLocation(file=config.source, line=number, column=line.find(text) + 1)
    return SourceLocation(file=config.source)


def _content(bundle: Bundle) -> GroupContent:
    if not bundle.active:
        return GroupContent()
    return GroupContent(
        tuple(bundle.tools), tuple(bundle.prompts), tuple(bundle.servers), bundle.web_search
    )


def _declaring(bundles: Mapping[str, Bundle], name: str | None) -> str:
    """The file among ``bundles`` that declares ``name`` (the first one if none does)."""
    for file, bundle in bundles.items():
        declared = {*bundle.tool_paths, *bundle.prompt_paths, *bundle.server_paths}
        if name in declared or (name == "web_search" and bundle.web_search is not None):
            return file
    return next(iter(bundles))


def _conflict(result: LoadResult, bundle: Bundle, exc: DuplicateToolError) -> Diagnostic:
    """A name this file declares is taken by code or by configuration: locate it here."""
    doc = result.documents[bundle.file]
    name = exc.tool_name or ""
    path: tuple[str | int, ...] = ()
    for paths in (bundle.tool_paths, bundle.prompt_paths, bundle.server_paths):
        if name in paths:
            path = (*paths[name], "name")
            break
    if name == "web_search":
        path = ("web_search",)
    message = exc.message.replace(f" from {GROUP_PREFIX}{bundle.file}", "")
    return Diagnostic(
        code="TD220", message=f"{message}; rename it", location=doc.locate(path), tool_name=name
    )


def _redacted(diagnostic: Diagnostic, secrets: Secrets) -> Diagnostic:
    if not secrets:
        return diagnostic
    from dataclasses import replace

    return replace(diagnostic, message=secrets.redact(diagnostic.message))
