"""Annotations read from source into the typing objects inference and TD411 understand.

``tooldeck lint --static`` imports nothing, so a handler's annotations are
rebuilt from their text: builtins and the standard library's typing
vocabulary map to the real objects (importing the standard library runs no
project code), and the classes a project defines are rebuilt from their
class bodies through the standard library's functional forms (``Enum(name,
members)``, ``TypedDict(name, fields)``, ``make_dataclass``), which run no
code of the project either. A pydantic model becomes a dataclass with the
same fields, defaults and descriptions. What cannot be rebuilt this way (a
class from an installed package, a computed alias) is treated as ``Any`` and
noted, so lint says which checks it could not make.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import typing
from collections.abc import Callable
from typing import Any

from .bindings import SourceModule
from .classes import rebuild_class
from .markers import (
    NAMEDTUPLE,
    NEWTYPE,
    PYDANTIC_FIELD,
    PYDANTIC_MODEL,
    RUNTIME,
    STDLIB,
    TYPEDDICT,
    Unknown,
    clip,
    known,
    small,
)
from .source import StaticProblem
from .values import ClassDef, is_installed_module

__all__ = ["TypeReader"]

_MAX_DEPTH = 40
"""Nested annotations and aliases read before one counts as unknown."""
_MAX_LOOKUPS = 2000
"""Names looked up for one handler's annotations before the rest count as unknown."""
_MAX_LITERAL_NODES = 1000
"""A default or ``Literal`` value larger than this is not evaluated (shown as computed)."""
_LITERAL_KINDS = (int, str, bytes, bool, type(None), enum.Enum)
"""What ``Literal[...]`` may hold (PEP 586)."""
_MAX_FORWARD_REF = 2000
"""Characters of a string annotation parsed as an expression."""


