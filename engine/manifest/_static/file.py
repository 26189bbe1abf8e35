"""A handler module's file, read for ``lint --static``: bounded, inside the project, decoded safely.

The file a finder located is untrusted: a pull request chooses its name,
its kind (a FIFO, a device, a link to a file on the CI machine), its size,
its encoding and how much syntax it packs into those bytes. Reading it
either gives text that is cheap to parse, or a :class:`StaticProblem`
saying why not (TD311), within seconds and without running any code.
"""

from __future__ import annotations

import ast
import codecs
import importlib.util
import io
import os
import threading
from collections.abc import Sequence

from ..._readfile import Unreadable, read_bounded

__all__ = [
    "MAX_MODULE_ELEMENTS",
    "MAX_RUN_ELEMENTS",
    "MAX_SOURCE_BYTES",
    "StaticProblem",
    "parse_source",
    "read_source",
]

MAX_SOURCE_BYTES = 4 * 1024 * 1024
"""A handler module larger than this is not read (a real one is a few hundred KB at most)."""
MAX_MODULE_ELEMENTS = 250_000
"""Syntax elements (about one per AST node) of one module: ~1.4 MB of ordinary code.

Parsing costs time and memory per node, not per byte: 2.6 MB of ``0,0,0,...``
is 1.3 million nodes, 10-20 s and 1.3 GB to parse.
"""
MAX_RUN_ELEMENTS = 1_500_000
"""Syntax elements read in one run, over all modules (a project's whole handler code)."""
_PUNCTUATION = b"()[]{},:;.=+-*/%<>!&|^~@"

_SLOW_ENCODINGS = frozenset({"punycode", "idna"})
"""Decoding these takes time quadratic in the text (4 MiB of punycode: hours)."""


class StaticProblem(Exception):
    """A module or reference that static reading cannot accept; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def read_source(
    origin: str, name: str, folders: Sequence[str], max_bytes: int, budget: list[int]
) -> str:
    """The text of module ``name`` in the file ``origin``, or raise :class:`StaticProblem`.

    ``folders`` are the project's (a file there may not link outside them);
    ``budget`` holds the syntax elements the run may still read, and is
    charged for this file.
    """
    _check_inside(origin, folders, name)
    data = _read_capped(origin, max_bytes, name)
    _weigh(data, origin, name, budget)
    try:
        _check_encoding(data, origin, name)
        return importlib.util.decode_source(data)
    except SyntaxError as exc:  # an encoding declaration that names no codec
        raise StaticProblem(
            "TD311", f"handler module {name!r} does not parse ({origin}:1): {exc.msg}"
        ) from None
    except (ValueError, UnicodeError, LookupError) as exc:
        raise _unreadable(name, origin, exc) from None


def parse_source(text: str, origin: str, name: str) -> ast.Module:
    """``text`` parsed, or raise :class:`StaticProblem` (TD311) saying why it does not."""
    try:
        return _parse(text, origin)
    except SyntaxError as exc:
        where = f"{origin}:{exc.lineno or 1}"
        raise StaticProblem(
            "TD311", f"handler module {name!r} does not parse ({where}): {exc.msg}"
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise _unreadable(name, origin, exc) from None


def _unreadable(name: str, origin: str, exc: Exception) -> StaticProblem:
    """TD311 for a file that decoding or parsing gave up on, with the reason cut short."""
    return StaticProblem(
        "TD311",
        f"handler module {name!r} cannot be read as Python source ({origin}): "
        f"{type(exc).__name__}: {str(exc)[:200]}",
    )


def _weigh(data: bytes, origin: str, name: str, budget: list[int]) -> None:
    """Refuse a module with more syntax than a handler module has, or past the run's budget.

    The count is an estimate made without parsing (punctuation plus
    whitespace-separated words, about one per AST node), at C speed.
    """
    elements = len(data) - len(data.translate(None, _PUNCTUATION)) + len(data.split())
    if elements > MAX_MODULE_ELEMENTS:
        raise StaticProblem(
            "TD311",
            f"handler module {name!r} ({origin}) has about {elements:,} syntax elements, "
            f"more than the {MAX_MODULE_ELEMENTS:,} static lint reads in one module",
        )
    budget[0] -= elements
    if budget[0] < 0:
        raise StaticProblem(
            "TD311",
            f"handler module {name!r} ({origin}) was not read: static lint reads at most "
            f"{MAX_RUN_ELEMENTS:,} syntax elements of source in one run",
        )


def _parse(text: str, origin: str) -> ast.Module:
    """``ast.parse`` on a thread of its own, with the whole recursion limit to itself.

    Building the tree's Python objects counts against the calling thread's
    recursion depth, so a module first asked for deep inside a lookup (an
    annotation naming a class in another module) would fail to parse where
    the same module asked for at the top parses, and the failure is
    remembered for the rest of the run.
    """
    outcome: list[ast.Module | BaseException] = []

    def work() -> None:
        try:
            outcome.append(ast.parse(text, filename=origin))
        except BaseException as exc:  # handed to the caller as it is
            outcome.append(exc)

    worker = threading.Thread(target=work, name="tooldeck-static-parse", daemon=True)
    worker.start()
    worker.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _check_inside(origin: str, folders: Sequence[str], name: str) -> None:
    """Refuse a module in a project folder whose file links outside that folder.

    The pull request owns what is in the project's folders, symlinks
    included: ``prmod.py`` (or a package folder) linked to a file on the CI
    machine would be parsed, and its text would come back in diagnostics
    (an annotation naming a string constant there is quoted by TD317, a
    misspelt name gets "did you mean" its names). Installed packages are
    outside these folders and are read wherever they live.
    """
    for folder in folders:
        if os.path.commonpath([folder, origin]) != folder:
            continue
        real, boundary = os.path.realpath(origin), os.path.realpath(folder)
        if os.path.commonpath([boundary, real]) != boundary:
            raise StaticProblem(
                "TD311",
                f"handler module {name!r} ({origin}) is a link to {real}, outside {folder}; "
                "static lint does not read files a pull request links to from outside it",
            )
        return


def _read_capped(path: str, limit: int, name: str) -> bytes:
    """The file's bytes through the one bounded reader (never blocking, a regular file only)."""
    data = read_bounded(path, limit)
    if isinstance(data, Unreadable):
        if data.reason == "too_large":
            raise StaticProblem(
                "TD311",
                f"handler module {name!r} ({path}) is larger than {limit // (1024 * 1024)} MiB; "
                "static lint does not read it",
            )
        raise StaticProblem("TD311", f"cannot read handler module {name!r} ({path}): {data}")
    return data


def _check_encoding(data: bytes, origin: str, name: str) -> None:
    """Refuse a source encoding whose decoder is not the standard library's, or is slow.

    A ``# coding:`` line picks the codec that decodes the whole file: one
    registered by an installed package (a ``.pth`` file can register one)
    would run that package's code on the pull request's text, and the
    standard library's punycode decoder is quadratic. Python source in
    either is unheard of, so static lint reads neither.
    """
    import tokenize

    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    info = codecs.lookup(encoding)
    decoder = getattr(info.incrementaldecoder, "__module__", None) or ""
    slow = info.name in _SLOW_ENCODINGS
    if slow or not decoder.startswith("encodings."):
        why = "is slow" if slow else "is not the standard library's"
        raise StaticProblem(
            "TD311",
            f"handler module {name!r} ({origin}) is written in the encoding {encoding!r}, "
            f"which static lint does not decode (its decoder {why})",
        )
