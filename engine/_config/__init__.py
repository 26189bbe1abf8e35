"""The application's configuration: values a manifest reads with ``${config:...}``.

``configuration``: a mapping from code or a YAML, JSON or ``.properties`` file;
``javaprops``: the Java ``.properties`` text format, read as ``Properties.load`` reads it;
``hosted_keys``: provider-hosted tools (web search) and MCP servers declared in sections of
configuration keys (``MCP_1.*``), as the Java functional-tools SPI declares them.
"""

import typing

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .configuration import Config, load_config

__all__ = [
    "Config",
    "load_config",
]

_EXPORTS: dict[str, str] = {
    "Config": ".configuration",
    "load_config": ".configuration",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
