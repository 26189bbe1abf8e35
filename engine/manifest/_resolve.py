"""``module:attribute`` handler references -> callables, behind an allow-list.

A manifest is data that a teammate (or a compromised PR) can edit; it must
never be able to point a tool at ``os:system`` or ``subprocess:run``. The
boundary is checked on what a reference *resolves to*, not on its text:

- the module part must equal or sit under an allowed prefix (default
  ``handlers``, plus what the application passes), checked before anything
  is imported, so a refused module has no side effects;
- the imported module must really be that module (not an alias planted in
  ``sys.modules``);
- no part of the reference may be private (``_name``, dunders included):
  helpers behind a module's public tools are not tools themselves;
- every step of the dotted attribute path must land on an object *defined in*
  an allowed module, judged by where the object comes from (a function's or
  class's ``__module__``, an instance's class, a decorator's ``__wrapped__``):
  never a module object, never something imported from elsewhere, never a
  dunder name, never a property or other descriptor whose code would run to
  answer the lookup.

Attributes are looked up with :func:`inspect.getattr_static`, so resolving a
reference runs no code of the module beyond its import: no ``__getattr__``,
no property getter, no custom descriptor. ``tooldeck.handlers.files:os.system``,
``tooldeck.handlers.files:Path.cwd`` and ``tooldeck.handlers.files:__loader__.get_data`` are all
refused (TD315) while functions, methods of classes defined in an allowed
module and callable instances of such classes resolve as before. Another
module under the allow-list counts as "inside": a package that re-exports its
submodules' functions keeps working, and it grants nothing the manifest could
not name directly.

=====  ==========================================================
TD310  module not in the allow-list of handler prefixes
TD311  module cannot be imported (the import error), or a malformed reference
TD312  module has no such attribute (close matches suggested)
TD313  the attribute is not callable
TD314  duration is not a number or ``<n>ms|s|m|h``
TD315  the attribute path steps outside the allowed modules
=====  ==========================================================
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import re
import types
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

__all__ = [
    "DEFAULT_ALLOWED",
    "STATIC_NOTES",
    "HandlerResolver",
    "ResolveError",
    "close_names",
    "is_allowed",
    "not_allowed_message",
    "parse_duration",
    "resolve_handler",
]

DEFAULT_ALLOWED: tuple[str, ...] = ("tooldeck.handlers",)

_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h)?\s*$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MAX_SUGGESTION_POOL = 2000
"""More names than this to choose from: no "did you mean" (difflib is linear in them)."""
_MAX_REFERENCE = 500
"""Longer references are refused before any work: no real handler path is this long."""

_C_CALLABLES = (
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
)
"""Callables implemented in C: never defined by a Python handler module."""

STATIC_NOTES = "__tooldeck_static__"
"""Attribute of a stand-in resolved from source: what only an import could tell."""

HandlerResolver: TypeAlias = Callable[[str, Iterable[str]], Callable[..., Any]]
"""``(reference, allowed prefixes) -> callable``, raising :class:`ResolveError`: importing
(:func:`resolve_handler`) or reading source (``--static``)."""
_TYPE_MODULE: Any = type.__dict__["__module__"]


class ResolveError(ValueError):
    """A reference that cannot become a callable; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def is_allowed(module: str, allowed: Iterable[str]) -> bool:
    """``tooldeck.handlers.files`` is under ``handlers``; ``handlers_evil`` is not."""
    return any(
        prefix and (module == prefix or module.startswith(prefix + ".")) for prefix in allowed
    )


def not_allowed_message(module_name: str, allowed: Iterable[str]) -> str:
    """TD310's words, the same from importing and static resolution: where to allow it."""
    return (
        f"handler module {module_name!r} is not allowed; allowed prefixes: "
        f"{', '.join(allowed)} (add it to allow_handlers in [tool.tooldeck], or pass "
        "--allow-handlers or allow_handlers=)"
    )


