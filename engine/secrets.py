"""Values that must never be printed: env-sourced manifest values, tokens.

The manifest loader records every value it reads from the environment here;
everything tooldeck prints (``list``, ``export``, diagnostics, error results,
logs) passes through :meth:`Secrets.redact`, which shows ``***`` instead.
"""

from __future__ import annotations

import re
import threading
from typing import Any

__all__ = ["Secrets"]

_MIN_SECRET = 4
"""Shorter values are not redacted: hiding "1" everywhere would garble output."""


class Secrets:
    """Values that must never be printed; thread-safe, shared by a registry's loads."""

    def __init__(self) -> None:
        self._values: frozenset[str] = frozenset()
        self._pattern: re.Pattern[str] | None = None
        self._lock = threading.Lock()

    def add(self, value: str) -> None:
        if len(value) < _MIN_SECRET or value in self._values:
            return
        with self._lock:
            self._values = self._values | {value}
            ordered = sorted(self._values, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(v) for v in ordered))

    def __bool__(self) -> bool:
        return bool(self._values)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``***``."""
        pattern = self._pattern
        return text if pattern is None else pattern.sub("***", text)

    def redact_data(self, value: Any) -> Any:
        """Redact every string inside nested lists and dicts."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self.redact_data(v) for v in value]
        if isinstance(value, dict):
            return {k: self.redact_data(v) for k, v in value.items()}
        return value
