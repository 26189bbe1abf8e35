"""Worker threads for sync handlers: bounded, never blocking exit, stoppable past a timeout.

Three promises that :class:`concurrent.futures.ThreadPoolExecutor` cannot keep:

- **Bounded, refusing instead of queueing.** At most ``max_workers`` calls
  run at once (abandoned, timed-out ones included); one more is refused with
  :class:`PoolSaturated` straight away, so callers get a clear error rather
  than an unbounded queue.
- **Exit is never delayed.** Workers are daemon threads: a handler still
  running after its caller timed out does not hold the process open
  (``ThreadPoolExecutor`` joins its threads at interpreter exit).
- **Work stops at the time limit where Python can stop it.** :meth:`interrupt`
  raises :class:`HandlerTimedOut` inside a handler that is still running
  Python code, so a CPU-bound loop ends instead of burning a core. It is
  delivered at the next bytecode boundary: C code that holds the GIL, or a
  blocking system call, finishes first (the caller is answered on time
  either way, unless C code holds the GIL; see docs/security.md).

Two ways in: :meth:`WorkerPool.submit` answers with a
:class:`concurrent.futures.Future` (sync callers), :meth:`WorkerPool.submit_async`
with an :class:`asyncio.Future` of the caller's loop, completed by one
``loop.call_soon_threadsafe`` (the cheap hand-off ``acall`` uses).

An interruption is sent only while its task runs, at most once per task, and
never withdrawn: withdrawing one (``PyThreadState_SetAsyncExc(id, NULL)``)
leaves CPython 3.11's interpreter-wide "async exception pending" flag set,
which hangs any tracer or profiler installed later. When a task that was
interrupted ends, its worker makes sure the exception has landed, inside a
``try`` around a no-op, before it takes the next task.
"""

from __future__ import annotations

import ctypes
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from typing import TYPE_CHECKING, Any

from .._words import plural

if TYPE_CHECKING:
    import asyncio

__all__ = ["HandlerTimedOut", "PoolSaturated", "WorkerPool"]


def _busy(workers: int) -> str:
    """``all 2 tool worker threads are busy``, ``the 1 tool worker thread is busy``."""
    if workers == 1:
        return "the 1 tool worker thread is busy"
    return f"all {plural(workers, 'tool worker thread')} are busy"


_IDLE_SECONDS = 60.0
"""A worker with nothing to do for this long ends; the next call starts a fresh one."""

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
"""``(thread id, exception class)`` schedules it in that thread (delivered at its next check)."""


class PoolSaturated(RuntimeError):
    """Every worker thread is busy (some possibly with abandoned, timed-out calls)."""


class HandlerTimedOut(BaseException):
    """Raised inside a handler that outlived its timeout.

    A ``BaseException`` so that a handler's ``except Exception`` does not
    swallow it and keep running.
    """


_Task = tuple[Any, Callable[[], Any], "asyncio.AbstractEventLoop | None"]
"""``(future, fn, loop)``: a concurrent Future with no loop, or an asyncio Future of ``loop``."""

_SKIPPED: tuple[bool, Any] = (False, None)
"""The outcome of a task cancelled before it started (nobody is told)."""


class _Worker:
    """One daemon thread and what it is running now (guarded by the pool's lock)."""

    __slots__ = ("current", "ident", "interrupted")

    def __init__(self) -> None:
        self.ident = 0
        self.current: Any = None
        """The future of the task running now; :meth:`WorkerPool.interrupt` aims at it."""
        self.interrupted = False
        """An interruption was sent for the current task (it may not have landed yet)."""


