"""Resources compiled for reading: a URI in, :class:`ResourceContents` out (or a ResourceError).

A resource's handler runs exactly as a tool's does (the same compiled argument
checks, conversion, injection of ``project_dir`` and ``ToolContext``, worker
threads, timeouts and coroutine handling), because a resource is prepared as
a tool: :func:`prepare_resource` compiles a :class:`~tooldeck.ToolSpec` whose
parameters are the template's variables and runs it through the registry's
call drivers, keeping the handler's value as it is instead of turning it
into text. A template's variables arrive as text in the URI, so they are
checked leniently (``"42"`` is accepted for an ``integer``).

A file resource is a built-in handler (``tooldeck.handlers.resources``) bound
to its path: read confined to the project directory, as the file tools read.
"""

from __future__ import annotations

import importlib
import inspect
import mimetypes
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path
from typing import Any

from ._binding import PreparedTool
from ._calltypes import ToolResult
from ._errors import RegistrationError, ResourceError
from ._media import Media
from ._mediaresult import MediaRefused, shape_media
from ._model import ResourceSpec, ResultSpec, ToolSpec
from ._names import name_problem
from ._params import ParamDescriptor
from ._prepare import prepare_tool
from ._results import ResultShaper, to_text
from ._uritemplate import MAX_URI_LENGTH, UriTemplate, UriTemplateError, is_uri

__all__ = [
    "MAX_RESOURCE_BYTES",
    "NOT_A_FILE",
    "PreparedResource",
    "ResourceContents",
    "contents_of",
    "file_stamp",
    "prepare_resource",
    "unknown_resource",
]

MAX_RESOURCE_BYTES = 10 * 1024 * 1024
"""The most one read returns (a file's bytes, a handler's text or data): a client holds the
whole of it in memory, and a model may be handed it."""

_TEXT_TYPES = ("application/json", "application/xml", "application/yaml", "application/toml")
_TEXT_SUFFIXES = ("+json", "+xml", "+yaml")
_HANDLERS = __name__.rsplit(".", 1)[0] + ".handlers.resources"
"""The built-in handler module file resources are read with (``tooldeck.handlers.resources``)."""


@dataclass(frozen=True, slots=True)
class ResourceContents:
    """What reading a resource gives: its URI, type, and either ``text`` or ``data`` (bytes).

    A handler may return one itself to choose the type per read.
    """

    uri: str
    mime_type: str | None = None
    text: str | None = None
    data: bytes | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.data is None):
            raise ValueError("ResourceContents takes exactly one of text and data")
        if self.text is not None and not isinstance(self.text, str):
            raise TypeError(f"ResourceContents.text must be str, not {type(self.text).__name__}")
        if self.data is not None and not isinstance(self.data, bytes):
            raise TypeError(f"ResourceContents.data must be bytes, not {type(self.data).__name__}")

    @property
    def size(self) -> int:
        """Bytes of content (text counted as UTF-8)."""
        return len(self.data) if self.data is not None else len(self.text.encode())  # type: ignore[union-attr]


class _KeepValue(ResultShaper):
    """A shaper that keeps the handler's value for :func:`contents_of` (no text needed)."""

    def __init__(self) -> None:
        super().__init__(ResultSpec())

    def __call__(self, value: Any) -> str:
        return ""


_KEEP = _KeepValue()