class TypeReader:
    """Rebuilds annotations of one handler's module; ``notes`` says what it could not."""

    def __init__(self, walker: Any, memo: dict[tuple[str, str], Any] | None = None) -> None:
        """``memo`` (shared by the readers of one run) holds what module-level names stand for.

        Without it, every parameter of every tool re-evaluated the aliases it
        names: a ``Literal`` of 3,000 values in 50 parameters, in 300
        manifests, is 45 million evaluations.
        """
        self.walker = walker
        self.notes: list[str] = []
        self.memo = {} if memo is None else memo
        self._classes: dict[int, Any] = {}
        self._building: set[int] = set()
        self._active: set[tuple[str, str]] = set()
        self._lookups = 0
        self._cutoffs = 0
        """Results cut short (depth, budget, a cycle): what depended on one is not remembered."""

    # ----------------------------------------------------------------- public
    def annotation(self, node: ast.expr | None, module: SourceModule, where: str) -> Any:
        """The typing object ``node`` stands for; ``inspect.Parameter.empty`` when absent."""
        import inspect

        if node is None:
            return inspect.Parameter.empty
        try:
            return self._eval(node, module, 0)
        except Unknown as exc:
            self.notes.append(
                f"the annotation `{clip(node, 80)}` of {where} was not judged: {exc} "
                "(static lint imports nothing), so it is treated as any value"
            )
            return Any

    def value(self, node: ast.expr | None, module: SourceModule) -> Any:
        """A default's value when it is a literal or a module constant, else a marker."""
        if node is None:
            return dataclasses.MISSING
        found = _literal(node)
        if found is not RUNTIME:
            return found
        if isinstance(node, ast.Name):
            binding = module.bindings.get(node.id)
            if binding is not None and binding.kind == "value" and not binding.conditional:
                assert isinstance(binding.node, ast.expr)
                found = _literal(binding.node)
                if found is not RUNTIME:
                    return found
        if isinstance(node, ast.Attribute):  # Color.RED: a member of an enum read from source
            try:
                owner = self._eval(node.value, module, 0)
            except Unknown:
                return RUNTIME
            if isinstance(owner, type) and issubclass(owner, enum.Enum):
                return owner.__members__.get(node.attr, RUNTIME)
        return RUNTIME

    def synthesize(self, cls: Any) -> Any:
        """The class a :class:`~tooldeck.manifest._static.values.ClassDef` rebuilds to."""
        try:
            return self._class(cls, 0)
        except Unknown as exc:
            self.notes.append(f"class {cls.qualname!r} was not rebuilt: {exc}")
            return None

    # ------------------------------------------------------------- evaluation
    def _eval(self, node: ast.expr, module: SourceModule, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise Unknown("it nests too deep")
        if isinstance(node, ast.Constant):
            if node.value is None or node.value is Ellipsis:
                return node.value
            if isinstance(node.value, str):
                return self._forward(node.value, module, depth)
            raise Unknown(f"{node.value!r} is not a type")
        if isinstance(node, ast.Name | ast.Attribute):
            found = self._name(node, module, depth)
            if found in (TYPEDDICT, NAMEDTUPLE, NEWTYPE, PYDANTIC_MODEL, PYDANTIC_FIELD):
                raise Unknown(f"{clip(node)} is not a type by itself")
            return found
        if isinstance(node, ast.Subscript):
            return self._subscript(node, module, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left = self._eval(node.left, module, depth + 1)
            right = self._eval(node.right, module, depth + 1)
            return _typing(lambda: _union(left, right), node)
        raise Unknown(f"`{clip(node)}` is computed")

    def _forward(self, text: str, module: SourceModule, depth: int) -> Any:
        if len(text) > _MAX_FORWARD_REF:
            raise Unknown("the string annotation is too long")
        try:
            parsed = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            raise Unknown(f"{text[:60]!r} is not an expression") from None
        return self._eval(parsed.body, module, depth + 1)

    def _subscript(self, node: ast.Subscript, module: SourceModule, depth: int) -> Any:
        base = self._eval(node.value, module, depth + 1)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not parts:  # X[()]: no type takes an empty argument list
            raise Unknown(f"`{clip(node)}` has no type arguments")
        if base is typing.Literal:
            values = []
            for part in parts:
                value = self.value(part, module)
                if value is RUNTIME or value is dataclasses.MISSING:
                    raise Unknown(f"Literal value `{clip(part, 40)}` is computed")
                if not isinstance(value, _LITERAL_KINDS):  # PEP 586; a list is unhashable
                    raise Unknown(f"Literal value `{clip(part, 40)}` is not a literal")
                values.append(value)
            return _typing(lambda: typing.Literal[tuple(values)], node)
        if base is typing.Annotated:
            inner = self._eval(parts[0], module, depth + 1)
            texts = [t for t in (self._description(p, module) for p in parts[1:]) if t]
            return _typing(lambda: typing.Annotated[(inner, *texts)], node) if texts else inner
        args = [self._eval(part, module, depth + 1) for part in parts]
        return _typing(lambda: base[tuple(args)] if len(args) > 1 else base[args[0]], node)

    def _description(self, node: ast.expr, module: SourceModule) -> str | None:
        """``Annotated`` metadata that describes: a string or pydantic's ``Field(description=)``."""
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
            try:
                called = self._name(node.func, module, 0)
            except Unknown:
                return None
            if called is PYDANTIC_FIELD:
                for keyword in node.keywords:
                    value = keyword.value
                    if keyword.arg == "description" and isinstance(value, ast.Constant):
                        return value.value if isinstance(value.value, str) else None
        return None

    def _name(self, node: ast.Name | ast.Attribute, module: SourceModule, depth: int) -> Any:
        """A name in ``module`` (or a dotted name through an import) as a typing object."""
        if isinstance(node, ast.Attribute):
            owner = node.value
            if isinstance(owner, ast.Name | ast.Attribute):
                dotted = clip(owner, 1000)
                target = self._module_of(dotted, module)
                if target is not None:
                    return self._in_module(target, node.attr, depth)
                owner_type = self._eval(owner, module, depth + 1)
                if isinstance(owner_type, type) and issubclass(owner_type, enum.Enum):
                    member = owner_type.__members__.get(node.attr)
                    if member is not None:  # the member itself, as Python evaluates it
                        return member
            raise Unknown(f"`{clip(node)}` is computed")
        return self._module_name(module, node.id, depth)

    def _module_name(self, module: SourceModule, name: str, depth: int) -> Any:
        """A module-level name as a typing object, remembered for the run once worked out."""
        key = (module.name, name)
        if key in self.memo:
            remembered, notes = self.memo[key]
            self.notes.extend(notes)
            if isinstance(remembered, Unknown):
                raise remembered
            return remembered
        binding = module.bindings.get(name)
        if key in self._active:
            if binding is not None and binding.kind == "class":  # class Node: child: Node
                assert isinstance(binding.node, ast.ClassDef)
                return self._class(ClassDef(module, binding.node, name), depth)
            self._cutoffs += 1
            raise Unknown(f"{name!r} refers back to itself through {module.name}")
        self._lookups += 1
        if self._lookups > _MAX_LOOKUPS or depth > _MAX_DEPTH:
            self._cutoffs += 1
            raise Unknown("it takes too many names and imports to work out")
        cutoffs, noted = self._cutoffs, len(self.notes)
        self._active.add(key)
        try:
            value: Any = self._bound_name(module, name, binding, depth)
        except Unknown as exc:
            value = exc
        finally:
            self._active.discard(key)
        if self._cutoffs == cutoffs:
            self.memo[key] = (value, tuple(self.notes[noted:]))
        if isinstance(value, Unknown):
            raise value
        return value

    def _bound_name(self, module: SourceModule, name: str, binding: Any, depth: int) -> Any:
        if binding is None:
            for star, _line in reversed(module.star_imports):
                if self._hidden(star, name):
                    continue
                try:
                    return self._in_module(star, name, depth)
                except Unknown:
                    continue
            builtin = known("builtins", name)
            if builtin is not None or name == "None":
                return builtin
            raise Unknown(f"{name!r} is not defined in {module.name}")
        if binding.kind == "from":
            return self._in_module(binding.target, binding.name, depth)
        if binding.kind == "class":
            assert isinstance(binding.node, ast.ClassDef)
            return self._class(ClassDef(module, binding.node, name), depth)
        if binding.kind == "value":
            assert isinstance(binding.node, ast.expr)
            return self._alias(name, binding.node, module, depth)
        raise Unknown(f"{name!r} is bound at run time")

    def _hidden(self, star: str, name: str) -> bool:
        """Whether ``from star import *`` leaves ``name`` out (its ``__all__`` says so)."""
        try:
            return self.walker.index.module(star).exported(name) is False
        except StaticProblem:
            return False

    def _alias(self, name: str, value: ast.expr, module: SourceModule, depth: int) -> Any:
        """``UserId = int``, ``Color = Literal[...]``, ``UserId = NewType("UserId", int)``."""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name | ast.Attribute):
            called = self._name(value.func, module, depth + 1)
            if called is NEWTYPE and len(value.args) == 2:
                return typing.NewType(name, self._eval(value.args[1], module, depth + 1))
            raise Unknown(f"{name!r} is made by a call")
        return self._eval(value, module, depth + 1)

    def _module_of(self, dotted: str, module: SourceModule) -> str | None:
        """The module an ``import``-bound dotted name refers to (``t`` -> ``typing``)."""
        head, _, rest = dotted.partition(".")
        binding = module.bindings.get(head)
        if binding is None or binding.kind != "import":
            if binding is not None and binding.kind == "from":
                candidate = f"{binding.target}.{binding.name}"
                if self.walker.index.is_package_module(candidate) or candidate in STDLIB:
                    return f"{candidate}.{rest}" if rest else candidate
            return None
        return f"{binding.target}.{rest}" if rest else binding.target

    def _in_module(self, module_name: str, name: str, depth: int) -> Any:
        found = known(module_name, name)
        if found is not None or (module_name == "builtins" and name == "None"):
            return found
        try:
            source = self.walker.module(module_name)
        except StaticProblem as problem:
            raise Unknown(f"{module_name}.{name}: {problem.message}") from None
        if is_installed_module(source) and not self.walker.follow(module_name):
            raise Unknown(f"{module_name}.{name} comes from an installed package")
        return self._module_name(source, name, depth + 1)

    # ---------------------------------------------------------------- classes
    def _class(self, cls: Any, depth: int) -> Any:
        key = id(cls.node)
        if key in self._classes:
            return self._classes[key]
        if key in self._building:
            return cls.node.name  # a recursive reference: a forward reference, as Python has
        self._building.add(key)
        try:
            built = self._classes[key] = self._rebuild(cls, depth + 1)
        finally:
            self._building.discard(key)
        return built

    def _rebuild(self, cls: Any, depth: int) -> Any:
        try:
            return rebuild_class(self, cls, depth)
        except (Unknown, RecursionError):
            raise
        except Exception as exc:  # typing's, enum's or dataclasses' refusal of the fields
            raise Unknown(f"{cls.qualname!r}: {type(exc).__name__}: {str(exc)[:120]}") from None


def _union(left: Any, right: Any) -> Any:
    try:
        return left | right
    except TypeError:
        return typing.Union[left, right]  # noqa: UP007 - rebuilding a runtime union


def _typing(build: Callable[[], Any], node: ast.expr) -> Any:
    """``build()`` (a subscript or union of typing objects); any refusal of it is Unknown.

    The pull request picks the arguments, and typing, enum and the builtin
    generics refuse bad ones with whatever they raise (``Final[Final]`` a
    TypeError, ``Color[int]`` on an enum a KeyError): ``def`` would fail the
    same way when the module runs, so it is "not a valid type", not a crash.
    """
    try:
        return build()
    except RecursionError:
        raise
    except Exception as exc:
        why = f"{type(exc).__name__}: {str(exc)[:120]}"
        raise Unknown(f"`{clip(node)}` is not a valid type ({why})") from None


def _literal(node: ast.expr) -> Any:
    """``ast.literal_eval(node)`` for a small expression, else :data:`RUNTIME`."""
    if not small(node, _MAX_LITERAL_NODES):
        return RUNTIME
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return RUNTIME