def resolve_handler(reference: str, allowed: Iterable[str]) -> Callable[..., Any]:
    """Import and return the callable ``reference`` names, or raise ResolveError."""
    allowed = tuple(allowed)
    module_name, parts = _parse(reference)
    if not is_allowed(module_name, allowed):
        raise ResolveError("TD310", not_allowed_message(module_name, allowed))
    target: Any = _import(module_name)
    walked = f"{module_name}:"
    for index, part in enumerate(parts):
        owner_text = walked.rstrip(":.")
        walked += part if index == 0 else f".{part}"
        target = _step(target, part, owner_text, walked, allowed, last=index == len(parts) - 1)
    return target  # type: ignore[no-any-return]


def _parse(reference: str) -> tuple[str, list[str]]:
    """``pkg.mod:Class.method`` -> (``pkg.mod``, [``Class``, ``method``]); TD311/TD315 if odd."""
    shape = f"handler {reference[:80]!r} must look like 'package.module:function'"
    if not isinstance(reference, str) or len(reference) > _MAX_REFERENCE:
        raise ResolveError("TD311", shape)
    module_name, sep, attribute = reference.partition(":")
    if not sep or not _MODULE.fullmatch(module_name) or not attribute:
        raise ResolveError("TD311", shape)
    parts = attribute.split(".")
    for part in parts:
        if not _NAME.fullmatch(part):
            raise ResolveError("TD311", shape)
    private = [p for p in (*module_name.split("."), *parts) if p.startswith("_")]
    if private:
        raise ResolveError(
            "TD315",
            f"handler {reference!r} uses the private name {private[0]!r}; a handler is a "
            "public function, method or callable defined in an allowed module",
        )
    return module_name, parts


