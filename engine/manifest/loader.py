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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.diagnostics import Diagnostic, Severity, SourceLocation
from engine.errors import ManifestError
from engine.manifest.build import Bundle, build_bundle
from engine.manifest.interpolate import interpolate
from engine.manifest.metaschema import check_document
from engine.manifest.resolve import DEFAULT_ALLOWED
from engine.manifest.yamlsource import YamlDocument, read_yaml
from engine.registry import ToolRegistry
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
    if doc.diagnostics or doc.data is None:
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
    schema_problems = check_document(doc)
    if schema_problems:
        doc.diagnostics.extend(schema_problems)
        return doc, None
    data, problems = interpolate(
        doc.data, config=config.data, secrets=registry.secrets, environ=environ
    )
    for where, code, message in problems:
        doc.diagnostics.append(Diagnostic(code=code, message=message, location=doc.locate(where)))
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
    for kind, attr, paths_attr in (
        ("tool", "tools", "tool_paths"),
        ("prompt", "prompts", "prompt_paths"),
    ):
        seen: dict[str, tuple[Bundle, Any]] = {}
        for bundle in result.bundles.values():
            keep = []
            for spec in getattr(bundle, attr):
                path = getattr(bundle, paths_attr)[spec.name]
                if spec.name in seen:
                    first_bundle, first_path = seen[spec.name]
                    first_doc = result.documents[first_bundle.file]
                    doc = result.documents[bundle.file]
                    here, there = (
                        doc.locate((*path, "name")),
                        first_doc.locate((*first_path, "name")),
                    )
                    result.diagnostics.append(
                        Diagnostic(
                            code="TD220",
                            message=f"{kind} {spec.name!r} is also declared at {there}",
                            location=here,
                            tool_name=spec.name,
                        )
                    )
                    result.diagnostics.append(
                        Diagnostic(
                            code="TD220",
                            message=f"{kind} {spec.name!r} is also declared at {here}",
                            location=there,
                            tool_name=spec.name,
                        )
                    )
                    bundle.diagnostics.append(result.diagnostics[-2])
                    continue
                seen[spec.name] = (bundle, path)
                keep.append(spec)
            setattr(bundle, attr, keep)


def _register(registry: ToolRegistry, result: LoadResult, config: Config) -> None:
    failed = {d.location.file for d in result.errors if d.location is not None}
    for file, bundle in result.bundles.items():
        if file in failed:
            continue
        group = GROUP_PREFIX + file
        if not bundle.active:
            registry.replace_group(group)
            continue
        registry.replace_group(
            group, bundle.tools, bundle.prompts, bundle.servers, bundle.web_search
        )
        result.registered.append(file)
    if config.web_search is not None or config.mcp_servers:
        registry.replace_group(
            "config:" + (config.source or "mapping"),
            servers=config.mcp_servers,
            web_search=config.web_search,
        )


def _redacted(diagnostic: Diagnostic, secrets: Secrets) -> Diagnostic:
    if not secrets:
        return diagnostic
    from dataclasses import replace

    return replace(diagnostic, message=secrets.redact(diagnostic.message))
