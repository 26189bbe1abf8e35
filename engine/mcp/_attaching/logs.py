"""What the client side's logs may show: credentials as ``***``, an error as one line.

A connection's credentials (:func:`tooldeck._secrets.server_credentials`) are
hidden in the HTTP stack's logs while it is open (:data:`redact_logs`). The
SDK's client transports log some failures with ``logger.exception`` (a reply
they cannot parse, a stream that broke); those records keep their message and
gain the error's first line, but lose the traceback: a misbehaving server is
an expected event, and a CLI run (where no logging is configured, so Python's
last-resort handler prints warnings) must not print a traceback for it.
"""

from __future__ import annotations

import logging
import weakref

from ..._secrets import Secrets

__all__ = ["redact_logs"]

_ONE_LINE = frozenset({"mcp.client.stdio", "mcp.client.sse", "mcp.client.streamable_http"})
"""Loggers whose error records lose their traceback."""


class _ClientLogs(logging.Filter):
    """Shows the open connections' credentials as ``***``; SDK errors as one line.

    httpx2 logs every request's url at INFO, and the SDK's transports log the
    url and their errors: a password or a key in the url would be printed.
    """

    def __init__(self) -> None:
        super().__init__()
        self.live: weakref.WeakSet[Secrets] = weakref.WeakSet()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            if record.name in _ONE_LINE and record.exc_info and record.exc_info[1] is not None:
                record.msg, record.args = f"{record.getMessage()}: {_one_line(record)}", ()
                record.exc_info = record.exc_text = None
            if live := list(self.live):
                record.msg, record.args = _redact(live, record.getMessage()), ()
                if record.exc_info and not record.exc_text:  # formatters reuse exc_text
                    record.exc_text = logging.Formatter().formatException(record.exc_info)
                if record.exc_text:
                    record.exc_text = _redact(live, record.exc_text)
        except Exception:  # a broken format: the handler reports it, not the caller
            return True
        return True


def _one_line(record: logging.LogRecord) -> str:
    assert record.exc_info is not None
    exc = record.exc_info[1]
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _redact(live: list[Secrets], text: str) -> str:
    for secrets in live:
        text = secrets.redact(text)
    return text


redact_logs = _ClientLogs()
"""The filter on the HTTP stack's and the SDK's client loggers; ``live`` holds the open
connections' secrets."""
for _name in ("httpx2", *sorted(_ONE_LINE)):
    logging.getLogger(_name).addFilter(redact_logs)
