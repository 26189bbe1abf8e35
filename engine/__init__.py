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

import importlib
import logging
import typing

if typing.TYPE_CHECKING:  # the same names, eagerly, for type checkers and editors
    from tooldeck._config import Config, load_config
    from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation
    from tooldeck._errors import (
        DuplicateToolError,
        ManifestError,
        RegistrationError,
        ToolCallError,
        ToolDeckError,
    )
    from tooldeck._model import (
        MISSING,
        ErrorKind,
        McpServerSpec,
        Param,
        ParamDescriptor,
        PromptSpec,
        ResultSpec,
        ToolCall,
        ToolContext,
        ToolError,
        ToolResult,
        ToolSpec,
        WebSearchSpec,
    )
    from tooldeck._names import is_provider_safe, safe_name
    from tooldeck._policies import ApprovalRequest, CallEvent, Decision, RetrySpec
    from tooldeck._prompts import PromptMessage
    from tooldeck._registry import GroupContent, RegistryChange, ToolRegistry
    from tooldeck._reload import Watcher, watch
    from tooldeck._schema import tool_input_schema
    from tooldeck.manifest._live import LiveManifests, ReloadEvent, ReloadStatus
    from tooldeck.manifest._loader import LoadResult, load_manifests

__all__ = [
    "MISSING",
    "ApprovalRequest",
    "CallEvent",
    "Config",
    "Decision",
    "Diagnostic",
    "DuplicateToolError",
    "ErrorKind",
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
    "ToolCall",
    "ToolCallError",
    "ToolContext",
    "ToolDeckError",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "Watcher",
    "WebSearchSpec",
    "is_provider_safe",
    "load_config",
    "load_manifests",
    "safe_name",
    "tool_input_schema",
    "watch",
]

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "ApprovalRequest": "tooldeck._policies",
    "CallEvent": "tooldeck._policies",
    "Config": "tooldeck._config",
    "Decision": "tooldeck._policies",
    "Diagnostic": "tooldeck._diagnostics",
    "DuplicateToolError": "tooldeck._errors",
    "ErrorKind": "tooldeck._model",
    "GroupContent": "tooldeck._registry",
    "LiveManifests": "tooldeck.manifest._live",
    "LoadResult": "tooldeck.manifest._loader",
    "MISSING": "tooldeck._model",
    "ManifestError": "tooldeck._errors",
    "McpServerSpec": "tooldeck._model",
    "Param": "tooldeck._model",
    "ParamDescriptor": "tooldeck._model",
    "PromptMessage": "tooldeck._prompts",
    "PromptSpec": "tooldeck._model",
    "RegistrationError": "tooldeck._errors",
    "RegistryChange": "tooldeck._registry",
    "ReloadEvent": "tooldeck.manifest._live",
    "ReloadStatus": "tooldeck.manifest._live",
    "ResultSpec": "tooldeck._model",
    "RetrySpec": "tooldeck._policies",
    "Severity": "tooldeck._diagnostics",
    "SourceLocation": "tooldeck._diagnostics",
    "ToolCall": "tooldeck._model",
    "ToolCallError": "tooldeck._errors",
    "ToolContext": "tooldeck._model",
    "ToolDeckError": "tooldeck._errors",
    "ToolError": "tooldeck._model",
    "ToolRegistry": "tooldeck._registry",
    "ToolResult": "tooldeck._model",
    "ToolSpec": "tooldeck._model",
    "Watcher": "tooldeck._reload",
    "WebSearchSpec": "tooldeck._model",
    "is_provider_safe": "tooldeck._names",
    "load_config": "tooldeck._config",
    "load_manifests": "tooldeck.manifest._loader",
    "safe_name": "tooldeck._names",
    "tool_input_schema": "tooldeck._schema",
    "watch": "tooldeck._reload",
}
"""Public name -> the module that defines it."""


def __getattr__(name: str) -> typing.Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tooldeck' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


# A library stays quiet unless the application configures logging.
logging.getLogger("tooldeck").addHandler(logging.NullHandler())
