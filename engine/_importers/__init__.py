"""``tooldeck import``: write manifests from the tool definitions people already have.

Two sources: OpenAI-style function definitions in JSON (Chat Completions,
Responses, bare ``{name, description, parameters}``, MCP tool lists; JSON,
JSONL or wrapped in ``tools``), and the public functions of a Python module.
Both produce an :class:`ImportResult`: tools in manifest form plus every
problem as a located value (:class:`ImportProblem`, codes ``TD5xx``), never a
traceback. :func:`render_manifest` writes the YAML, :func:`render_stubs` a
typed handler module for imported JSON definitions.

A third source, an MCP server's tool listing, becomes ``use:`` entries
(:func:`convert_tools`, :func:`render_mcp_manifest`); connecting and listing
live in :mod:`tooldeck.mcp`, the command line's options in the CLI.

Private: the CLI (``tooldeck.cli._import_cmd``) is the public face, and it
imports only what this ``__init__`` exports. The exports are eager: only
``tooldeck import`` loads the package, after parsing its arguments, so
nothing at start-up pays for them. The package builds on the core and the
manifest loader; nothing in them imports it.

    >>> result = import_openai('[{"name": "ping", "description": "Check the service.", '
    ...                        '"parameters": {"type": "object", "properties": {}}}]')
    >>> assign_handlers(result, handler_module="myapp.tools")
    >>> print(render_manifest(result).split("version: 1", 1)[1].strip())
    tools:
      - name: ping
        description: Check the service.
        handler: myapp.tools:ping
        params: []
"""

from ._command_path import resolve_command
from ._handlers import (
    HANDLER_REFERENCE,
    assign_handlers,
    module_for_path,
    python_identifier,
    valid_module,
)
from ._mcp import McpImport, ServerSource, UseTool, convert_tools, unreachable
from ._openai import import_openai
from ._problems import ImportProblem, Severity
from ._python import import_python
from ._result import ImportedTool, ImportResult
from ._stubs import render_stubs
from ._yaml_mcp import render_mcp_manifest
from ._yaml_out import render_manifest

__all__ = [
    "HANDLER_REFERENCE",
    "ImportProblem",
    "ImportResult",
    "ImportedTool",
    "McpImport",
    "ServerSource",
    "Severity",
    "UseTool",
    "assign_handlers",
    "convert_tools",
    "import_openai",
    "import_python",
    "module_for_path",
    "python_identifier",
    "render_manifest",
    "render_mcp_manifest",
    "render_stubs",
    "resolve_command",
    "unreachable",
    "valid_module",
]
