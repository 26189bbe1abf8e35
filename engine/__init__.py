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

from tooldeck._lazy import lazy_getattr as _lazy_getattr
from tooldeck._version import __version__ as __version__

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; type checkers read this as True
if TYPE_CHECKING:  # the same names, eagerly, for type checkers and editors
    from tooldeck._calltypes import CallFailure, ToolCall, ToolContext, ToolResult
    from tooldeck._config import Config, load_config
    from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation
    from tooldeck._entries import DuplicatePolicy, GroupContent, RegistryChange
    from tooldeck._errors import (
        DuplicateToolError,
        ErrorKind,
        ExportError,
        ManifestError,
        RegistrationError,
        ToolCallError,
        ToolDeckError,
        ToolFailed,
    )
    from tooldeck._model import (
        McpServerSpec,
        PromptSpec,
        ResultSpec,
        RetrySpec,
        ToolSpec,
        WebSearchSpec,
    )
    from tooldeck._names import is_provider_safe, safe_name
    from tooldeck._params import MISSING, Param, ParamDescriptor
    from tooldeck._policies import (
        AfterHook,
        ApprovalCallback,
        ApprovalRequest,
        BeforeHook,
        CallEvent,
        Decision,
    )
    from tooldeck._prompts import PromptMessage
    from tooldeck._registry import ToolRegistry
    from tooldeck._reload import Watcher, watch
    from tooldeck._schema import tool_input_schema
    from tooldeck._subscribers import Subscriber
    from tooldeck.manifest._events import ReloadEvent, ReloadStatus
    from tooldeck.manifest._live import LiveManifests
    from tooldeck.manifest._manifests import LoadResult, from_manifests, load_manifests
    from tooldeck.manifest._project import load_project
    from tooldeck.providers import PROVIDERS, export_tools, strict_schema

__all__ = [
    "MISSING",
    "PROVIDERS",
    "AfterHook",
    "ApprovalCallback",
    "ApprovalRequest",
    "BeforeHook",
    "CallEvent",
    "CallFailure",
    "Config",
    "Decision",
    "Diagnostic",
    "DuplicatePolicy",
    "DuplicateToolError",
    "ErrorKind",
    "ExportError",
    "GroupContent",
    "LiveManifests",
    "LoadResult",
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
    "ToolSpec",
    "Watcher",
    "WebSearchSpec",
    "export_tools",
    "from_manifests",
    "is_provider_safe",
    "load_config",
    "load_manifests",
    "load_project",
    "safe_name",
    "strict_schema",
    "tool_input_schema",
    "watch",
]

_EXPORTS: dict[str, str] = {
    "AfterHook": "tooldeck._policies",
    "ApprovalCallback": "tooldeck._policies",
    "ApprovalRequest": "tooldeck._policies",
    "BeforeHook": "tooldeck._policies",
    "CallEvent": "tooldeck._policies",
    "CallFailure": "tooldeck._calltypes",
    "Config": "tooldeck._config",
    "Decision": "tooldeck._policies",
    "Diagnostic": "tooldeck._diagnostics",
    "DuplicatePolicy": "tooldeck._entries",
    "DuplicateToolError": "tooldeck._errors",
    "ErrorKind": "tooldeck._errors",
    "ExportError": "tooldeck._errors",
    "GroupContent": "tooldeck._entries",
    "LiveManifests": "tooldeck.manifest._live",
    "LoadResult": "tooldeck.manifest._manifests",
    "load_project": "tooldeck.manifest._project",
    "MISSING": "tooldeck._params",
    "ManifestError": "tooldeck._errors",
    "McpServerSpec": "tooldeck._model",
    "PROVIDERS": "tooldeck.providers",
    "Param": "tooldeck._params",
    "ParamDescriptor": "tooldeck._params",
    "PromptMessage": "tooldeck._prompts",
    "PromptSpec": "tooldeck._model",
    "RegistrationError": "tooldeck._errors",
    "RegistryChange": "tooldeck._entries",
    "ReloadEvent": "tooldeck.manifest._events",
    "ReloadStatus": "tooldeck.manifest._events",
    "ResultSpec": "tooldeck._model",
    "RetrySpec": "tooldeck._model",
    "Severity": "tooldeck._diagnostics",
    "SourceLocation": "tooldeck._diagnostics",
    "Subscriber": "tooldeck._subscribers",
    "ToolCall": "tooldeck._calltypes",
    "ToolCallError": "tooldeck._errors",
    "ToolContext": "tooldeck._calltypes",
    "ToolDeckError": "tooldeck._errors",
    "ToolFailed": "tooldeck._errors",
    "ToolRegistry": "tooldeck._registry",
    "ToolResult": "tooldeck._calltypes",
    "ToolSpec": "tooldeck._model",
    "Watcher": "tooldeck._reload",
    "WebSearchSpec": "tooldeck._model",
    "export_tools": "tooldeck.providers",
    "from_manifests": "tooldeck.manifest._manifests",
    "is_provider_safe": "tooldeck._names",
    "load_config": "tooldeck._config",
    "load_manifests": "tooldeck.manifest._manifests",
    "safe_name": "tooldeck._names",
    "strict_schema": "tooldeck.providers",
    "tool_input_schema": "tooldeck._schema",
    "watch": "tooldeck._reload",
}
"""Public name -> the module that defines it (imported on first use)."""


__getattr__ = _lazy_getattr(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
