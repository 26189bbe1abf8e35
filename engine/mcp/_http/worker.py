"""``--workers N``: the app served from N processes, each building its own registry.

uvicorn's multi-process mode starts fresh processes that import the app from
an import string, so a registry built in the parent cannot be handed over. The
parent writes a :class:`WorkerPlan` (what the CLI resolved: manifests, config,
project folder, allowed handler prefixes, the options) as JSON into
:data:`PLAN_ENV`; each worker's :func:`create_app` reads it, loads the
manifests (or watches them, with ``--reload``), attaches the ``via: client``
servers, and serves the same app as one process would.

Only for stateless serving (:func:`~tooldeck.mcp._http.options.check_options`
refuses the rest): a session lives in one process, and the kernel hands each
new connection to whichever worker accepts it first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .options import AuthOptions, HttpOptions

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from ..._registry import ToolRegistry
    from ...providers import Toolset
    from .._serving import RegistryServer, Reload

__all__ = ["PLAN_ENV", "WorkerPlan", "create_app", "selectors_of", "serve_workers"]

PLAN_ENV = "TOOLDECK_SERVE_WORKER_PLAN"
"""The environment variable the parent passes the plan to its workers in."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class WorkerPlan:
    """What each worker rebuilds the server from (every field JSON-able but ``options``)."""

    manifests: tuple[str, ...]
    config: str | None = None
    project_dir: str = "."
    allow_handlers: tuple[str, ...] = ()
    import_folders: tuple[str, ...] = ()
    """Folders the project's handler modules import from (made importable, last)."""
    allow_side_effects: bool = False
    reload: bool = False
    max_media_bytes: int | None = None
    """The cap on one result's media (``--max-media-bytes`` or the setting); None: the default."""
    name: str = "tooldeck"
    approval_timeout: float = 300.0
    attach: bool = True
    connect_timeout: float = 30.0
    options: HttpOptions = dataclasses.field(default_factory=HttpOptions)
    toolset: dict[str, list[str]] | None = None
    """What ``/mcp`` serves (:func:`selectors_of`); ``None``: the whole registry."""
    toolsets: dict[str, dict[str, list[str]]] = dataclasses.field(default_factory=dict)
    """Each named toolset served at ``/mcp/<name>``."""

    def to_json(self) -> str:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["options"] = _encode(self.options)
        return json.dumps(data, default=str)

    @classmethod
    def from_json(cls, text: str) -> WorkerPlan:
        data = json.loads(text)
        data["options"] = _decode(HttpOptions, data["options"])
        for name in ("manifests", "allow_handlers", "import_folders"):
            data[name] = tuple(data[name])
        return cls(**data)


def _encode(options: Any) -> dict[str, Any]:
    """A frozen options record as JSON values (paths as text, nested records as objects)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = _encode(value)
        elif isinstance(value, Path):
            value = str(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def _decode(kind: type[Any], data: dict[str, Any]) -> Any:
    """The inverse of :func:`_encode`, read from the field annotations (strings here)."""
    values: dict[str, Any] = {}
    for f in dataclasses.fields(kind):
        if f.name not in data:
            continue
        value = data[f.name]
        annotation = str(f.type)
        if annotation == "AuthOptions":
            value = _decode(AuthOptions, value)
        elif value is not None and "Path" in annotation:
            value = Path(value)
        elif isinstance(value, list) and annotation.startswith("tuple"):
            value = tuple(value)
        values[f.name] = value
    return kind(**values)


def selectors_of(toolset: Toolset | None) -> dict[str, list[str]] | None:
    """A toolset's selectors as JSON values (the worker rebuilds it with :func:`toolset_of`)."""
    if toolset is None:
        return None
    return {
        "bundles": sorted(toolset.bundles),
        "tags": sorted(toolset.tags),
        "names": sorted(toolset.names),
        "name": [toolset.name] if toolset.name else [],
    }


def toolset_of(selectors: dict[str, list[str]] | None) -> Toolset | None:
    from ...providers import Toolset

    if selectors is None:
        return None
    name = selectors.get("name") or [""]
    return Toolset.of(
        bundles=selectors["bundles"], tags=selectors["tags"], names=selectors["names"], name=name[0]
    )


