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
    from tooldeck.config import Config, load_config
    from tooldeck.diagnostics import Diagnostic, Severity, SourceLocation
    from tooldeck.errors import (
        DuplicateToolError,
        ManifestError,
        RegistrationError,
        ToolCallError,
        ToolDeckError,
    )
    from tooldeck.manifest.live import LiveManifests, ReloadEvent, ReloadStatus
    from tooldeck.manifest.loader import LoadResult, load_manifests
    from tooldeck.model import (
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
    from tooldeck.names import is_provider_safe, safe_name
    from tooldeck.policies import ApprovalRequest, CallEvent, Decision, RetrySpec
    from tooldeck.prompts import PromptMessage
    from tooldeck.registry import GroupContent, RegistryChange, ToolRegistry
    from tooldeck.reload import Watcher, watch
    from tooldeck.schema import tool_input_schema

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
    "ApprovalRequest": "tooldeck.policies",
    "CallEvent": "tooldeck.policies",
    "Config": "tooldeck.config",
    "Decision": "tooldeck.policies",
    "Diagnostic": "tooldeck.diagnostics",
    "DuplicateToolError": "tooldeck.errors",
    "ErrorKind": "tooldeck.model",
    "GroupContent": "tooldeck.registry",
    "LiveManifests": "tooldeck.manifest.live",
    "LoadResult": "tooldeck.manifest.loader",
    "MISSING": "tooldeck.model",
    "ManifestError": "tooldeck.errors",
    "McpServerSpec": "tooldeck.model",
    "Param": "tooldeck.model",
    "ParamDescriptor": "tooldeck.model",
    "PromptMessage": "tooldeck.prompts",
    "PromptSpec": "tooldeck.model",
    "RegistrationError": "tooldeck.errors",
    "RegistryChange": "tooldeck.registry",
    "ReloadEvent": "tooldeck.manifest.live",
    "ReloadStatus": "tooldeck.manifest.live",
    "ResultSpec": "tooldeck.model",
    "RetrySpec": "tooldeck.policies",
    "Severity": "tooldeck.diagnostics",
    "SourceLocation": "tooldeck.diagnostics",
    "ToolCall": "tooldeck.model",
    "ToolCallError": "tooldeck.errors",
    "ToolContext": "tooldeck.model",
    "ToolDeckError": "tooldeck.errors",
    "ToolError": "tooldeck.model",
    "ToolRegistry": "tooldeck.registry",
    "ToolResult": "tooldeck.model",
    "ToolSpec": "tooldeck.model",
    "Watcher": "tooldeck.reload",
    "WebSearchSpec": "tooldeck.model",
    "is_provider_safe": "tooldeck.names",
    "load_config": "tooldeck.config",
    "load_manifests": "tooldeck.manifest.loader",
    "safe_name": "tooldeck.names",
    "tool_input_schema": "tooldeck.schema",
    "watch": "tooldeck.reload",
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
