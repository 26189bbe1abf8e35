"""The registry's prompt half (mixed into ToolRegistry): look prompts up and render them.

Local prompts render in the calling thread from a template or a handler; a
prompt with a ``renderer`` (an attached MCP server's, registered by its
attachment) is awaited on the registry's loop. :meth:`PromptAccess.arender_prompt`
gives every message a prompt renders, which a remote prompt may make several
of, with content that is not text; :meth:`PromptAccess.render_prompt` keeps
its one-message answer. What a render shows passes the registry's secrets
redaction either way. ``use: SERVER/PROMPT`` declarations are kept here too,
for the attachment that turns them into prompts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from ._errors import ToolCallError
from ._model import McpPromptUse, PromptSpec
from ._prompts import PreparedPrompt, PromptMessage

if TYPE_CHECKING:
    from ._binding import CallEnv
    from ._entries import Snapshot
    from ._secrets import Secrets
    from ._sources import Sources

__all__ = ["PromptAccess"]


class PromptAccess:
    """Prompt lookup and rendering; see the module docstring."""

    _snapshot: Snapshot
    _env: CallEnv
    _sources: Sources
    secrets: Secrets

    def get_prompt(self, name: str) -> PromptSpec | None:
        entry = self._snapshot.table("prompt").get(name)
        return cast(PromptSpec, entry.spec) if entry is not None else None

    def prompts(self) -> tuple[PromptSpec, ...]:
        """Every prompt, in registration order (attached servers' included, as last listed)."""
        return tuple(cast(PromptSpec, e.spec) for e in self._snapshot.table("prompt").values())

    async def aprompts(self) -> tuple[PromptSpec, ...]:
        """Every prompt, after the stale sources (attached servers) refreshed (awaited)."""
        if self._sources:
            await self._sources.arefresh()
        return self.prompts()

    def prompt_uses(self) -> tuple[McpPromptUse, ...]:
        """Every ``use: SERVER/PROMPT`` declaration; an attachment turns them into prompts."""
        table = self._snapshot.table("prompt_use")
        return tuple(cast(McpPromptUse, e.spec) for e in table.values())

    def prompt_use(self, name: str) -> McpPromptUse | None:
        """The ``use:`` declaration that reserves the prompt name ``name``, if any."""
        entry = self._snapshot.table("prompt_use").get(name)
        return None if entry is None else cast(McpPromptUse, entry.spec)

    def render_prompt(self, name: str, arguments: Any = None) -> PromptMessage:
        """Render a prompt's text for its role; raises ToolCallError on bad arguments.

        A remote prompt that renders more than one message (or one that is
        not text) raises too: :meth:`arender_prompt` returns them all.
        """
        prompt = self._prepared(name)
        try:
            message = prompt.render(arguments, self._env)
        except ToolCallError as exc:
            raise self._redacted_error(exc) from None
        return self._redacted(message)

    async def arender_prompt(self, name: str, arguments: Any = None) -> tuple[PromptMessage, ...]:
        """Every message a prompt renders (awaiting an attached server's ``prompts/get``).

        A local prompt gives one message; an attached server's prompt as many
        as the server sends, each in its role, a block that is not text kept
        whole in :attr:`PromptMessage.content`. Raises ToolCallError on bad
        arguments (``invalid_arguments``) and on a server that fails
        (``mcp_error``, ``timeout``, ``execution_error``), worded for the caller.
        """
        if self._snapshot.table("prompt").get(name) is None and self._sources:
            await self._sources.arefresh(name)  # a lazy server's prompt, listed now
        prompt = self._prepared(name)
        try:
            messages = await prompt.arender(arguments, self._env)
        except ToolCallError as exc:
            raise self._redacted_error(exc) from None
        return tuple(self._redacted(message) for message in messages)

    def _prepared(self, name: str) -> PreparedPrompt:
        entry = self._snapshot.table("prompt").get(name)
        if entry is None:
            raise ToolCallError("unknown_tool", f"prompt {name!r} does not exist", tool_name=name)
        return cast(PreparedPrompt, entry.value)

    def _redacted(self, message: PromptMessage) -> PromptMessage:
        if not self.secrets:
            return message
        return replace(message, text=self.secrets.redact(message.text))

    def _redacted_error(self, exc: ToolCallError) -> ToolCallError:
        if not self.secrets:
            return exc
        return ToolCallError(exc.kind, self.secrets.redact(exc.message), tool_name=exc.tool_name)