# ------------------------------------------------------------------ the parent
def serve_workers(plan: WorkerPlan) -> None:
    """Serve from ``plan.options.workers`` processes until interrupted (blocks; no loop).

    Raises :class:`~tooldeck.mcp.ServeOptionsError` for options that cannot be
    served, before anything listens.
    """
    import uvicorn

    from .connections import configure_worker_protocol, raise_open_files_limit
    from .options import check_options

    options = plan.options
    check_options(options)
    os.environ[PLAN_ENV] = plan.to_json()
    raise_open_files_limit()
    # Each worker has the connection limits of one process (header timeout, connections
    # per address); on SIGTERM uvicorn's own graceful shutdown lets requests in flight
    # finish for up to drain_timeout.
    uvicorn.run(
        f"{__name__}:create_app",
        factory=True,
        host=options.host,
        port=options.port,
        workers=options.workers,
        log_level="warning",
        lifespan="on",
        use_colors=False,
        http=configure_worker_protocol(options),
        ws="none",
        timeout_graceful_shutdown=int(options.drain_timeout),
    )


# ------------------------------------------------------------------ a worker
def create_app() -> Starlette:
    """The app of one worker, from the plan in :data:`PLAN_ENV` (uvicorn's factory)."""
    from .._serving import build_server
    from .app import DEFAULT_TOOLSET, build_app
    from .connections import configure_worker_protocol

    plan = WorkerPlan.from_json(os.environ[PLAN_ENV])
    configure_worker_protocol(plan.options)
    registry, reload = _registry(plan)

    def server_for(selected: Toolset | None) -> RegistryServer:
        return build_server(
            registry,
            name=plan.name,
            list_changed=reload is not None and not plan.options.stateless,
            approval_timeout=plan.approval_timeout,
            toolset=selected,
        )

    served = server_for(toolset_of(plan.toolset))
    servers = {DEFAULT_TOOLSET: served}
    servers.update((name, server_for(toolset_of(s))) for name, s in plan.toolsets.items())
    app = build_app(servers, plan.options)
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with _serving(served, reload, plan), inner(app):
            yield

    app.router.lifespan_context = lifespan
    return app


def _registry(plan: WorkerPlan) -> tuple[ToolRegistry, Reload | None]:
    """The registry as ``tooldeck serve`` builds it: loaded now, or empty for the watcher."""
    from ..._config import load_config
    from ..._importpath import project_importable_last
    from ..._registry import ToolRegistry
    from ...manifest._manifests import load_manifests
    from .._serving import Reload, elicit_approval

    for folder in plan.import_folders:
        project_importable_last(folder)
    config = load_config(Path(plan.config) if plan.config is not None else None)
    allow = plan.allow_side_effects
    registry = ToolRegistry(
        project_dir=plan.project_dir,
        config=config.data,
        approve=None if allow else elicit_approval,
        allow_side_effects=allow,
        max_media_bytes=plan.max_media_bytes,
    )
    if plan.reload:
        reload = Reload(
            [Path(p) for p in plan.manifests], config=config, allow_handlers=plan.allow_handlers
        )
        return registry, reload
    load_manifests(
        plan.manifests, registry=registry, config=config, allow_handlers=plan.allow_handlers
    )
    return registry, None


@contextlib.asynccontextmanager
async def _serving(
    served: RegistryServer, reload: Reload | None, plan: WorkerPlan
) -> AsyncIterator[None]:
    """What ``serve_http`` runs around uvicorn (the watcher, the attached servers), as a
    context around a worker's lifespan; the registry is closed after."""
    import asyncio

    from .._serving import with_attached, with_reload

    up = asyncio.Event()
    stop = asyncio.Event()

    async def body() -> None:
        up.set()
        await stop.wait()

    attached = with_attached(served, body, plan.attach, plan.connect_timeout)
    # A worker process only serves (tooldeck serve --workers): its startup objects are frozen.
    task = asyncio.create_task(with_reload(served, reload, attached, tune_gc=True))
    waiting = asyncio.create_task(up.wait())
    try:
        await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if not up.is_set():
            waiting.cancel()
            await task  # raises what stopped it
            raise RuntimeError("the worker stopped before serving")
        try:
            yield
        finally:
            stop.set()
            await task
    finally:
        served.registry.close()
