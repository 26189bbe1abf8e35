"""The model client's logs show the registry's secrets as ``***`` while a loop runs.

A hosted MCP entry's ``${env:...}`` credentials go to the provider as
written (the provider must reach the server), so they are in the request
body. Some openai releases (2.0) log that body at DEBUG ("Request options:
..."), and an application that turns on debug logging would print them.
While :func:`~tooldeck.providers.run` or ``arun`` runs, the SDK's loggers
redact every secret of the registries in use; the request itself is
untouched (a filter sees a log record, never the wire).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from ..._secrets import Secrets

__all__ = ["secrets_hidden_in_client_logs"]

_LOGGERS = ("openai", "openai._base_client", "httpx", "httpx2")
"""A filter on a logger sees only that logger's own records: each is named."""


class _HideSecrets(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self.live: list[Secrets] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.live:
            return True
        try:
            text = record.getMessage()
            for secrets in list(self.live):
                text = secrets.redact(text)
            record.msg, record.args = text, ()
        except Exception:  # a broken format: the handler reports it, not the caller
            return True
        return True


_FILTER = _HideSecrets()
for _name in _LOGGERS:
    logging.getLogger(_name).addFilter(_FILTER)


@contextlib.contextmanager
def secrets_hidden_in_client_logs(secrets: Secrets) -> Iterator[None]:
    """While the block runs, ``secrets`` are ``***`` in the model client's log records."""
    _FILTER.live.append(secrets)
    try:
        yield
    finally:
        _FILTER.live.remove(secrets)
