"""tooldeck: declare the tools an LLM may call, validate and call them, export them.

The programmatic registry is the core; YAML manifests compile into exactly
the same calls. ``import engine`` stays light: openai, mcp and watchfiles are
imported only by the leaf modules that need them.

    >>> from engine import ToolRegistry, Param
    >>> registry = ToolRegistry()
    >>> def greet(name: str) -> str:
    ...     return f"Hello, {name}!"
    >>> _ = registry.add_tool("greet", "Greet someone by name.", greet,
    ...                       Param("name", "string", True, "Who to greet"))
    >>> registry.call("greet", '{"name": "Ada"}').text
    'Hello, Ada!'
"""

import logging

from engine.config import Config, load_config
from engine.diagnostics import Diagnostic, Severity, SourceLocation
from engine.errors import (
    DuplicateToolError,
    ManifestError,
    RegistrationError,
    ToolCallError,
    ToolDeckError,
)
from engine.manifest.live import LiveManifests, ReloadEvent, ReloadStatus
from engine.manifest.loader import LoadResult, load_manifests
from engine.model import (
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
from engine.names import is_provider_safe, safe_name
from engine.policies import ApprovalRequest, CallEvent, Decision, RetrySpec
from engine.prompts import PromptMessage
from engine.registry import GroupContent, RegistryChange, ToolRegistry
from engine.reload import Watcher, watch
from engine.schema import tool_input_schema

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

# A library stays quiet unless the application configures logging.
logging.getLogger("engine").addHandler(logging.NullHandler())
