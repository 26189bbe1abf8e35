"""``module:attr.path`` references resolved from source, for ``tooldeck lint --static``.

The twin of :func:`tooldeck.manifest._resolve.resolve_handler` for a CI gate
that must judge a pull request without running it: the same allow-list, the
same refusals (TD310-TD315, judged by where a definition lives), but the
module is found and parsed (:mod:`.source`), never imported. The
result is a stand-in function with the handler's signature, annotations
(:mod:`.types`), docstring and sync/async kind, which the rest of
loading and every lint rule treat like the real handler; calling it raises.

What only running the code could tell (a name made at run time, a
decorator static reading cannot see through, a compiled module) is TD316, a
warning that says so; an annotation it could not rebuild is TD317 (info),
treated as any value.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .._resolve import (
    STATIC_NOTES,
    ResolveError,
    _parse,
    is_allowed,
    not_allowed_message,
)
from .markers import RUNTIME, clip
from .source import ModuleIndex, SourceModule, StaticProblem
from .types import TypeReader
from .values import (
    ClassDef,
    Data,
    External,
    Function,
    Instance,
    Missing,
    ModuleRef,
    Runtime,
    Value,
)
from .walker import Walker

__all__ = ["StaticHandlerCalled", "StaticNotes", "StaticResolver", "static_notes"]


class StaticHandlerCalled(RuntimeError):
    """A stand-in from static resolution was called: static lint never runs handlers."""


@dataclass(frozen=True)
class StaticNotes:
    """What resolving one reference from source had to leave to run time."""

    needs_import: tuple[str, ...] = ()
    """Reasons only an import could resolve the reference faithfully (TD316)."""
    unjudged: tuple[str, ...] = ()
    """Annotations and classes read as "any value" (TD317)."""


def static_notes(handler: Any) -> StaticNotes | None:
    """The notes of a stand-in made by :class:`StaticResolver` (None for real handlers)."""
    found = getattr(handler, STATIC_NOTES, None)
    return found if isinstance(found, StaticNotes) else None


class StaticResolver:
    """Resolves handler references from source; one per lint run (modules parse once)."""

    def __init__(
        self, index: ModuleIndex | None = None, *, search_last: Sequence[str] = ()
    ) -> None:
        self.index = index or ModuleIndex(search_last=search_last)
        self.types: dict[tuple[str, str], Any] = {}
        """What module-level names stand for as annotations, for every reference of the run."""

    def __call__(self, reference: str, allowed: Iterable[str]) -> Callable[..., Any]:
        """A stand-in for the callable ``reference`` names, or raise ResolveError."""
        try:
            return self._resolve(reference, tuple(allowed))
        except RecursionError:  # definitions nested past what reading them recursively allows
            why = "its definitions nest too deep to read from source"
            return _opaque(reference, [why], [])

    def _resolve(self, reference: str, allowed: tuple[str, ...]) -> Callable[..., Any]:
        module_name, parts = _parse(reference)
        if not is_allowed(module_name, allowed):
            raise ResolveError("TD310", not_allowed_message(module_name, allowed))
        walker = Walker(self.index, lambda name: is_allowed(name, allowed))
        try:
            value: Value = ModuleRef(module_name)
            walker.module(module_name)
        except StaticProblem as problem:
            if problem.code == "TD316":
                return _opaque(reference, [problem.message], [])
            raise ResolveError(problem.code, problem.message) from None
        walked = f"{module_name}:"
        for index, part in enumerate(parts):
            owner_text = walked.rstrip(":.")
            walked += part if index == 0 else f".{part}"
            value = walker.attribute(value, part)
            last = index == len(parts) - 1
            if isinstance(value, Runtime) and (last or value.made_by is None):
                return _opaque(reference, [*walker.notes, value.why], [])
            _judge(value, part, owner_text, walked, allowed, last=last)
        return _Builder(walker, reference, self.types).stub(value)


def _judge(
    value: Value, part: str, owner_text: str, walked: str, allowed: tuple[str, ...], *, last: bool
) -> None:
    """The refusals of the import-based resolver, for a value read from source."""
    if isinstance(value, Missing):
        hint = f"; did you mean {', '.join(map(repr, value.close))}?" if value.close else ""
        raise ResolveError("TD312", f"{owner_text!r} has no attribute {part!r}{hint}")
    if isinstance(value, ModuleRef):
        raise ResolveError(
            "TD315",
            f"handler {walked!r} steps into the module {value.name!r}; name the module "
            f"before the colon ('{value.name}:function') if it is allowed",
        )
    if isinstance(value, External):
        where = "builtins (C code)" if value.module == "builtins" else repr(value.module)
        raise ResolveError(
            "TD315",
            f"handler {walked!r} resolves to {value.name!r} defined in {where}, not in an "
            f"allowed module ({', '.join(allowed)}); only functions, classes and callables "
            "that an allowed module defines can be handlers",
        )
    if isinstance(value, Data):
        if value.computed:
            raise ResolveError(
                "TD315",
                f"handler {walked!r} is a {value.kind} (a computed attribute); point the handler "
                "at a function or method",
            )
        if last:
            raise ResolveError(
                "TD313", f"handler {walked!r} is not callable (it is a {value.kind} value)"
            )
        raise ResolveError(
            "TD315",
            f"handler {walked!r} steps into a {value.kind} value, whose attributes are not "
            "defined in an allowed module",
        )


class _Builder:
    """Turns the value a reference resolved to into a stand-in function."""

    def __init__(self, walker: Walker, reference: str, memo: dict[tuple[str, str], Any]) -> None:
        self.walker = walker
        self.reference = reference
        self.types = TypeReader(walker, memo)

    def stub(self, value: Value) -> Callable[..., Any]:
        if isinstance(value, Function):
            return self._function(value, doc=_docstring(value.node))
        if isinstance(value, ClassDef):
            return self._class(value)
        if isinstance(value, Instance):
            call = self.walker.class_attr(value.cls, "__call__", instance=True)
            if isinstance(call, Missing):
                raise ResolveError(
                    "TD313",
                    f"handler {self.reference!r} is not callable (it is a "
                    f"{value.cls.qualname} object without __call__)",
                )
            if not isinstance(call, Function):
                return self._opaque_for(f"{value.cls.qualname}.__call__", call)
            return self._function(call, doc=ast.get_docstring(value.cls.node))
        return _opaque(self.reference, [*self.walker.notes], [])  # pragma: no cover - judged

    def _class(self, cls: ClassDef) -> Callable[..., Any]:
        doc = ast.get_docstring(cls.node)
        init = self.walker.class_attr(cls, "__init__", instance=True)
        if isinstance(init, Function):
            return self._function(init, doc=doc, name=cls.qualname, force_sync=True)
        rebuilt = self.types.synthesize(cls)
        if rebuilt is not None and isinstance(init, Missing | External):
            try:
                signature = inspect.signature(rebuilt)
            except (TypeError, ValueError):
                signature = None
            if signature is not None:
                if doc is None and hasattr(rebuilt, "__dataclass_fields__"):
                    doc = self._dataclass_doc(cls, signature)
                return self._make(cls.module, cls.qualname, signature, doc, is_async=False)
        if isinstance(init, Missing):
            return self._make(cls.module, cls.qualname, inspect.Signature(), doc, is_async=False)
        return self._opaque_for(f"{cls.qualname}.__init__", init)

    def _dataclass_doc(self, cls: ClassDef, signature: inspect.Signature) -> str:
        """The docstring ``@dataclass`` writes for a class without one: its name and signature.

        Annotations appear as the source spells them when the module defers
        them (``from __future__ import annotations``), as Python shows them.
        """
        if _defers_annotations(cls.module):
            written: dict[str, str] = {}
            for klass in self.walker.mro(cls):
                if not isinstance(klass, ClassDef):
                    continue
                for statement in klass.node.body:
                    if isinstance(statement, ast.AnnAssign) and isinstance(
                        statement.target, ast.Name
                    ):
                        written.setdefault(statement.target.id, clip(statement.annotation, 10_000))
            signature = signature.replace(
                parameters=[
                    p.replace(annotation=written.get(p.name, p.annotation))
                    for p in signature.parameters.values()
                ]
            )
        return cls.node.name + str(signature).replace(" -> None", "")

    def _opaque_for(self, what: str, value: Value) -> Callable[..., Any]:
        why = value.why if isinstance(value, Runtime) else f"{what} comes from outside the source"
        return _opaque(self.reference, [*self.walker.notes, why], self.types.notes)

    def _function(
        self,
        function: Function,
        *,
        doc: str | None,
        name: str | None = None,
        force_sync: bool = False,
    ) -> Callable[..., Any]:
        for decorator in function.decorators:
            self.walker.notes.append(
                f"{function.qualname} is decorated with {decorator}, which static lint cannot "
                "see through; it checked the undecorated signature"
            )
        signature = self._signature(function)
        node = function.node
        is_async = isinstance(node, ast.AsyncFunctionDef) and not force_sync
        awaits = isinstance(node, ast.AsyncFunctionDef) and is_async and _awaits(node)
        return self._make(
            function.module,
            name or function.qualname,
            signature,
            doc,
            is_async=is_async,
            awaits=awaits,
        )

    def _signature(self, function: Function) -> inspect.Signature:
        args = function.node.args
        module = function.module
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults += list(args.defaults)
        params: list[inspect.Parameter] = []
        kinds: list[inspect._ParameterKind] = [inspect.Parameter.POSITIONAL_ONLY] * len(
            args.posonlyargs
        )
        kinds += [inspect.Parameter.POSITIONAL_OR_KEYWORD] * len(args.args)
        for arg, kind, default in zip(positional, kinds, defaults, strict=True):
            params.append(self._param(arg, kind, default, module))
        if args.vararg is not None:
            params.append(self._param(args.vararg, inspect.Parameter.VAR_POSITIONAL, None, module))
        for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            params.append(self._param(arg, inspect.Parameter.KEYWORD_ONLY, default, module))
        if args.kwarg is not None:
            params.append(self._param(args.kwarg, inspect.Parameter.VAR_KEYWORD, None, module))
        params = params[function.drop :] if function.drop <= len(positional) else params
        returns = getattr(function.node, "returns", None)
        returned = self.types.annotation(returns, module, f"the return of {function.qualname}")
        try:
            return inspect.Signature(params, return_annotation=returned)
        except ValueError:  # only a malformed tree could order parameters wrongly
            return inspect.Signature(params[:0])

    def _param(
        self,
        arg: ast.arg,
        kind: inspect._ParameterKind,
        default: ast.expr | None,
        module: SourceModule,
    ) -> inspect.Parameter:
        annotation = self.types.annotation(arg.annotation, module, f"parameter {arg.arg!r}")
        value: Any = inspect.Parameter.empty
        if default is not None:
            value = self.types.value(default, module)
            if value is RUNTIME:
                value = _RuntimeDefault()
        return inspect.Parameter(arg.arg, kind, default=value, annotation=annotation)

    def _make(
        self,
        module: SourceModule,
        qualname: str,
        signature: inspect.Signature,
        doc: str | None,
        *,
        is_async: bool,
        awaits: bool = False,
    ) -> Callable[..., Any]:
        notes = StaticNotes(
            needs_import=tuple(dict.fromkeys(self.walker.notes)),
            unjudged=tuple(dict.fromkeys(self.types.notes)),
        )
        return _stand_in(module.name, qualname, signature, doc, notes, is_async, awaits)


class _RuntimeDefault:
    """A default only running the module gives: not JSON, so optional with nothing shown."""

    def __repr__(self) -> str:
        return "<computed at run time>"


def _defers_annotations(module: SourceModule) -> bool:
    return any(
        isinstance(statement, ast.ImportFrom)
        and statement.module == "__future__"
        and any(alias.name == "annotations" for alias in statement.names)
        for statement in module.tree.body
    )


def _docstring(node: ast.AST) -> str | None:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return ast.get_docstring(node)
    return None


def _awaits(node: ast.AsyncFunctionDef) -> bool:
    """Whether the body has an await point of its own (not inside a nested function)."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Await | ast.AsyncFor | ast.AsyncWith | ast.Yield):
            return True
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(current))
    return False


