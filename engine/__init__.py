"""tooldeck: declare the tools an LLM may call, validate and call them, export them.

The programmatic registry is the core; YAML manifests compile into exactly
the same calls. ``import tooldeck`` stays light: openai, mcp and watchfiles are
imported only by the leaf modules that need them.

    >>> from tooldeck import ToolRegistry, Param
    >>> registry = ToolRegistry()
    >>> def greet(name: str) -> str:
    ...     return f"Hello, {name}!"
    >>> _ = registry.add_tool("greet", "Greet someone by name.", greet,
    ...                       Param("name", "string", True, "Who to greet"))
    >>> registry.call("greet", '{"name": "Ada"}').text
    'Hello, Ada!'
"""

import logging

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

# A library stays quiet unless the application configures logging.
logging.getLogger("tooldeck").addHandler(logging.NullHandler())
