"""What a resource is: :class:`ResourceSpec`, a fixed URI or a URI template an MCP client reads.

A resource is data a client reads by URI (``resources/read``) rather than a
function a model calls: a project's README, one order as JSON. It is served
either from a file under the project directory (``file``, confined as the
built-in file tools are) or by a handler; a template
(``uri_template="orders://{order_id}"``) names one resource per value of its
variables, each declared as a parameter and validated like a tool's. Checking
and reading live in :mod:`tooldeck._resourceread`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._diagnostics import SourceLocation
from .._params import ParamDescriptor

__all__ = ["ResourceSpec"]


@dataclass(frozen=True, kw_only=True)
class ResourceSpec:
    """A registered resource: exactly one of ``uri`` / ``uri_template``, of ``handler`` / ``file``.

    The registry keys resources by :attr:`key` (the URI or the template), so
    two declarations of one URI are the same entry under the duplicate policy.
    """

    name: str
    """A short name clients show (MCP ``name``); the name rule of tools applies."""
    description: str = ""
    uri: str | None = None
    """A fixed resource's URI (``docs://readme``)."""
    uri_template: str | None = None
    """A template's URI (RFC 6570 ``{name}`` and ``{+name}`` only: ``orders://{order_id}``)."""
    mime_type: str | None = None
    """The content's type; for a file, guessed from its suffix when not given."""
    handler: Callable[..., Any] | None = None
    """Returns the content: ``str`` (text), ``bytes`` (binary), or JSON-able data (JSON text).
    Receives the template's variables as parameters, and may take ``project_dir``, a
    ``ToolContext`` and the configuration as a tool's handler does."""
    file: str | None = None
    """A file under the project directory, read at each read (a fixed resource only)."""
    params: tuple[ParamDescriptor, ...] = ()
    """A template's variables, one parameter each (a URI carries strings: ``integer`` and
    ``number`` parameters are converted from their text)."""
    title: str | None = None
    tags: tuple[str, ...] = ()
    bundle: str | None = None
    scopes: tuple[str, ...] = ()
    """OAuth scopes a caller's token must carry to list and read it (as tools' ``auth``)."""
    origin: SourceLocation | None = None

    @property
    def key(self) -> str:
        """The URI, or the template, it is registered under."""
        return self.uri if self.uri is not None else self.uri_template or ""

    @property
    def is_template(self) -> bool:
        return self.uri_template is not None
