"""The registry's resources: add them (``add_resource``, ``@registry.resource``), find, read.

:class:`ResourceRegistration` is a mixin of :class:`~tooldeck.ToolRegistry`,
as the tool shortcuts are: it builds a :class:`~tooldeck.ResourceSpec` and
hands it to ``ToolRegistry.add``, where the duplicate policy and change
notifications live (a resource is keyed by its URI, a template by its
template). Reading runs the resource's handler through the registry's call
drivers (worker threads, the default timeout, coroutine handlers on the
registry's loop) but not its ``on_call`` hooks or approvals: reading is not a
tool call, and a resource never has side effects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from ._calling import Policy, arun_call, new_call_id, run_call
from ._entries import RegistryChange
from ._errors import RegistrationError, ResourceError
from ._identity import missing_scopes
from ._inference import describe_handler, infer_params, snake_case
from ._model import ResourceSpec
from ._params import ParamDescriptor
from ._resourceread import (
    MAX_RESOURCE_BYTES,
    NOT_A_FILE,
    PreparedResource,
    ResourceContents,
    file_stamp,
    unknown_resource,
)
from ._uritemplate import MAX_URI_LENGTH

if TYPE_CHECKING:
    from ._binding import CallEnv
    from ._entries import DuplicatePolicy, Snapshot
    from ._identity import AuthIdentity
    from ._secrets import Secrets
    from ._subscribers import Subscribers

__all__ = ["RESOURCE_URI", "ResourceRegistration"]

RESOURCE_URI = "resource_uri"
"""The key of ``ToolContext.extra`` that holds the URI a read asked for."""


class ResourceRegistration:
    """Resource registration, lookup and reading; see the module docstring."""

    if TYPE_CHECKING:  # what the registry provides
        _snapshot: Snapshot
        _env: CallEnv
        _policy: Policy
        secrets: Secrets
        _subscribers: Subscribers

        def add(
            self,
            spec: Any,
            *,
            on_duplicate: DuplicatePolicy | None = None,
            group: str | None = None,
        ) -> Any:
            """Provided by the registry."""

        def _drop(self, kind: Any, name: str) -> bool:
            """Provided by the registry."""

    _read_policy: Policy | None = None

    # ------------------------------------------------------------ registration
    def add_resource(
        self,
        uri: str,
        handler: Callable[..., Any] | None = None,
        *params: ParamDescriptor,
        name: str | None = None,
        description: str | None = None,
        file: str | None = None,
        mime_type: str | None = None,
        on_duplicate: DuplicatePolicy | None = None,
        **options: Any,
    ) -> ResourceSpec:
        """Register a resource a client reads by URI, served by ``handler`` or from ``file``.

        A ``uri`` with ``{variables}`` is a template (``orders://{order_id}``):
        each variable is a parameter of the handler, inferred from its
        signature when no ``params`` are given, validated as a tool's are.
        ``file`` is a path under the project directory, read (confined) at each
        read. ``name`` defaults to the handler's name or the file's, the
        description to the handler's docstring. ``options`` are
        :class:`~tooldeck.ResourceSpec` fields (``title``, ``tags``, ``scopes`` ...).
        """
        template = isinstance(uri, str) and "{" in uri
        if handler is not None and template and not params:
            params = tuple(infer_params(handler))
        if name is None:
            if handler is not None:
                name = snake_case(getattr(handler, "__name__", "") or "resource")
            elif file is not None:
                name = snake_case(file.replace("\\", "/").rsplit("/", 1)[-1].split(".")[0])
            else:
                raise RegistrationError("add_resource needs a handler or a file", tool_name=uri)
        if description is None:
            description = describe_handler(handler) if handler is not None else ""
        spec = ResourceSpec(
            name=name,
            description=description,
            uri=None if template else uri,
            uri_template=uri if template else None,
            mime_type=mime_type,
            handler=handler,
            file=file,
            params=tuple(params),
            **options,
        )
        return cast(ResourceSpec, self.add(spec, on_duplicate=on_duplicate))

    def resource(
        self, uri: str, **kwargs: Any
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator form: ``@registry.resource("orders://{order_id}", mime_type=...)``."""

        def register(handler: Callable[..., Any]) -> Callable[..., Any]:
            self.add_resource(uri, handler, *kwargs.pop("params", ()), **kwargs)
            return handler

        return register

    def remove_resource(self, uri: str) -> bool:
        """Remove a resource (by its URI) or a template (by its template); whether it was there."""
        return self._drop("resource", uri)

    # ------------------------------------------------------------------ lookup
    def resources(self) -> tuple[ResourceSpec, ...]:
        """Every fixed resource (``uri``), in registration order."""
        return tuple(p.spec for p in self._prepared_resources() if p.template is None)

    def resource_templates(self) -> tuple[ResourceSpec, ...]:
        """Every resource template (``uri_template``), in registration order."""
        return tuple(p.spec for p in self._prepared_resources() if p.template is not None)

    def get_resource(self, key: str) -> ResourceSpec | None:
        """The resource registered under ``key``: a fixed URI, or a template's template."""
        entry = self._snapshot.table("resource").get(key)
        return None if entry is None else cast(PreparedResource, entry.value).spec

    def find_resource(self, uri: str) -> tuple[ResourceSpec, dict[str, str]] | None:
        """The resource a client reading ``uri`` gets, and the template's values for it.

        A fixed resource of that exact URI wins; otherwise the first template
        (in registration order) that ``uri`` is an instance of.
        """
        found = self._match(uri)
        return None if found is None else (found[0].spec, found[1])

    def resource_updated(self, *uris: str) -> None:
        """Say that what these URIs read has changed (a handler's data, say), though their
        declarations did not: subscribers get a change with ``resources_updated`` (the MCP
        server tells the clients subscribed to them). File resources need no call: ``serve``
        watches the files its clients subscribe to."""
        known = tuple(dict.fromkeys(u for u in uris if self._match(u) is not None))
        if known:
            self._subscribers.notify([(None, RegistryChange(resources_updated=known))])

    def resource_stamp(self, uri: str) -> object:
        """What changes when the file behind ``uri`` does (None when it cannot be seen), or
        :data:`~tooldeck._resourceread.NOT_A_FILE` for a URI no file resource serves."""
        found = self._match(uri)
        if found is None:
            return NOT_A_FILE
        return file_stamp(found[0], self._env.project_dir)

    # ----------------------------------------------------------------- reading
    def read_resource(
        self,
        uri: str,
        *,
        auth: AuthIdentity | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> tuple[ResourceContents, ...]:
        """Read ``uri``: its contents, or :class:`~tooldeck.ResourceError` saying why not.

        A tuple of parts, as an MCP read has: one, unless the handler returned several
        ``ResourceContents`` (``registry.read_resource(uri)[0].text`` for the usual case).

        ``auth`` is the verified caller, as for :meth:`call` (a resource with
        ``scopes`` needs them); ``context`` reaches a handler's ``ToolContext.extra``,
        with the URI read under ``"resource_uri"`` (as the client spelled it).
        """
        prepared, values = self._found(uri, auth)
        call_id = new_call_id()
        extra = {**(context or {}), RESOURCE_URI: uri}
        result = run_call(
            prepared.tool, values, self._env, self._reading(), call_id, extra, True, auth
        )
        return self._finish(prepared, uri, result)

    async def aread_resource(
        self,
        uri: str,
        *,
        auth: AuthIdentity | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> tuple[ResourceContents, ...]:
        """The async twin of :meth:`read_resource` (sync handlers run on worker threads)."""
        prepared, values = self._found(uri, auth)
        call_id = new_call_id()
        extra = {**(context or {}), RESOURCE_URI: uri}
        result = await arun_call(
            prepared.tool, values, self._env, self._reading(), call_id, extra, True, auth
        )
        return self._finish(prepared, uri, result)

    # --------------------------------------------------------------- internals
    def _prepared_resources(self) -> list[PreparedResource]:
        return [cast(PreparedResource, e.value) for e in self._snapshot.table("resource").values()]

    def _match(self, uri: str) -> tuple[PreparedResource, dict[str, str]] | None:
        if not isinstance(uri, str) or len(uri) > MAX_URI_LENGTH:
            return None
        table = self._snapshot.table("resource")
        exact = table.get(uri)
        if exact is not None and cast(PreparedResource, exact.value).template is None:
            return cast(PreparedResource, exact.value), {}
        for entry in table.values():
            prepared = cast(PreparedResource, entry.value)
            if prepared.template is not None:
                values = prepared.template.match(uri)
                if values is not None:
                    return prepared, values
        return None

    def _found(
        self, uri: str, auth: AuthIdentity | None
    ) -> tuple[PreparedResource, dict[str, str]]:
        found = self._match(uri)
        if found is None:
            raise unknown_resource(uri)
        prepared = found[0]
        if auth is not None and prepared.spec.scopes:
            lacking = missing_scopes(prepared.spec.scopes, auth)
            if lacking:
                raise ResourceError(
                    "not_permitted",
                    f"reading it needs the scope(s) {', '.join(lacking)}, which this "
                    "caller's token does not carry",
                    uri=uri,
                )
        return prepared, prepared.check(uri, found[1])

    def _finish(
        self, prepared: PreparedResource, uri: str, result: Any
    ) -> tuple[ResourceContents, ...]:
        try:
            parts = prepared.contents(uri, result, MAX_RESOURCE_BYTES, self._env.project_dir)
        except ResourceError as exc:
            if self.secrets:
                raise ResourceError(exc.kind, self.secrets.redact(exc.message), uri=uri) from None
            raise
        if self.secrets:
            from dataclasses import replace

            redact = self.secrets.redact
            parts = tuple(p if p.text is None else replace(p, text=redact(p.text)) for p in parts)
        return parts

    def _reading(self) -> Policy:
        """The policy reads run under: the registry's timeout and threads, no hooks."""
        policy = self._read_policy
        if policy is None:
            main = self._policy
            policy = Policy(
                default_timeout=main.default_timeout, pool=main.pool, secrets=self.secrets
            )
            self._read_policy = policy
        return policy