def _import(module_name: str) -> types.ModuleType:
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:
        raise ResolveError(
            "TD311", f"cannot import handler module {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    if not isinstance(module, types.ModuleType) or module.__name__ != module_name:
        real = getattr(module, "__name__", type(module).__name__)
        raise ResolveError(
            "TD315",
            f"handler module {module_name!r} is an alias of {real!r}, which is not the "
            "allowed module itself",
        )
    return module


def _step(  # noqa: PLR0917
    owner: Any, part: str, owner_text: str, walked: str, allowed: tuple[str, ...], last: bool
) -> Any:
    """One attribute step, looked up without running code and checked for its origin."""
    try:
        raw = inspect.getattr_static(owner, part)
    except AttributeError:
        close = close_names(part, _public_names(owner))
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ResolveError("TD312", f"{owner_text!r} has no attribute {part!r}{hint}") from None
    value = _bind(owner, part, raw, walked)
    if isinstance(value, types.ModuleType):
        raise ResolveError(
            "TD315",
            f"handler {walked!r} steps into the module {value.__name__!r}; name the module "
            f"before the colon ('{value.__name__}:function') if it is allowed",
        )
    if last and not callable(value):
        raise ResolveError(
            "TD313", f"handler {walked!r} is not callable (it is a {type(value).__name__} value)"
        )
    origin = _origin(value)
    if origin is None or not is_allowed(origin, allowed):
        where = f"in {origin!r}" if origin else "outside Python handler code"
        raise ResolveError(
            "TD315",
            f"handler {walked!r} resolves to {_kind(value)} defined {where}, not in an "
            f"allowed module ({', '.join(allowed)}); only functions, classes and callables "
            "that an allowed module defines can be handlers",
        )
    return value


def _bind(owner: Any, part: str, raw: Any, walked: str) -> Any:
    """What ``owner.part`` would be, for the kinds of attribute a handler path may use.

    Plain functions, static and class methods, and decorator wrappers that
    keep ``__wrapped__`` (``functools.cache``) are bound the way Python
    would; any other descriptor (a property, a slot, a custom descriptor)
    is refused rather than run.
    """
    if isinstance(owner, types.ModuleType) or _in_instance_dict(owner, part):
        return raw
    cls = owner if isinstance(owner, type) else type(owner)
    instance = None if isinstance(owner, type) else owner
    if isinstance(raw, staticmethod):
        return raw.__func__
    if isinstance(raw, classmethod):
        return types.MethodType(raw.__func__, cls)
    if isinstance(raw, types.FunctionType):
        return raw if instance is None else types.MethodType(raw, instance)
    if not hasattr(type(raw), "__get__"):
        return raw
    wrapped = _static(raw, "__wrapped__")
    if wrapped is not None and isinstance(wrapped, types.FunctionType):
        return raw.__get__(instance, cls)
    raise ResolveError(
        "TD315",
        f"handler {walked!r} is a {type(raw).__name__} (a computed attribute); point the "
        "handler at a function or method",
    )


def _in_instance_dict(owner: Any, part: str) -> bool:
    if isinstance(owner, type):
        return False
    try:
        namespace = object.__getattribute__(owner, "__dict__")
    except AttributeError:
        return False
    return isinstance(namespace, dict) and part in namespace


def _origin(value: Any, depth: int = 0) -> str | None:
    """The module that defines ``value`` (None when that cannot be said)."""
    if depth > 8:
        return None
    if isinstance(value, types.MethodType):
        return _origin(value.__func__, depth + 1)
    if isinstance(value, type):
        return _class_module(value)
    if isinstance(value, types.FunctionType):
        return value.__module__ if isinstance(value.__module__, str) else None
    if isinstance(value, _C_CALLABLES):
        return None
    if isinstance(value, functools.partial):
        return _origin(value.func, depth + 1)
    wrapped = _static(value, "__wrapped__")
    if wrapped is not None:  # functools.wraps-style wrappers: where the wrapped code lives
        return _origin(wrapped, depth + 1)
    return _class_module(type(value))


def _class_module(cls: type) -> str | None:
    """``cls.__module__`` read through ``type`` itself, so no metaclass code runs."""
    module = _TYPE_MODULE.__get__(cls, type)
    return module if isinstance(module, str) else None


def _static(value: Any, name: str) -> Any:
    try:
        return inspect.getattr_static(value, name)
    except AttributeError:
        return None


def _kind(value: Any) -> str:
    if isinstance(value, type):
        return f"the class {value.__qualname__!r}"
    if isinstance(value, (types.FunctionType, types.MethodType, *_C_CALLABLES)):
        return f"the function {getattr(value, '__qualname__', '?')!r}"
    return f"a {type(value).__name__} object"


def close_names(name: str, candidates: Iterable[str]) -> list[str]:
    """Up to three public ``candidates`` that look like ``name``, for "did you mean".

    None from a pool larger than :data:`_MAX_SUGGESTION_POOL`: difflib costs
    time linear in the pool for every miss, and a module of 300,000 names
    with a manifest of 400 misspelt references took minutes to lint.
    """
    pool: list[str] = []
    for candidate in candidates:
        if not candidate.startswith("_"):
            pool.append(candidate)
            if len(pool) > _MAX_SUGGESTION_POOL:
                return []
    return difflib.get_close_matches(name, sorted(pool), n=3)


def _public_names(owner: Any) -> Iterable[str]:
    if isinstance(owner, types.ModuleType):
        return iter(vars(owner))
    klasses = owner.__mro__ if isinstance(owner, type) else type(owner).__mro__
    return dict.fromkeys(n for klass in klasses for n in vars(klass))


def parse_duration(value: Any, *, allow_zero: bool = False) -> float:
    """``2`` / ``"500ms"`` / ``"2s"`` / ``"1m"`` / ``"1h"`` -> seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < 0 or (value == 0 and not allow_zero):
            raise ResolveError("TD314", f"duration {value!r} must be positive")
        return float(value)
    if isinstance(value, str):
        match = _DURATION.fullmatch(value)
        if match:
            seconds = float(match.group(1)) * _UNITS[match.group(2)]
            if seconds > 0 or allow_zero:
                return seconds
    raise ResolveError(
        "TD314",
        f"duration {value!r} is not a positive number of seconds or like '500ms', '2s', '1m'",
    )
