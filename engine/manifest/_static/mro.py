"""Attribute lookup on classes read from source, in the order Python's MRO gives.

``Tool.run`` is the first definition of ``run`` along ``Tool``'s method
resolution order, which Python computes by C3 linearization, not depth or
breadth first: ``class A(B, C)`` with ``class B(D)`` looks in ``A, B, D,
C``. A base static lint cannot read (a class from an installed package,
something computed) may define the name too; when it comes before the class
that defines it in the source, the answer is only known at run time. An
instance looks in its own ``__dict__`` first (``self.run = f`` in a method)
and a class attribute whose class defines ``__get__`` is a descriptor,
whose code would run to answer: both are said, not guessed.
"""

from __future__ import annotations

import ast
from typing import Protocol

from .._resolve import close_names
from .bindings import Binding, class_bindings
from .source import ModuleIndex, SourceModule
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

__all__ = ["ClassLookup", "Entry"]

_MAX_MRO = 64
"""Classes in one MRO read before the rest counts as unknown."""
_SKIPPED_BASES = frozenset(
    {
        ("builtins", "object"),
        ("typing", "Generic"),
        ("typing", "Protocol"),
        ("typing_extensions", "Protocol"),
        ("abc", "ABC"),
    }
)
"""Bases whose MRO adds nothing a handler path could reach."""

Entry = ClassDef | Value
"""One class of an MRO: read from source (:class:`ClassDef`) or not (what it resolved to)."""


class Walking(Protocol):
    """What class lookups need of :class:`~tooldeck.manifest._static.walker.Walker`."""

    index: ModuleIndex
    notes: list[str]

    def expression(
        self, module: SourceModule, node: ast.expr, scope: dict[str, Binding]
    ) -> Value: ...

    def function(
        self,
        module: SourceModule,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        *,
        in_class: bool,
    ) -> Value: ...

    def imported(self, module_name: str, name: str, line: int) -> Value: ...

    def class_value(self, module: SourceModule, node: ast.ClassDef, qualname: str) -> ClassDef: ...


class ClassLookup:
    """Class attribute lookups for one walker (its budget and notes)."""

    def __init__(self, walker: Walking) -> None:
        self.walker = walker
        self._mros: dict[int, list[Entry]] = {}

    def bindings(self, cls: ClassDef) -> dict[str, Binding]:
        """Names the class body binds, read once per run."""
        return self._facts(cls)[1]

    def instance_attributes(self, cls: ClassDef) -> dict[str, int]:
        """Names the class's methods set on ``self`` (``self.run = f``), by line."""
        return self._facts(cls)[2]

    def attr(self, cls: ClassDef, name: str, *, instance: bool) -> Value:
        """``cls.name`` (or ``instance.name``) as Python's attribute lookup finds it."""
        order = self.mro(cls)
        classes = [entry for entry in order if isinstance(entry, ClassDef)]
        if instance:
            for klass in classes:
                line = self.instance_attributes(klass).get(name)
                if line is not None:
                    return Runtime(
                        f"{klass.qualname} sets self.{name} in a method (line {line}); an "
                        f"instance's own {name} is only known at run time"
                    )
        before: Value | None = None
        for entry in order:
            if not isinstance(entry, ClassDef):
                before = before or entry
                continue
            binding = self.bindings(entry).get(name)
            if binding is None:
                continue
            if before is not None:
                return Runtime(
                    f"{cls.qualname!r} may inherit {name!r} from {_shown(before)}, a base "
                    f"static lint cannot read that comes before {entry.qualname} in its MRO"
                )
            return self._bound(entry, name, binding, instance=instance)
        if isinstance(before, External):
            return External(before.module, f"{before.name}.{name}")
        if before is not None:
            return Runtime(
                f"{cls.qualname!r} does not define {name!r}; it may inherit it from a base "
                f"class static lint cannot read ({_shown(before)})"
            )
        names = dict.fromkeys(n for klass in classes for n in self.bindings(klass))
        return Missing(tuple(close_names(name, names)))

    def mro(self, cls: ClassDef) -> list[Entry]:
        """``cls`` and its bases in C3 order; bases not read from source are single entries.

        ``object`` and typing's ``Generic``/``Protocol`` are left out. A cycle
        or an order C3 cannot make (Python refuses such a class) ends in a
        :class:`Runtime` entry.
        """
        key = id(cls.node)
        known = self._mros.get(key)
        if known is None:
            self._mros[key] = [cls, Runtime(f"the bases of {cls.qualname} lead back to it")]
            known = self._mros[key] = self._linearize(cls)
        return known

    # ---------------------------------------------------------------- private
    def _linearize(self, cls: ClassDef) -> list[Entry]:
        bases: list[Entry] = []
        for node in cls.node.bases[:_MAX_MRO]:
            base = self.walker.expression(cls.module, node, {})
            if isinstance(base, External) and (base.module, base.name) in _SKIPPED_BASES:
                continue
            bases.append(base)
        lists = [self.mro(base) if isinstance(base, ClassDef) else [base] for base in bases]
        merged = _merge([*(list(entries) for entries in lists), list(bases)])
        if merged is None:
            why = f"Python finds no consistent order for the bases of {cls.qualname}"
            return [cls, Runtime(why)]
        order: list[Entry] = [cls, *merged]
        if len(order) > _MAX_MRO:
            return [*order[:_MAX_MRO], Runtime(f"{cls.qualname} has too many bases to read")]
        return order

    def _bound(self, klass: ClassDef, name: str, binding: Binding, *, instance: bool) -> Value:
        qualname = f"{klass.qualname}.{name}"
        node = binding.node
        if binding.kind == "def":
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            function = self.walker.function(klass.module, node, qualname, in_class=True)
            if not isinstance(function, Function):
                return function
            bound = function.kind == "class" or (instance and function.kind == "function")
            return Function(
                function.module,
                function.node,
                qualname,
                1 if bound else 0,
                function.kind,
                function.decorators,
            )
        if binding.kind == "class":
            assert isinstance(node, ast.ClassDef)
            return self.walker.class_value(klass.module, node, qualname)
        if binding.kind == "value":
            assert isinstance(node, ast.expr)
            value = self.walker.expression(klass.module, node, self.bindings(klass))
            return self._descriptor(value, qualname)
        if binding.kind == "from":
            return self.walker.imported(binding.target, binding.name, binding.line)
        if binding.kind == "import":
            return ModuleRef(binding.target)
        return Runtime(f"{qualname} is bound when the class body runs (line {binding.line})")

    def _descriptor(self, value: Value, qualname: str) -> Value:
        """A class attribute whose class defines ``__get__``: a computed attribute."""
        if not isinstance(value, Instance):
            return value
        getter = self.attr(value.cls, "__get__", instance=True)
        if isinstance(getter, Missing):
            return value
        if isinstance(getter, Function):
            return Data(f"{value.cls.qualname} descriptor", computed=True)
        return Runtime(f"{qualname} may be a descriptor: {value.cls.qualname}.__get__ is unknown")

    def _facts(self, cls: ClassDef) -> tuple[ast.ClassDef, dict[str, Binding], dict[str, int]]:
        known = self.walker.index.classes.get(id(cls.node))
        if known is not None and known[0] is cls.node:
            return known
        found = class_bindings(cls.node, cls.module.package)
        facts = (cls.node, found, _instance_attributes(found))
        self.walker.index.classes[id(cls.node)] = facts
        return facts


