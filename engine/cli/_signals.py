"""SIGTERM and SIGHUP end a ``tooldeck`` process the way Ctrl-C does: cleanly.

Python's default for SIGTERM ends the process on the spot: no ``finally``
block runs, so the stdio MCP servers ``serve``, ``call``, ``list``, ``chat``
or ``lint`` started are left running (each in a process group of its own,
which a signal to ``tooldeck``'s group does not reach). The handler installed
here passes the signal to whatever handles SIGINT at that moment: inside
``asyncio.run`` that is asyncio's, which cancels the main task (every
``async with`` unwinds and stops its servers) and then raises
:class:`KeyboardInterrupt`; outside it, Python's, which raises
:class:`KeyboardInterrupt` at once. A second signal while unwinding
interrupts harder, as a second Ctrl-C does.

Installed only for a ``tooldeck`` process (the console script or ``python
-m tooldeck``), from the main thread, and only over the default disposition:
a program that calls :func:`tooldeck.cli.main` keeps its own signal policy.
"""

from __future__ import annotations

import signal
import threading

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    from types import FrameType

__all__ = ["end_cleanly_on_signals", "terminated_by"]

_ENDING = ("SIGTERM", "SIGHUP")
"""Signals that ask a process to end (by name: SIGHUP does not exist on Windows)."""

_received: list[int] = []


def end_cleanly_on_signals() -> None:
    """Make SIGTERM and SIGHUP interrupt like Ctrl-C, for this process."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in _ENDING:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            signal.signal(number, _as_interrupt)


def terminated_by() -> int | None:
    """The signal that ended the command, if one of :data:`_ENDING` did."""
    return _received[-1] if _received else None


def _as_interrupt(number: int, frame: FrameType | None) -> None:
    _received.append(number)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:  # SIGINT ignored or at its default: interrupt anyway, the process must end
        raise KeyboardInterrupt
