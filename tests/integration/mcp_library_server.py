"""A real stdio MCP server (the ``mcp`` package's ``MCPServer``) with tools, prompts and resources.

Run as ``python mcp_library_server.py [NAME]``; tests attach it with ``via: client``
and reach it through a ``tooldeck serve`` gateway.

* tools: ``echo(text)``; ``snapshot()`` (a text block and an image block);
  ``add_prompt(name)`` adds a prompt called ``name`` and announces
  ``notifications/prompts/list_changed``; ``quit()`` ends the process;
* prompts: ``greet(name, greeting?)`` (one user message), ``review(code)`` (a user
  and an assistant message), ``picture()`` (a text block and an image block),
  ``broken()`` (fails), ``internal()`` (for deny lists);
* resources: ``info://about`` (text), ``broken://now`` (fails), ``items://{item}``
  (a template).

When ``$LIBRARY_DOWN_FILE`` names a file that exists, it exits at once (status 3):
a server that cannot start any more.
"""

import os
import sys

PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)
"""A 1x1 PNG."""


def main() -> None:
    down = os.environ.get("LIBRARY_DOWN_FILE")
    if down and os.path.exists(down):
        sys.exit(3)
    from mcp.server.mcpserver import AssistantMessage, Context, Image, MCPServer, UserMessage

    server = MCPServer(sys.argv[1] if len(sys.argv) > 1 else "library")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    async def add_prompt(name: str, ctx: Context) -> str:
        """Add a prompt called ``name`` and tell the client."""
        from mcp.server.mcpserver.prompts.base import Prompt

        def added() -> str:
            return f"I am the prompt {name}"

        server.add_prompt(Prompt.from_function(added, name=name, description=f"Prompt {name}."))
        await ctx.session.send_prompt_list_changed()
        return "added"

    @server.tool(structured_output=False)
    def snapshot() -> list[object]:
        """A caption and a picture."""
        return ["A tiny picture:", Image(data=PIXEL, format="png")]

    @server.tool()
    def quit() -> str:
        """End the server process."""
        os._exit(0)

    @server.prompt(description="Greet someone by name.")
    def greet(name: str, greeting: str = "Hello") -> str:
        return f"{greeting}, {name}!"

    @server.prompt(description="Review a piece of code.")
    def review(code: str) -> list[object]:
        return [
            UserMessage(f"Please review:\n{code}"),
            AssistantMessage("I will look at naming first."),
        ]

    @server.prompt(description="A picture and a caption.")
    def picture() -> list[object]:
        return [UserMessage("A tiny picture:"), UserMessage(Image(data=PIXEL, format="png"))]

    @server.prompt(description="Always fails.")
    def broken() -> str:
        raise ValueError("the prompt store is offline")

    @server.prompt(description="Not for outsiders.")
    def internal() -> str:
        return "internal notes"

    @server.resource("info://about", description="What this server is.", mime_type="text/plain")
    def about() -> str:
        return "a library of prompts"

    @server.resource("broken://now", description="Always fails.")
    def broken_resource() -> str:
        raise ValueError("the archive is offline")

    @server.resource("items://{item}", description="One item.", mime_type="text/plain")
    def item(item: str) -> str:
        return f"item {item}"

    server.run()


if __name__ == "__main__":
    main()
