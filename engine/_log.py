"""The ``tooldeck`` loggers, quiet unless the application configures logging.

Modules that log take their logger from :func:`get_logger`, so the
``NullHandler`` is in place before any of them can emit, while ``import
tooldeck`` (and ``tooldeck --help``) does not import :mod:`logging` (~7 ms).
"""

from __future__ import annotations

import logging

__all__ = ["get_logger"]

logging.getLogger("tooldeck").addHandler(logging.NullHandler())


def get_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` for a name under ``tooldeck``."""
    return logging.getLogger(name)