class PreparedResource:
    """A resource compiled for reading; the registry stores it as it is."""

    __slots__ = ("key", "mime_type", "name", "spec", "template", "tool")

    def __init__(
        self,
        spec: ResourceSpec,
        tool: PreparedTool,
        template: UriTemplate | None,
        mime_type: str | None = None,
    ):
        self.spec = spec
        self.name = spec.name
        self.key = spec.key
        self.mime_type = mime_type or spec.mime_type
        """The declared type, or for a file the one its suffix implies."""
        self.tool = tool
        """The handler as a tool (the template's variables its parameters)."""
        self.template = template

    def match(self, uri: str) -> dict[str, str] | None:
        """The template's variables for ``uri``; ``{}`` for this fixed resource's own URI."""
        if self.template is None:
            return {} if uri == self.spec.uri else None
        return self.template.match(uri)

    def check(self, uri: str, values: dict[str, Any]) -> dict[str, Any]:
        """A template's values as its handler's arguments; ResourceError when one is not valid.

        Checked here, before the call, so the words are about the URI (the call
        checks again, which costs little): ``{order_id}`` of ``orders://x`` is not an integer.
        """
        tool = self.tool
        arguments = tool.coerce(values) if tool.coercers else values
        if tool.check(arguments):
            return arguments
        problems = "; ".join(p.removeprefix("$.") for p in tool.explain(arguments))
        raise ResourceError(
            "invalid_arguments",
            f"the URI does not name a valid {self.name} (template {self.key}): {problems}",
            uri=uri,
        )

    def contents(
        self, uri: str, result: ToolResult, limit: int, project_dir: Path | None = None
    ) -> tuple[ResourceContents, ...]:
        """The read's result as its parts; :class:`ResourceError` for a failed or oversized one.

        One part, unless the handler returned several :class:`ResourceContents` (an
        MCP read may hold several: an attached server's, a folder's files).
        """
        if not result.ok:
            failure = result.error
            kind = failure.kind if failure is not None else "execution_error"
            message = failure.message if failure is not None else result.text
            raise ResourceError(str(kind), message, uri=uri)
        value = result.value
        try:
            if isinstance(value, Media):  # Image / Audio / File: loaded (confined) and capped
                value = _loaded(value, project_dir, limit)
            if _is_parts(value):
                found = tuple(contents_of(uri, part, self.mime_type) for part in value)
            else:
                found = (contents_of(uri, value, self.mime_type),)
        except MediaRefused as exc:
            raise ResourceError(exc.kind, exc.message, uri=uri) from None
        except (TypeError, ValueError) as exc:
            raise ResourceError("execution_error", str(exc), uri=uri) from None
        size = sum(part.size for part in found)
        if size > limit:
            raise ResourceError(
                "too_large",
                f"the resource is {size:,} bytes, more than the {limit:,} a read may return",
                uri=uri,
            )
        return found


def _is_parts(value: Any) -> bool:
    """Several parts: a non-empty list or tuple of ResourceContents, and nothing else (a list
    of other values is JSON data, one part)."""
    return (
        type(value) in {list, tuple}
        and bool(value)
        and all(isinstance(part, ResourceContents) for part in value)
    )


def unknown_resource(uri: str) -> ResourceError:
    """The error for a URI no resource answers (shown cut to 200 characters)."""
    shown = uri if isinstance(uri, str) and len(uri) <= 200 else f"{str(uri)[:200]}..."
    return ResourceError(
        "unknown_resource",
        "no resource has this URI; list resources and resource templates to see what can be read",
        uri=shown,
    )


def file_stamp(prepared: PreparedResource, project_dir: Any) -> object:
    """What changes when a file resource's file does (device, inode, mtime, size), or None
    when it cannot be seen; :data:`NOT_A_FILE` for a resource served by a handler."""
    path = prepared.spec.file
    if path is None:
        return NOT_A_FILE
    if project_dir is None:
        return None
    stamp: object = importlib.import_module(_HANDLERS).file_stamp(path, project_dir)
    return stamp


NOT_A_FILE = object()
"""The stamp of a resource that is not a file (nothing on disk to watch)."""


def _loaded(media: Media, project_dir: Path | None, limit: int) -> ResourceContents:
    """A handler's Image, Audio or File with its bytes (a path read confined, within the cap)."""
    _, content = shape_media(media, None, project_dir, limit)
    loaded = content[0]
    assert isinstance(loaded, Media)
    assert loaded.data is not None
    return contents_of("", loaded.data, loaded.mime_type)


def contents_of(uri: str, value: Any, mime_type: str | None) -> ResourceContents:
    """A handler's value as contents: text, bytes, or JSON for anything else."""
    if isinstance(value, ResourceContents):
        return replace(value, uri=value.uri or uri, mime_type=value.mime_type or mime_type)
    if isinstance(value, str):
        return ResourceContents(uri, mime_type or "text/plain", text=value)
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        if mime_type is not None and _is_text_type(mime_type):
            try:
                return ResourceContents(uri, mime_type, text=data.decode("utf-8"))
            except UnicodeDecodeError:
                pass  # declared as text but is not UTF-8: passed on as bytes, never mangled
        return ResourceContents(uri, mime_type or "application/octet-stream", data=data)
    if value is None:
        raise ValueError("the resource's handler returned None; return its content")
    return ResourceContents(uri, mime_type or "application/json", text=to_text(value))


