"""What one manifest file declares, ready to register as one group: the :class:`Bundle`.

The builder fills it (:mod:`.document`); the loader, the live manifests, the
clash checks and lint read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..._binding import PreparedTool
from ..._diagnostics import Diagnostic
from ..._model import McpServerSpec, McpToolUse, PromptSpec, ToolSpec, WebSearchSpec
from ..._prompts import PreparedPrompt

__all__ = ["Bundle", "Path_"]

Path_ = tuple[str | int, ...]
"""Where in a manifest document: keys and list indexes from its root."""


@dataclass
class Bundle:
    """What one manifest file declares, ready to register as one group."""

    file: str
    name: str
    description: str = ""
    active: bool = True
    inactive_reason: str = ""
    tools: list[ToolSpec] = field(default_factory=list)
    tool_paths: dict[str, Path_] = field(default_factory=dict)
    prompts: list[PromptSpec] = field(default_factory=list)
    prompt_paths: dict[str, Path_] = field(default_factory=dict)
    servers: list[McpServerSpec] = field(default_factory=list)
    server_paths: dict[str, Path_] = field(default_factory=dict)
    uses: list[McpToolUse] = field(default_factory=list)
    """Tools implemented by attached MCP servers' tools (``use: SERVER/TOOL``)."""
    web_search: WebSearchSpec | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    prepared_tools: dict[str, PreparedTool] = field(default_factory=dict, repr=False)
    """Each good tool compiled once, by name: what the registry stores."""
    prepared_prompts: dict[str, PreparedPrompt] = field(default_factory=dict, repr=False)
    handlers: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    """Handler references resolved while building, also for tools that then failed."""
