"""Manifests that change while the program runs: per-file last good, atomic swaps, events.

:class:`LiveManifests` keeps, for each manifest file, the last version that
loaded without errors. When files change it re-reads only those files,
builds their new entries beside the old ones and swaps all accepted files in
one :meth:`ToolRegistry.replace_groups` call, so no call sees half of an
edit and calls in flight finish on the version they started with.

- A file with errors keeps its previous good version; the errors are
  reported and the other files' good edits still apply.
- A name that would clash with another file (or with code) keeps the
  previous version of the file that introduced it, reported at both places.
- A deleted file removes its entries; that is a change, not an error.
- Nothing a file or a handler module does can end the reloading: a failure
  inside tooldeck while reloading a file becomes a TD299 diagnostic on that
  file (its last good version stays, ``reload_status.ok`` turns false) and
  the next good edit applies as usual.

It knows nothing of file watching: :mod:`tooldeck._reload` feeds it changed
paths from watchfiles, tests and other watchers can call :meth:`apply`.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._diagnostics import Diagnostic, Severity, SourceLocation
from .._entries import GroupContent, RegistryChange
from .._errors import DuplicateToolError
from .._lastreload import ReloadEvent, ReloadStatus, ReloadStatusHolder
from .._log import get_logger
from .._registry import ToolRegistry
from .._yaml import YamlDocument, read_yaml
from ._build import Bundle
from ._clashes import code_clash, cross_file_clashes
from ._loader import (
    GROUP_PREFIX,
    SUFFIXES,
    _inside,
    contained,
    discover,
    failure_reason,
    load_file,
    located,
    register_config,
)
from ._resolve import DEFAULT_ALLOWED, HandlerResolver, resolve_handler

if TYPE_CHECKING:
    from .._config import Config

__all__ = ["LiveManifests", "ReloadEvent", "ReloadStatus"]

log = get_logger("tooldeck.reload")


class LiveManifests:
    """The manifests under ``paths``, kept in sync with ``registry`` file by file."""

    def __init__(
        self,
        registry: ToolRegistry,
        paths: Iterable[str | Path],
        *,
        config: Config | Mapping[str, Any] | str | Path | None = None,
        allow_handlers: Iterable[str] = (),
        app_class: type | None = None,
        environ: Mapping[str, str] | None = None,
        reload_handlers: bool = False,
        static: bool = False,
        search_last: Iterable[str | Path] = (),
    ) -> None:
        from .._config import Config, load_config

        self.registry = registry
        self.paths = tuple(Path(p) for p in paths)
        self.config = config if isinstance(config, Config) else load_config(config)
        self.allowed = tuple(dict.fromkeys((*DEFAULT_ALLOWED, *allow_handlers)))
        self.app_class = app_class
        self.environ = environ
        self.reload_handlers = reload_handlers
        self.resolver: HandlerResolver = resolve_handler
        """Imports handler modules; with ``static``, reads their source and imports nothing."""
        if static:
            from ._static import StaticResolver

            self.resolver = StaticResolver(search_last=tuple(str(p) for p in search_last))
        self._good: dict[str, Bundle] = {}
        self._errors: dict[str, tuple[Diagnostic, ...]] = {}
        self._modules: dict[str, set[str]] = {}
        self._subscribers: list[Callable[[ReloadEvent], Any]] = []
        self._lock = threading.Lock()
        self._reloads = 0
        self._outcome = ReloadStatusHolder()
        self.documents: dict[str, YamlDocument] = {}
        """The last read of each file, in the order files were read."""
        self.bundles: dict[str, Bundle] = {}
        """What each file built on its last read (also when it had errors)."""

    # ----------------------------------------------------------------- queries
    def files(self) -> list[Path]:
        """The manifest files currently under the watched paths."""
        return discover(self.paths)[0]

    def handler_files(self) -> dict[str, str]:
        """Source file -> module name, for the handler modules the manifests use."""
        out = {}
        for module_name in self._modules:
            module = sys.modules.get(module_name)
            source = getattr(module, "__file__", None)
            if source:
                out[str(Path(source).resolve())] = module_name
        return out

    def is_manifest(self, path: str | Path) -> bool:
        """Whether ``path`` is (or would be) one of the watched manifest files."""
        candidate = Path(path)
        if candidate.suffix not in SUFFIXES:
            return False
        # Judged where it is named, not where a symlink leads: a manifest swapped for a
        # symlink to /dev/zero is still that manifest (and its reader says what it became).
        named = Path(located(candidate))
        for root in self.paths:
            root_resolved = root.resolve()
            if named == Path(located(root)) or candidate.resolve() == root_resolved:
                return True
            if named.is_relative_to(root_resolved) and root.is_dir():
                relative = named.relative_to(root_resolved)
                return not any(part.startswith(".") for part in relative.parts)
        return False

    def _linked_out(self, file: str) -> Diagnostic | None:
        """TD200 when ``file`` sits in a watched folder but links to a file outside it."""
        named = Path(located(file))
        for root in self.paths:
            if not root.is_dir() or not named.is_relative_to(Path(located(root))):
                continue
            problems: list[Diagnostic] = []
            if not _inside(root, [Path(file)], problems):
                return problems[0]
        return None

    @property
    def status(self) -> ReloadStatus | None:
        """The last reload's outcome (None before the first); ``registry.reload_status`` too."""
        return self._outcome.status

    def subscribe(self, callback: Callable[[ReloadEvent], Any]) -> Callable[[], None]:
        """Call ``callback(event)`` after every reload; returns an unsubscribe function."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    # ----------------------------------------------------------------- reloads
    def load(self) -> ReloadEvent:
        """Load every file (the first time, or to resynchronise), and the config's hosted tools.

        Also reports the config's own problems and paths that hold no manifests.
        """
        files, missing = discover(self.paths)
        event = self.apply([*files, *(Path(f) for f in self._good)], notify=False)
        # The config's hosted entries come after the manifests: on a clash the manifest wins.
        extra = [*self.config.diagnostics, *missing, *register_config(self.registry, self.config)]
        if extra:
            event = replace(event, diagnostics=(*map(self._redacted, extra), *event.diagnostics))
        self._notify(event)
        return event

    def registered(self) -> list[str]:
        """The files whose entries are in the registry now (loaded, and active)."""
        return [f for f in self.documents if f in self._good and self._good[f].active]

    def apply(self, changed: Iterable[str | Path], *, notify: bool = True) -> ReloadEvent:
        """Re-read the changed files and swap their new versions in, all at once.

        Never raises for what a file or handler module contains: an unexpected
        failure is reported as TD299 on the files involved, which keep their
        last good version.
        """
        started = time.perf_counter()
        changed = list(changed)
        with self._lock:
            try:
                event = self._apply(changed, started)
            except BaseException as exc:
                if not contained(exc):
                    raise
                event = self._failed(changed, exc, started)
            if not event.files and not event.diagnostics:
                return event  # nothing relevant changed: no reload to report
            self._reloads += 1
            self._outcome.status = ReloadStatus(
                ok=not self._errors,
                last=event,
                reloads=self._reloads,
                at=time.time(),
                errors=dict(self._errors),
            )
            self.registry.follow_reloads(self._outcome)  # the manifests that reloaded last
        if notify:
            self._notify(event)
        return event

    def _failed(self, changed: list[str | Path], exc: BaseException, started: float) -> ReloadEvent:
        """The event for a reload that failed inside tooldeck: every file involved is held."""
        files = [str(p) for p in changed if self.is_manifest(p)] or [str(p) for p in changed]
        reason = failure_reason(exc, self.registry.secrets)
        log.debug("reloading %s failed inside tooldeck", ", ".join(files), exc_info=exc)
        diagnostics = []
        for file in files:
            diagnostic = Diagnostic(
                code="TD299",
                message=f"reloading this file failed inside tooldeck ({reason}); "
                "its last good version stays in force",
                location=SourceLocation(file=file, line=1, column=1),
            )
            diagnostics.append(diagnostic)
            self._errors[file] = (diagnostic,)
        kept = tuple(f for f in files if f in self._good)
        return ReloadEvent(
            diagnostics=tuple(diagnostics),
            kept=kept,
            files=tuple(files),
            duration=time.perf_counter() - started,
        )

    def _notify(self, event: ReloadEvent) -> None:
        for diagnostic in event.diagnostics:
            if diagnostic.severity is Severity.ERROR:
                log.warning("%s", diagnostic.format())
        for file in event.kept:
            log.warning("kept the last good version of %s", file)
        for file, change in event.changes.items():
            resources = (
                f", +{len(change.resources_added)} ~{len(change.resources_changed)} "
                f"-{len(change.resources_removed)} resources"
                if change.resources_list_changed
                else ""
            )
            log.info(
                "reloaded %s: +%d ~%d -%d tools%s",
                file,
                len(change.added),
                len(change.changed),
                len(change.removed),
                resources,
            )
        for callback in list(self._subscribers):
            try:
                callback(event)
            except (Exception, SystemExit) as exc:  # one broken listener must not stop the others
                log.warning(
                    "reload subscriber %r failed: %s: %s", callback, type(exc).__name__, exc
                )

    def _apply(self, changed: Iterable[str | Path], started: float) -> ReloadEvent:
        changed = list(changed)
        manifests, modules = self._classify(changed)
        # Files are read (and claim names) in the order given: discovery order on a load.
        given = {located(p): i for i, p in reversed(list(enumerate(changed)))}

        def order(file: str) -> tuple[int, str]:
            return (given.get(located(file), len(given)), file)

        retried = self._held_by_clash(manifests) if manifests or modules else set()
        manifests |= retried
        diagnostics: list[Diagnostic] = []
        kept: list[str] = []
        for module_name in sorted(modules):
            users = self._modules.get(module_name, set())
            problem = self._reload_module(module_name)
            if problem is None:
                manifests.update(users)
                continue
            for file in sorted(users):  # a broken handler edit keeps these files as they were
                error = self._module_error(file, module_name, problem)
                diagnostics.append(error)
                self._errors[file] = (error,)
                kept.append(file)
                manifests.discard(file)
        updates: dict[str, tuple[Bundle | None, YamlDocument | None]] = {}
        for file in sorted(manifests, key=order):
            if not Path(file).exists():
                if file in self._good or file in self._errors:
                    updates[file] = (None, None)
                self.documents.pop(file, None)
                self.bundles.pop(file, None)
                continue
            outside = self._linked_out(file)
            if outside is not None:  # not read, as on a first load (see discover)
                doc, bundle = YamlDocument(file=file, data=None, root=None), None
                doc.diagnostics.append(outside)
            else:
                doc, bundle = load_file(
                    file,
                    registry=self.registry,
                    config=self.config,
                    allowed=self.allowed,
                    app_class=self.app_class,
                    environ=self.environ,
                    resolver=self.resolver,
                )
            self.documents[file] = doc
            if bundle is not None:
                self.bundles[file] = bundle
            else:
                self.bundles.pop(file, None)
            problems = [*doc.diagnostics, *(bundle.diagnostics if bundle else [])]
            diagnostics.extend(problems)
            if bundle is None or any(d.severity is Severity.ERROR for d in problems):
                self._errors[file] = tuple(p for p in problems if p.severity is Severity.ERROR)
                if file in self._good:
                    kept.append(file)
                continue
            updates[file] = (bundle, doc)
        self._check_names(updates, diagnostics, kept, retried, order)
        changes = self._swap(updates, diagnostics, kept, retried)
        manifests -= {f for f in retried if f in self._errors}  # still held: not news
        if self.registry.secrets:
            diagnostics = [self._redacted(d) for d in diagnostics]
            self._errors = {f: tuple(map(self._redacted, ds)) for f, ds in self._errors.items()}
        return ReloadEvent(
            changes={f: c for f, c in changes.items() if c},
            diagnostics=tuple(diagnostics),
            kept=tuple(dict.fromkeys(kept)),
            files=tuple(sorted(manifests, key=order)),
            duration=time.perf_counter() - started,
        )

    def _redacted(self, diagnostic: Diagnostic) -> Diagnostic:
        return self.registry.secrets.redact_diagnostic(diagnostic)

    def _classify(self, changed: Iterable[str | Path]) -> tuple[set[str], set[str]]:
        manifests: set[str] = set()
        modules: set[str] = set()
        handler_files = self.handler_files() if self.reload_handlers else {}
        # Known by the name they were loaded under (a symlink swapped in still names the file);
        # by their target too, so editing a symlinked manifest's target reloads it.
        known = {str(Path(f).resolve()): f for f in (*self._good, *self._errors)}
        known |= {located(f): f for f in (*self._good, *self._errors)}
        for raw in changed:
            path = Path(raw)
            resolved, named = str(path.resolve()), located(path)
            if resolved in handler_files:
                modules.add(handler_files[resolved])
            elif named in known:
                manifests.add(known[named])
            elif resolved in known:
                manifests.add(known[resolved])
            elif self.is_manifest(path):
                manifests.add(str(path))
            elif path.is_dir():  # a folder moved or copied in: everything in it is new
                manifests.update(str(f) for f in discover([path])[0] if self.is_manifest(f))
            elif not path.exists():  # a folder moved or deleted away: what was under it
                prefix = resolved + "/"
                manifests.update(f for r, f in known.items() if r.startswith(prefix))
        return manifests, modules

    def _held_by_clash(self, changed: set[str]) -> set[str]:
        """Unchanged files held back only by a name clash: retried, the clash may be gone."""
        return {
            file
            for file, errors in self._errors.items()
            if file not in changed
            and errors
            and all(e.code == "TD220" for e in errors)
            and Path(file).exists()
        }

    def _reload_module(self, module_name: str) -> str | None:
        """Re-import an edited handler module; the reason it failed, or None.

        The module stays in ``sys.modules`` either way, so its next (fixed)
        edit is still recognised as a handler module change.
        """
        module = sys.modules.get(module_name)
        if module is None:
            return None
        try:
            importlib.reload(module)
        except BaseException as exc:
            if not contained(exc):
                raise
            return f"{type(exc).__name__}: {exc}"
        return None

    def _module_error(self, file: str, module_name: str, problem: str) -> Diagnostic:
        """A located TD311 for a file whose handler module failed to re-import."""
        bundle = self._good.get(file)
        path: tuple[str | int, ...] = ()
        if bundle is not None:
            users: list[tuple[Any, tuple[str | int, ...]]]
            users = [(s.handler, bundle.tool_paths[s.name]) for s in bundle.tools]
            users += [(r.handler, bundle.resource_paths[r.key]) for r in bundle.resources]
            path = next(
                ((*p, "handler") for h, p in users if getattr(h, "__module__", 0) == module_name),
                (),
            )
        doc = read_yaml(file)
        return Diagnostic(
            code="TD311",
            message=f"cannot re-import handler module {module_name!r}: {problem}; "
            "the tools and resources using it keep their previous version",
            location=doc.locate(path) if doc.root is not None else None,
        )

    def _check_names(
        self,
        updates: dict[str, tuple[Bundle | None, YamlDocument | None]],
        diagnostics: list[Diagnostic],
        kept: list[str],
        retried: set[str],
        order: Callable[[str], tuple[int, str]],
    ) -> None:
        """Keep the previous version of a file whose new names clash with another file."""
        for file, found in cross_file_clashes(self._good, updates, retried, order):
            del updates[file]
            self._hold(file, found, diagnostics, kept, quiet=file in retried)

    def _hold(
        self,
        file: str,
        found: list[Diagnostic],
        diagnostics: list[Diagnostic],
        kept: list[str],
        *,
        quiet: bool,
    ) -> None:
        """Keep ``file`` at its previous version because of ``found``.

        ``quiet``: a retried file that still clashes is old news; its problems
        stay in ``reload_status`` but are not reported again.
        """
        self._errors[file] = tuple(d for d in found if d.location and d.location.file == file)
        if quiet:
            return
        diagnostics.extend(found)
        if file in self._good:
            kept.append(file)

    def _swap(
        self,
        updates: dict[str, tuple[Bundle | None, YamlDocument | None]],
        diagnostics: list[Diagnostic],
        kept: list[str],
        retried: set[str],
    ) -> dict[str, RegistryChange]:
        """One atomic swap; a file clashing with code is dropped (kept at its old version)."""
        while updates:
            contents = {GROUP_PREFIX + f: _content(b) for f, (b, _) in updates.items()}
            try:
                changes = self.registry.replace_groups(contents)
            except DuplicateToolError as exc:
                culprit, found = code_clash(updates, exc)
                del updates[culprit]
                self._hold(culprit, found, diagnostics, kept, quiet=culprit in retried)
                continue
            for file, (bundle, _) in updates.items():
                self._errors.pop(file, None)
                if bundle is None:
                    self._good.pop(file, None)
                else:
                    self._good[file] = bundle
            self._index_modules()
            return {  # (a group that yielded a name to a file changed too: not a file)
                group.removeprefix(GROUP_PREFIX): c
                for group, c in changes.items()
                if group in contents
            }
        return {}

    def _index_modules(self) -> None:
        modules: dict[str, set[str]] = {}
        for file, bundle in self._good.items():
            for spec in (*bundle.tools, *bundle.prompts, *bundle.resources):
                handler = getattr(spec, "handler", None)
                module = getattr(handler, "__module__", None)
                if module:
                    modules.setdefault(module, set()).add(file)
        self._modules = modules


def _content(bundle: Bundle | None) -> GroupContent:
    if bundle is None or not bundle.active:
        return GroupContent()
    return GroupContent(
        tuple(bundle.prepared_tools.get(s.name, s) for s in bundle.tools),
        tuple(bundle.prepared_prompts.get(s.name, s) for s in bundle.prompts),
        tuple(bundle.servers),
        bundle.web_search,
        tuple(bundle.uses),
        resources=tuple(bundle.prepared_resources.get(s.key, s) for s in bundle.resources),
        prompt_uses=tuple(bundle.prompt_uses),
    )