def prepare_resource(spec: ResourceSpec) -> PreparedResource:
    """Compile ``spec`` for reading, raising RegistrationError (TD121) for declaration mistakes."""
    problem = name_problem(spec.name)
    if problem is not None:
        raise _invalid(spec, f"resource name {spec.name!r} {problem}", ("name",))
    template = _template_of(spec)
    if (spec.handler is None) == (spec.file is None):
        raise _invalid(spec, "a resource needs exactly one of handler and file", ())
    if spec.handler is not None and not callable(spec.handler):
        raise _invalid(spec, f"handler {spec.handler!r} is not callable", ("handler",))
    if spec.mime_type is not None and not _is_mime_type(spec.mime_type):
        raise _invalid(
            spec,
            f"mime_type {spec.mime_type!r} is not a media type such as text/markdown",
            ("mime_type",),
        )
    params = spec.params
    if template is not None:
        _check_variables(spec, template, params)
    elif params:
        raise _invalid(
            spec, "a fixed resource (uri:) takes no params; use uri_template", ("params",)
        )
    handler, mime_type = spec.handler, spec.mime_type
    if spec.file is not None:
        if template is not None:
            raise _invalid(
                spec, "file: serves one fixed resource; use uri:, not uri_template", ("file",)
            )
        handler, mime_type = _file_backed(spec)
    assert handler is not None
    try:
        tool = prepare_tool(
            ToolSpec(
                name=spec.name,
                description=spec.description or spec.name,
                handler=handler,
                params=params,
                lenient=True,  # a URI carries text: "42" is an integer's spelling there
                scopes=spec.scopes,
            )
        )
    except RegistrationError as exc:
        raise RegistrationError(
            exc.message, tool_name=spec.name, param=exc.param, code=exc.code, path=exc.path
        ) from None
    return PreparedResource(spec, replace(tool, shaper=_KEEP), template, mime_type)


def _file_backed(spec: ResourceSpec) -> tuple[Callable[..., Any], str]:
    """The handler that reads the file (confined), and its type (declared or guessed)."""
    path = spec.file or ""
    if not isinstance(path, str) or not path or "\0" in path:
        raise _invalid(spec, f"file {path!r} is not a relative path", ("file",))
    if path.startswith(("/", "~", "\\")) or ".." in path.replace("\\", "/").split("/"):
        raise _invalid(
            spec,
            f"file {path!r} is outside the project directory; name a file inside it, "
            "relative to it (such as README.md)",
            ("file",),
        )
    read = importlib.import_module(_HANDLERS).read_project_file
    mime = spec.mime_type or mimetypes.guess_type(path)[0] or "application/octet-stream"
    handler = partial(_read_file, read, path)
    handler.__signature__ = _file_signature()  # type: ignore[attr-defined]
    return handler, mime


@cache
def _file_signature() -> inspect.Signature:
    """Every file reader's signature, worked out once: a manifest of 10,000 file resources
    would otherwise have ``inspect`` read (and evaluate) it 10,000 times."""
    return inspect.signature(partial(_read_file, None, ""), eval_str=True)


def _read_file(read: Any, path: str, project_dir: Any) -> bytes:
    """``project_dir`` is injected by name, as for the file tools."""
    data: bytes = read(path, project_dir, MAX_RESOURCE_BYTES)
    return data


def _template_of(spec: ResourceSpec) -> UriTemplate | None:
    if (spec.uri is None) == (spec.uri_template is None):
        raise _invalid(spec, "a resource needs exactly one of uri and uri_template", ())
    if spec.uri is not None:
        if not isinstance(spec.uri, str) or not is_uri(spec.uri) or len(spec.uri) > MAX_URI_LENGTH:
            raise _invalid(
                spec,
                f"uri {spec.uri!r} is not an absolute URI such as docs://readme "
                "(a scheme, no spaces, no braces: a template is uri_template)",
                ("uri",),
            )
        return None
    try:
        return UriTemplate(spec.uri_template or "")
    except UriTemplateError as exc:
        raise _invalid(spec, str(exc), ("uri_template",)) from None


def _check_variables(
    spec: ResourceSpec, template: UriTemplate, params: tuple[ParamDescriptor, ...]
) -> None:
    declared = {p.name: index for index, p in enumerate(params)}
    for variable in template.variables:
        if variable not in declared:
            raise _invalid(
                spec,
                f"uri_template uses {{{variable}}} but declares no parameter {variable!r}; "
                f"add it to params",
                ("uri_template",),
            )
    for name, index in declared.items():
        if name not in template.variables:
            raise _invalid(
                spec,
                f"parameter {name!r} is not a variable of uri_template {template.template!r}; "
                "a URI can only carry the template's variables",
                ("params", index),
            )


def _invalid(spec: ResourceSpec, message: str, path: tuple[str | int, ...]) -> RegistrationError:
    return RegistrationError(message, tool_name=spec.name, code="TD121", path=path)


def _is_mime_type(text: object) -> bool:
    if not isinstance(text, str) or text.count("/") < 1 or len(text) > 255:
        return False
    kind, _, rest = text.partition("/")
    return (
        bool(kind)
        and bool(rest)
        and all(c.isprintable() and not c.isspace() for c in kind + rest.split(";")[0])
    )


def _is_text_type(mime: str) -> bool:
    base = mime.split(";", 1)[0].strip().lower()
    return base.startswith("text/") or base in _TEXT_TYPES or base.endswith(_TEXT_SUFFIXES)
