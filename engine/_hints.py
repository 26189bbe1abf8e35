"""The MCP behaviour hints a tool is announced with: one function, for ``serve`` and ``export``.

MCP tool annotations are hints a client reads to decide how careful to be.
Their defaults are the cautious ones (not read-only, destructive, not
idempotent, open world), so a hint must only be sent where it was declared:
announcing ``readOnlyHint: true`` for a tool nobody described would tell a
client it may skip asking its user. :func:`tool_hints` is the one place that
turns a :class:`~tooldeck._model.ToolSpec` into hints; ``tooldeck serve``
(:mod:`tooldeck.mcp._serving.server`) and ``export --provider mcp``
(:mod:`tooldeck.providers.mcp`) both call it, so they cannot disagree.

What counts as declared, strongest first:

* ``side_effects: true`` -> ``destructiveHint: true`` (and not read-only);
* ``side_effects: false`` written out, or a ``read-only`` tag
  (:data:`READ_ONLY_TAGS`) -> ``readOnlyHint: true``;
* ``idempotent: true`` -> ``idempotentHint: true``;
* the hints an attached server listed the tool with (``ToolSpec.hints``),
  passed on as they are where the above say nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._model import ToolSpec

__all__ = ["HINT_KEYS", "READ_ONLY_TAGS", "tool_hints"]

HINT_KEYS: tuple[str, ...] = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
"""The boolean MCP tool annotations, in the order they are written."""

READ_ONLY_TAGS = frozenset({"read-only", "readonly", "read_only"})
"""A tool tagged with one of these (and without side effects) is announced ``readOnlyHint``."""


def tool_hints(spec: ToolSpec) -> dict[str, bool]:
    """The hints ``spec`` declares, in MCP's camelCase keys; empty when it declares none."""
    hints = {key: value for key, value in spec.hints.items() if key in HINT_KEYS}
    hints = {key: value for key, value in hints.items() if isinstance(value, bool)}
    if spec.side_effects is True:
        hints["destructiveHint"] = True
        if hints.get("readOnlyHint") is True:  # the declaration wins over a server's word
            hints["readOnlyHint"] = False
    elif spec.side_effects is False or READ_ONLY_TAGS.intersection(spec.tags):
        hints["readOnlyHint"] = True
        hints.pop("destructiveHint", None)  # meaningless for a read-only tool (MCP)
    if spec.idempotent:
        hints["idempotentHint"] = True
    return {key: hints[key] for key in HINT_KEYS if key in hints}
