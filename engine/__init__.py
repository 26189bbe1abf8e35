"""tooldeck: declare the tools an LLM may call, validate and call them, export them.

The programmatic registry is the core; YAML manifests compile into exactly
the same calls. ``import tooldeck`` stays light: every public name is imported
from its module on first use (a CLI run in pre-commit pays only for what its
command needs), and openai, mcp and watchfiles are imported only by the leaf
modules that need them.

    >>> from tooldeck import ToolRegistry, Param
    >>> registry = ToolRegistry()
    >>> def greet(name: str) -> str:
    ...     return f"Hello, {name}!"
    >>> _ = registry.add_tool("greet", "Greet someone by name.", greet,
    ...                       Param("name", "string", True, "Who to greet"))
    >>> registry.call("greet", '{"name": "Ada"}').text
    'Hello, Ada!'
"""

from __future__ import annotations

from ._lazy import lazy_getattr as _lazy_getattr
from ._version import __version__ as __version__

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; type checkers read this as True
if TYPE_CHECKING:  # the same names, eagerly, for type checkers and editors
    from ._calling import (
        AfterHook,
        ApprovalCallback,
        ApprovalRequest,
        BeforeHook,
        CallEvent,
        Decision,
        Deferral,
    )
    from ._calltypes import CallFailure, ToolCall, ToolContext, ToolResult
    from ._config import Config, load_config
    from ._diagnostics import Diagnostic, Severity, SourceLocation
    from ._entries import DuplicatePolicy, GroupContent, RegistryChange
    from ._errors import (
        DuplicateToolError,
        ErrorKind,
        ExportError,
        ManifestError,
        RegistrationError,
        ResourceError,
        ToolCallError,
        ToolDeckError,
        ToolFailed,
    )
    from ._identity import AuthIdentity
    from ._lastreload import ReloadEvent, ReloadStatus
    from ._media import Audio, File, Image
    from ._model import (
        McpServerSpec,
        PromptSpec,
        ResourceSpec,
        ResultSpec,
        RetrySpec,
        ToolSpec,
        WebSearchSpec,
    )
    from ._names import is_provider_safe, safe_name
    from ._params import MISSING, Param, ParamDescriptor
    from ._progress import CallReporter, LogLevel, reporting
    from ._prompts import PromptMessage
    from ._registry import ToolRegistry
    from ._reload import Watcher, watch
    from ._resourceread import ResourceContents
    from ._resources import bundled_manifests
    from ._schema import tool_input_schema
    from ._sources import ToolSource
    from ._subscribers import Subscriber
    from .manifest._live import LiveManifests
    from .manifest._manifests import LoadResult, from_manifests, load_manifests
    from .manifest._project import load_project
    from .providers import PROVIDERS, export_tools, strict_schema

__all__ = [
    "MISSING",
    "PROVIDERS",
    "AfterHook",
    "ApprovalCallback",
    "ApprovalRequest",
    "Audio",
    "AuthIdentity",
    "BeforeHook",
    "CallEvent",
    "CallFailure",
    "CallReporter",
    "Config",
    "Decision",
    "Deferral",
    "Diagnostic",
    "DuplicatePolicy",
    "DuplicateToolError",
    "ErrorKind",
    "ExportError",
    "File",
    "GroupContent",
    "Image",
    "LiveManifests",
    "LoadResult",
    "LogLevel",
    "ManifestError",
    "McpServerSpec",
    "Param",
    "ParamDescriptor",
    "PromptMessage",
    "PromptSpec",
    "RegistrationError",
    "RegistryChange",
    "ReloadEvent",
    "ReloadStatus",
    "ResourceContents",
    "ResourceError",
    "ResourceSpec",
    "ResultSpec",
    "RetrySpec",
    "Severity",
    "SourceLocation",
    "Subscriber",
    "ToolCall",
    "ToolCallError",
    "ToolContext",
    "ToolDeckError",
    "ToolFailed",
    "ToolRegistry",
    "ToolResult",
    "ToolSource",
    "ToolSpec",
    "Watcher",
    "WebSearchSpec",
    "bundled_manifests",
    "export_tools",
    "from_manifests",
    "is_provider_safe",
    "load_config",
    "load_manifests",
    "load_project",
    "reporting",
    "safe_name",
    "strict_schema",
    "tool_input_schema",
    "watch",
]

_EXPORTS: dict[str, str] = {
    "AfterHook": "._calling",
    "Audio": "._media",
    "File": "._media",
    "Image": "._media",
    "ApprovalCallback": "._calling",
    "ApprovalRequest": "._calling",
    "BeforeHook": "._calling",
    "CallEvent": "._calling",
    "CallFailure": "._calltypes",
    "CallReporter": "._progress",
    "LogLevel": "._progress",
    "reporting": "._progress",
    "Config": "._config",
    "Decision": "._calling",
    "Deferral": "._calling",
    "Diagnostic": "._diagnostics",
    "DuplicatePolicy": "._entries",
    "DuplicateToolError": "._errors",
    "ErrorKind": "._errors",
    "ExportError": "._errors",
    "GroupContent": "._entries",
    "LiveManifests": ".manifest._live",
    "LoadResult": ".manifest._manifests",
    "load_project": ".manifest._project",
    "MISSING": "._params",
    "ManifestError": "._errors",
    "McpServerSpec": "._model",
    "PROVIDERS": ".providers",
    "Param": "._params",
    "ParamDescriptor": "._params",
    "PromptMessage": "._prompts",
    "PromptSpec": "._model",
    "RegistrationError": "._errors",
    "ResourceContents": "._resourceread",
    "ResourceError": "._errors",
    "ResourceSpec": "._model",
    "RegistryChange": "._entries",
    "ReloadEvent": "._lastreload",
    "ReloadStatus": "._lastreload",
    "ResultSpec": "._model",
    "RetrySpec": "._model",
    "Severity": "._diagnostics",
    "SourceLocation": "._diagnostics",
    "Subscriber": "._subscribers",
    "ToolCall": "._calltypes",
    "ToolCallError": "._errors",
    "ToolContext": "._calltypes",
    "AuthIdentity": "._identity",
    "ToolDeckError": "._errors",
    "ToolFailed": "._errors",
    "ToolRegistry": "._registry",
    "ToolResult": "._calltypes",
    "ToolSource": "._sources",
    "ToolSpec": "._model",
    "Watcher": "._reload",
    "WebSearchSpec": "._model",
    "export_tools": ".providers",
    "from_manifests": ".manifest._manifests",
    "is_provider_safe": "._names",
    "load_config": "._config",
    "bundled_manifests": "._resources",
    "load_manifests": ".manifest._manifests",
    "safe_name": "._names",
    "strict_schema": ".providers",
    "tool_input_schema": "._schema",
    "watch": "._reload",
}
"""Public name -> the module that defines it (imported on first use)."""


__getattr__ = _lazy_getattr(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