def _merge(sequences: list[list[Entry]]) -> list[Entry] | None:
    """C3's merge: the next head that is in no list's tail; None when there is none.

    Counts of tail occurrences keep it linear in the entries: scanning every
    tail for every candidate was cubic, seconds for a tower of 100 classes.
    """
    sequences = [list(reversed(s)) for s in sequences if s]  # heads at the end: cheap pops
    in_tails: dict[object, int] = {}
    for sequence in sequences:
        for entry in sequence[:-1]:
            in_tails[_key(entry)] = in_tails.get(_key(entry), 0) + 1
    merged: list[Entry] = []
    while sequences and len(merged) <= _MAX_MRO:
        head = next((s[-1] for s in sequences if not in_tails.get(_key(s[-1]))), None)
        if head is None:
            return None
        merged.append(head)
        for sequence in sequences:
            if _key(sequence[-1]) == _key(head):
                sequence.pop()
                if sequence:  # its new head was counted as in a tail
                    in_tails[_key(sequence[-1])] -= 1
        sequences = [s for s in sequences if s]
    return merged


def _key(entry: Entry) -> object:
    if isinstance(entry, ClassDef):
        return ("class", id(entry.node))
    if isinstance(entry, External):
        return ("external", entry.module, entry.name)
    return ("other", id(entry))


def _shown(entry: Value) -> str:
    if isinstance(entry, External):
        return f"{entry.module}.{entry.name}"
    if isinstance(entry, Runtime):
        return entry.why
    return type(entry).__name__.lower()


def _instance_attributes(bindings: dict[str, Binding]) -> dict[str, int]:
    """``self.name = ...`` in the class's own methods (``self``: their first parameter)."""
    found: dict[str, int] = {}
    for binding in bindings.values():
        node = binding.node
        if binding.kind != "def" or not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = [*node.args.posonlyargs, *node.args.args]
        if not params:
            continue
        me = params[0].arg
        for current in ast.walk(node):
            targets: list[ast.expr] = []
            if isinstance(current, ast.Assign):
                targets = current.targets
            elif isinstance(current, ast.AnnAssign | ast.AugAssign):
                targets = [current.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == me
                ):
                    found.setdefault(target.attr, target.lineno)
    return found
