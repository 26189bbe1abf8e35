"""The registry the provider tests export, and helpers to look inside definitions."""

from tooldeck import Param, ToolRegistry

RANGE_FRAGMENT = {
    "$defs": {
        "Range": {
            "type": "object",
            "properties": {"lo": {"type": "number"}, "hi": {"type": "number"}},
            "required": ["lo"],
        }
    },
    "type": "object",
    "properties": {
        "range": {"$ref": "#/$defs/Range", "description": "Bounds"},
        "since": {"type": ["string", "null"], "format": "date-time"},
    },
    "required": ["range"],
}


def search(query: str, limit: int = 10) -> str:
    """Search the notes.

    Args:
        query: what to look for
        limit: how many hits at most
    """
    return f"{query}:{limit}"


def sort_items(items, order="asc", options=None):
    return sorted(items, reverse=order == "desc")


def query(filter):
    return filter


def read_file(path: str) -> str:
    """Read a file."""
    return f"read {path}"


def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def ping() -> str:
    """Check the service is up."""
    return "pong"


def build_registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_tool(None, None, search)
    registry.add_tool(
        "sort_items",
        "Sort a list of numbers.",
        sort_items,
        Param("items", "array", True, "Numbers to sort", items=Param("item", "integer")),
        Param("order", "string", False, "Sort order", enum=("asc", "desc"), default="asc"),
        Param(
            "options",
            "object",
            False,
            "Extra options",
            properties={"stable": "boolean", "key": Param("key", "string", False)},
        ),
    )
    registry.add_tool("query", "Query by range.", query, Param("filter", schema=RANGE_FRAGMENT))
    registry.add_tool("files.read", None, read_file, idempotent=True)
    registry.add_tool("delete_file", None, delete_file, side_effects=True, idempotent=True)
    registry.add_tool(None, None, ping)
    registry.add_web_search("default", city="Prague", country="CZ", region="Prague")
    registry.add_mcp_server("project", "https://example.org/mcp", "Bearer t", "Project tools")
    registry.add_mcp_server("time", command=("mcp-server-time",), via="client")
    return registry


def walk(value):
    """Every mapping inside ``value``, depth first."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


SAFE_READ = ToolRegistry().safe_name("files.read")
