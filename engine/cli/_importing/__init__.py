"""What ``tooldeck import`` (:mod:`tooldeck.cli._import_cmd`) needs besides running the import.

``mcp_args``: ``import mcp``'s options on the parser (cheap: built for ``--help`` too);
``mcp_source``: those options -> the server to list and the one the manifest declares;
``project``: what a manifest written into a project also needs there (its handler module
allowed, the project's copy of the meta-schema). The command module itself stays beside
the others (``cli._{name}_cmd``), where the command table finds it.
"""

from ..._lazy import lazy_getattr as _lazy_getattr

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    from .mcp_args import MCP_TIMEOUT, add_mcp_parser, seconds
    from .mcp_source import (
        SECRET_HEADER,
        SourceError,
        default_server_name,
        server_source,
        server_spec,
    )
    from .project import ImportProject

__all__ = [
    "MCP_TIMEOUT",
    "SECRET_HEADER",
    "ImportProject",
    "SourceError",
    "add_mcp_parser",
    "default_server_name",
    "seconds",
    "server_source",
    "server_spec",
]

_EXPORTS: dict[str, str] = {
    "ImportProject": ".project",
    "MCP_TIMEOUT": ".mcp_args",
    "SECRET_HEADER": ".mcp_source",
    "SourceError": ".mcp_source",
    "add_mcp_parser": ".mcp_args",
    "default_server_name": ".mcp_source",
    "seconds": ".mcp_args",
    "server_source": ".mcp_source",
    "server_spec": ".mcp_source",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