class WorkerPool:
    """A bounded pool of daemon threads that refuses work instead of queueing without end."""

    def __init__(self, max_workers: int = 32) -> None:
        self.max_workers = max_workers
        self._tasks: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._busy = 0
        """Tasks submitted and not yet ended (running, or about to run)."""
        self._idle = 0
        self._workers: set[_Worker] = set()
        self._closed = False

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        """Run ``fn`` on a worker thread, or raise :class:`PoolSaturated` at once."""
        future: Future[Any] = Future()
        self._put((future, fn, None))
        return future

    def submit_async(
        self, fn: Callable[[], Any], loop: asyncio.AbstractEventLoop
    ) -> asyncio.Future[Any]:
        """Run ``fn`` on a worker thread; its outcome completes a future of ``loop``.

        Raises :class:`PoolSaturated` at once when every worker is busy.
        Cancelling the future before the task starts skips it; after, its
        outcome is dropped (use :meth:`interrupt` to stop it).
        """
        future: asyncio.Future[Any] = loop.create_future()
        self._put((future, fn, loop))
        return future

    def _put(self, task: _Task) -> None:
        with self._lock:
            if self._busy >= self.max_workers:
                raise PoolSaturated(
                    f"{_busy(self.max_workers)} (slow or timed-out calls still running); try "
                    "again shortly"
                )
            self._busy += 1
            self._closed = False
            self._tasks.put(task)
            if self._idle:
                self._idle -= 1  # an idle worker is promised this task
            else:
                self._start_worker()

    def interrupt(self, future: Any) -> bool:
        """Stop the handler behind ``future`` (from either submit) if it still runs Python code.

        Returns whether an interruption was sent (or had been already: one is
        sent at most once per task). Safe at any moment: the exception is only
        ever aimed at the thread while it runs this task, and one that has not
        landed when the task ends lands in the worker's own code, caught.
        """
        with self._lock:
            for worker in self._workers:
                if worker.current is future and worker.ident:
                    if worker.interrupted:
                        return True
                    sent = _set_async_exc(
                        ctypes.c_ulong(worker.ident), ctypes.py_object(HandlerTimedOut)
                    )
                    worker.interrupted = sent == 1
                    return bool(sent == 1)
        return False

    def shutdown(self) -> None:
        """Let idle workers end; running calls finish on their own (daemon threads)."""
        with self._lock:
            self._closed = True
            for _ in range(self._idle):
                self._tasks.put(None)
            self._idle = 0

    def _start_worker(self) -> None:
        worker = _Worker()
        self._workers.add(worker)
        thread = threading.Thread(
            target=self._run, args=(worker,), name="tooldeck-tool", daemon=True
        )
        thread.start()

    def _run(self, worker: _Worker) -> None:
        worker.ident = threading.get_ident()
        while (task := self._next_task(worker)) is not None:
            future, fn, loop = task
            worker.current = future  # interrupt() may aim at it from now until _end_task
            outcome: tuple[bool, Any] | None = None
            while True:  # an interruption may land anywhere until _end_task has let it land
                try:
                    if outcome is None:
                        outcome = self._call(future, fn, loop)
                    keep = self._end_task(worker)
                    break
                except HandlerTimedOut as exc:
                    outcome = outcome or (False, exc)
            if outcome is not _SKIPPED:
                ok, value = outcome
                if loop is None:
                    try:
                        if ok:
                            future.set_result(value)
                        else:
                            future.set_exception(value)
                    except InvalidStateError:  # cancelled before it ran (interrupted meanwhile)
                        pass
                else:
                    try:  # noqa: SIM105 - every call passes here; suppress() is an object each time
                        loop.call_soon_threadsafe(_deliver, future, ok, value)
                    except RuntimeError:  # the loop is closed: nobody is waiting any more
                        pass
            if not keep:
                return

    @staticmethod
    def _call(
        future: Any, fn: Callable[[], Any], loop: asyncio.AbstractEventLoop | None
    ) -> tuple[bool, Any]:
        if loop is None:
            if not future.set_running_or_notify_cancel():
                return _SKIPPED
        elif future.cancelled():  # cancelled before it started: do not run it
            return _SKIPPED
        try:
            try:
                return True, fn()
            except BaseException as exc:  # handed to the caller, as ThreadPoolExecutor does
                return False, exc
        except HandlerTimedOut as exc:  # delivered just as the handler returned
            return False, exc

    def _end_task(self, worker: _Worker) -> bool:
        """Forget the finished task (its interruption landed first); False: end now."""
        with self._lock:
            worker.current = None  # from here on nothing is sent to this thread
            interrupted = worker.interrupted
            worker.interrupted = False
            if not interrupted:
                return self._free(worker)
        _land_interruption(worker.ident)
        with self._lock:
            return self._free(worker)

    def _free(self, worker: _Worker) -> bool:
        """Count the worker idle again (the lock is held); False when it should end."""
        self._busy -= 1
        if self._closed:
            self._workers.discard(worker)
            return False
        self._idle += 1
        return True

    def _next_task(self, worker: _Worker) -> _Task | None:
        """The next task, or None when this worker should end (idle too long, or shut down)."""
        while True:
            try:
                return self._tasks.get(timeout=_IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0 and self._tasks.empty():
                        self._idle -= 1
                        self._workers.discard(worker)
                        return None


def _land_interruption(ident: int) -> None:
    """Let an interruption sent to this thread land here, where it is caught.

    One sent to the task that just ended may still be pending (it had not
    reached a bytecode boundary yet, or, on CPython 3.11, another thread's
    delivery cleared the interpreter-wide flag that announces it). Sending it
    again from this thread replaces the pending one and raises the flag, so it
    lands at the next check, at the latest when :func:`_noop` starts; its
    delivery lowers the flag, which leaves the interpreter clean.
    """
    try:
        _set_async_exc(ctypes.c_ulong(ident), ctypes.py_object(HandlerTimedOut))
        _noop()
    except HandlerTimedOut:
        pass


def _noop() -> None:
    """A Python call: its start checks for (and delivers) a pending async exception."""


def _deliver(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """Complete ``future`` on its loop, unless its caller gave up on it (cancelled)."""
    if future.done():
        return
    if ok:
        future.set_result(value)
    elif type(value) is StopIteration:  # a Future refuses it (as asyncio's Task does)
        future.set_exception(RuntimeError("the handler raised StopIteration"))
    else:
        future.set_exception(value)
