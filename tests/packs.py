"""What the tool packs' tests share: the context the engine injects into a pack's handler."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldeck import ToolContext


def ctx(config: Mapping[str, Any]) -> ToolContext:
    """The ``ToolContext`` a registry injects, carrying the application config ``config``."""
    return ToolContext(tool_name="test", call_id="c1", project_dir=None, config=config)