def _opaque(reference: str, needs_import: list[str], unjudged: list[str]) -> Callable[..., Any]:
    """A stand-in that accepts any arguments: what static reading could not resolve."""
    module, _, qualname = reference.partition(":")
    notes = StaticNotes(tuple(dict.fromkeys(needs_import)), tuple(dict.fromkeys(unjudged)))
    signature = inspect.Signature(
        [
            inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
            inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
        ]
    )
    return _stand_in(module, qualname, signature, None, notes, False, False)


def _stand_in(  # noqa: PLR0917
    module: str,
    qualname: str,
    signature: inspect.Signature,
    doc: str | None,
    notes: StaticNotes,
    is_async: bool,
    awaits: bool,
) -> Callable[..., Any]:
    message = f"{module}:{qualname} was resolved from source by static lint and cannot run"

    async def awaiting(*args: Any, **kwargs: Any) -> Any:
        await _refuse(message)

    async def never_awaiting(*args: Any, **kwargs: Any) -> Any:
        raise StaticHandlerCalled(message)

    def plain(*args: Any, **kwargs: Any) -> Any:
        raise StaticHandlerCalled(message)

    handler: Callable[..., Any] = (awaiting if awaits else never_awaiting) if is_async else plain
    handler.__name__ = qualname.rpartition(".")[2] or qualname
    handler.__qualname__ = qualname
    handler.__module__ = module
    handler.__doc__ = doc
    handler.__signature__ = signature  # type: ignore[attr-defined]
    handler.__annotations__ = {
        p.name: p.annotation
        for p in signature.parameters.values()
        if p.annotation is not inspect.Parameter.empty
    }
    if signature.return_annotation is not inspect.Signature.empty:
        handler.__annotations__["return"] = signature.return_annotation
    setattr(handler, STATIC_NOTES, notes)
    return handler


async def _refuse(message: str) -> None:
    raise StaticHandlerCalled(message)
