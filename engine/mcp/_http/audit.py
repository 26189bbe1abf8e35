"""The audit log (``--audit-log FILE|-``): one JSON object per line for every tool call.

Each line: ``time`` (RFC 3339, UTC), ``subject`` and ``client_id`` (the
verified caller, ``null`` without authentication), ``client`` (its address),
``tool``, ``outcome``, ``duration_ms``, ``request_id``, ``session_id``; and
``arguments`` only with ``--audit-arguments``, masked: the registry's secrets
wherever they appear, and the whole value of every argument whose name looks
secret (``password``, ``token``, ``api_key``, ``authorization`` ...).

Text from clients (tool names, request ids, arguments) goes through
``json.dumps`` with ASCII escaping, so no newline, and no character another
reader might break lines at (U+2028), can start a forged line.

Lines are queued on the serving loop and written by a thread: a slow disk
never stalls calls. A full queue drops lines (counted); a file that cannot be
written (disk full, permissions) is reported once on standard error, and again
when writing works again, never once per call. A file deleted or rotated away
is reopened at its path.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._serving import CallRecord

__all__ = ["AuditLog", "audit_line", "mask_arguments"]

MASK = "***"
SECRET_NAME = re.compile(
    r"pass(word|wd|phrase)?|pwd|secret|token|api[-_]?key|apikey|auth|credential|"
    r"private[-_]?key|cookie|session[-_]?key|signature",
    re.IGNORECASE,
)
"""Argument names whose values are masked whole, wherever they are nested."""

_MAX_TEXT = 256
"""Characters kept of a tool name or request id (a client can send anything)."""
_QUEUE = 10_000
"""Lines waiting for the writer before new ones are dropped."""


def mask_arguments(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` with secret-looking keys' values masked and ``redact`` over every string."""
    if isinstance(value, dict):
        return {
            str(key): MASK if SECRET_NAME.search(str(key)) else mask_arguments(item, redact)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [mask_arguments(item, redact) for item in value]
    if isinstance(value, str):
        return redact(value)
    return value


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "..."


def audit_line(record: CallRecord, redact: Callable[[str], str], *, arguments: bool = False) -> str:
    """The JSON line (newline included) for one call."""
    identity = record.identity
    request_id = record.request_id
    entry: dict[str, Any] = {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "subject": identity.subject if identity is not None else None,
        "client_id": identity.client_id if identity is not None else None,
        "client": record.client,
        "tool": redact(_cut(record.tool if record.tool is not None else record.requested)),
        "outcome": record.outcome,
        "duration_ms": round(record.duration * 1000, 3),
        "request_id": _cut(request_id) if isinstance(request_id, str) else request_id,
        "session_id": record.session_id,
    }
    if arguments:
        entry["arguments"] = mask_arguments(dict(record.arguments), redact)
    return json.dumps(entry, ensure_ascii=True, separators=(",", ":"), default=str) + "\n"


class AuditLog:
    """Appends audit lines to a file (or standard error, for ``-``) from a writer thread.

    Opening happens in the constructor, so a path that cannot be written
    refuses to serve before anything listens (``OSError``).
    """

    def __init__(
        self, target: str, redact: Callable[[str], str], *, arguments: bool = False
    ) -> None:
        self.target = target
        self.redact = redact
        self.arguments = arguments
        self.dropped = 0
        self._lines: queue.Queue[str | None] = queue.Queue(maxsize=_QUEUE)
        self._file: IO[str] | None = None
        self._failing = False
        self._lost = 0
        if target != "-":
            self._file = self._open()
        self._thread: threading.Thread | None = None

    def _open(self) -> IO[str]:
        return open(self.target, "a", encoding="utf-8")  # kept open while serving

    # --------------------------------------------------------------- the loop side
    def start(self) -> None:
        self._thread = threading.Thread(target=self._write_lines, name="audit-log", daemon=True)
        self._thread.start()

    def __call__(self, record: CallRecord) -> None:
        """A call observer: queue the call's line, never wait."""
        try:
            self._lines.put_nowait(audit_line(record, self.redact, arguments=self.arguments))
        except queue.Full:
            self.dropped += 1
            if self.dropped == 1:
                self._report("the audit log's writer is behind; lines are being dropped")

    def close(self) -> None:
        """Write what is queued, then stop (blocks: call it from a thread or at exit)."""
        if self._thread is not None:
            self._lines.put(None)
            self._thread.join()
            self._thread = None
        if self._file is not None:
            self._file.close()
            self._file = None

    # ------------------------------------------------------------- the writer side
    def _write_lines(self) -> None:
        while True:
            line = self._lines.get()
            if line is None:
                return
            batch = [line]
            while len(batch) < 1000:  # what else is waiting goes out in the same write
                try:
                    more = self._lines.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._write("".join(batch), len(batch))
                    return
                batch.append(more)
            self._write("".join(batch), len(batch))

    def _write(self, text: str, count: int) -> None:
        try:
            stream = sys.stderr if self.target == "-" else self._current()
            stream.write(text)
            stream.flush()
        except (OSError, ValueError) as exc:
            self._lost += count
            self._drop_file()  # its buffer holds what failed: start again from a fresh open
            if not self._failing:
                self._failing = True
                self._report(f"cannot write the audit log {self.target}: {exc}")
            return
        if self._failing:
            self._failing = False
            self._report(f"the audit log {self.target} is written again ({self._lost} lines lost)")
            self._lost = 0

    def _current(self) -> IO[str]:
        """The open file, reopened when its path no longer names it (deleted, rotated)."""
        file = self._file
        try:
            same = file is not None and os.path.samestat(
                os.stat(self.target), os.fstat(file.fileno())
            )
        except OSError:
            same = False
        if file is None or not same:
            self._drop_file()
            self._file = file = self._open()
        return file

    def _drop_file(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(OSError, ValueError):
                file.close()

    def _report(self, message: str) -> None:
        try:
            sys.stderr.write(f"tooldeck: {message}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
