"""What a module's top level (or a class body) binds, read off its syntax tree.

Definitions, assignments and imports say what a name is bound to; other
statements say only that running the module may bind or rebind names in
ways no statement shows: ``globals()[...] = f``, ``sys.modules[__name__] =
other``, ``setattr(Tool, "run", f)``, ``Tool.run = f``, or a function that
declares ``global go``. Those are recorded too, so that a reference static
lint resolves through such a name says it could not be sure (TD316) instead
of trusting a definition that running the module replaces.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from .markers import clip

__all__ = ["Binding", "SourceModule", "class_bindings", "collect_module"]

_RUNTIME_NAMERS = frozenset({"globals", "setattr", "exec", "eval", "vars", "__import__"})
"""Calls at module level that can bind module names no statement shows."""
_NAMESPACES = frozenset({"globals", "vars", "locals"})
"""Calls that give the module's namespace: writing to it rebinds names."""
_WRITERS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__"})
"""Methods of a namespace (``globals().update(...)``) that rebind names."""
_SETTERS = frozenset({"setattr", "delattr"})


@dataclass(frozen=True)
class Binding:
    """What one top-level name is bound to, as the source says.

    ``kind`` is ``def`` (function), ``class``, ``value`` (an assignment;
    ``node`` is the assigned expression), ``import`` (``import a.b`` or
    ``import a.b as c``; ``target`` is the module), ``from`` (``from m
    import n``; ``target`` is the module and ``name`` the imported name) or
    ``runtime`` (bound by a statement whose value only running it gives:
    a loop variable, a ``with`` target, a tuple unpacking, ``+=``).
    """

    kind: str
    node: ast.AST
    line: int
    conditional: bool = False
    """Bound inside an ``if``, ``try``, loop or ``with``: which one runs is decided at run time."""
    target: str = ""
    name: str = ""


@dataclass
class SourceModule:
    """One parsed module and the names its top level binds."""

    name: str
    file: str
    tree: ast.Module
    is_package: bool
    bindings: dict[str, Binding] = field(default_factory=dict)
    star_imports: list[tuple[str, int]] = field(default_factory=list)
    """``from m import *`` targets (absolute module, line), in source order."""
    runtime_namers: list[tuple[str, int]] = field(default_factory=list)
    """Module-level calls that may bind names no statement shows (``globals``, ``setattr``...)."""
    rebinders: list[tuple[str, int]] = field(default_factory=list)
    """Module-level code that may rebind any of its names (``globals()[...] =``, ``exec``)."""
    patched: dict[str, int] = field(default_factory=dict)
    """Names whose attributes module-level code sets or deletes (``Tool.run = f``), by line."""
    declared_global: dict[str, int] = field(default_factory=dict)
    """Names a function or class body declares ``global``: calling it may rebind them."""
    exports: tuple[str, ...] | None = None
    """``__all__`` when the source writes it as a literal list of names."""

    @property
    def package(self) -> str:
        """The package relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    def exported(self, name: str) -> bool | None:
        """Whether ``from module import *`` binds ``name`` (None: ``__all__`` is computed)."""
        if "__all__" not in self.bindings:
            return not name.startswith("_")
        return None if self.exports is None else name in self.exports

    def rebinding(self, name: str) -> str | None:
        """Why running the module may leave ``name`` other than its statement says, if it may."""
        if name in self.patched:
            return f"module-level code sets attributes of {name} (line {self.patched[name]})"
        if name in self.declared_global:
            line = self.declared_global[name]
            return f"a function declares it global (line {line}) and may rebind it when called"
        if self.rebinders:
            what, line = self.rebinders[0]
            return f"the module may rebind its names at run time ({what} at line {line})"
        return None


def collect_module(module: SourceModule) -> None:
    """Fill ``module``'s bindings and what may rebind them from its syntax tree."""
    _Collector(module.bindings, module.package, module).block(module.tree.body, False)
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Global):
            for name in node.names:
                module.declared_global.setdefault(name, node.lineno)
    found = module.bindings.get("__all__")
    listed = found is not None and found.kind == "value" and not found.conditional
    if found is not None and listed and isinstance(found.node, ast.List | ast.Tuple):
        elements = found.node.elts
        names = [e.value for e in elements if isinstance(e, ast.Constant)]
        if len(names) == len(elements) and all(isinstance(n, str) for n in names):
            module.exports = tuple(str(n) for n in names)
    if "__all__" in module.patched:  # __all__.extend(...), __all__ += ... : computed
        module.exports = None


def class_bindings(node: ast.ClassDef, package: str) -> dict[str, Binding]:
    """Names a class body binds, read as a module's top level is (imports, loops, del...)."""
    found: dict[str, Binding] = {}
    _Collector(found, package, None).block(node.body, False)
    return found


class _Collector:
    """Records what the statements of one block bind, in source order."""

    def __init__(self, bind: dict[str, Binding], package: str, module: SourceModule | None):
        self.bind = bind
        self.package = package
        self.module = module
        """The module whose top level this is; None for a class body."""

    def block(self, body: list[ast.stmt], conditional: bool) -> None:
        for statement in body:
            self.statement(statement, conditional)
            self.expressions(statement)

    def statement(self, node: ast.stmt, conditional: bool) -> None:
        bind = self.bind
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            bind[node.name] = Binding("def", node, node.lineno, conditional)
        elif isinstance(node, ast.ClassDef):
            bind[node.name] = Binding("class", node, node.lineno, conditional)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self.target(target, node.value, node.lineno, conditional)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:  # a bare annotation binds nothing
                self.target(node.target, node.value, node.lineno, conditional)
        elif isinstance(node, ast.AugAssign):
            self.target(node.target, None, node.lineno, conditional)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                module = alias.name if alias.asname else top
                bind[alias.asname or top] = Binding(
                    "import", node, node.lineno, conditional, target=module
                )
        elif isinstance(node, ast.ImportFrom):
            self.import_from(node, conditional)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.delete(target, node.lineno, conditional)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.target(node.target, None, node.lineno, True)
            self.block(node.body, True)
            self.block(node.orelse, True)
        elif isinstance(node, ast.While | ast.If):
            self.block(node.body, True)
            self.block(node.orelse, True)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    self.target(item.optional_vars, None, node.lineno, True)
            self.block(node.body, True)
        elif isinstance(node, ast.Try | ast.TryStar):
            self.block(node.body, True)
            for handler in node.handlers:
                if handler.name:
                    bind[handler.name] = Binding("runtime", handler, handler.lineno, True)
                self.block(handler.body, True)
            self.block(node.orelse, True)
            self.block(node.finalbody, True)
        elif isinstance(node, ast.Match):
            for case in node.cases:
                for name in _pattern_names(case.pattern):
                    bind[name] = Binding("runtime", case.pattern, node.lineno, True)
                self.block(case.body, True)

    def import_from(self, node: ast.ImportFrom, conditional: bool) -> None:
        base = _absolute(self.package, node.module, node.level)
        for alias in node.names:
            if base is None:  # a relative import above the top package: fails when run
                self.bind[alias.asname or alias.name] = Binding("runtime", node, node.lineno, True)
            elif alias.name == "*":
                if self.module is not None:
                    self.module.star_imports.append((base, node.lineno))
            else:
                self.bind[alias.asname or alias.name] = Binding(
                    "from", node, node.lineno, conditional, target=base, name=alias.name
                )

    def target(
        self, target: ast.expr, value: ast.expr | None, line: int, conditional: bool
    ) -> None:
        if isinstance(target, ast.Name):
            kind = "runtime" if value is None else "value"
            self.bind[target.id] = Binding(kind, value or target, line, conditional)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self.target(element, None, line, conditional)
        elif isinstance(target, ast.Starred):
            self.target(target.value, None, line, conditional)
        else:  # X.a = ..., X[k] = ..., sys.modules[...] = ...
            self.store(target, line)

    def delete(self, target: ast.expr, line: int, conditional: bool) -> None:
        if isinstance(target, ast.Name):
            found = self.bind.get(target.id)
            if found is not None and conditional:  # `if x: del go`: go may be there or not
                self.bind[target.id] = replace(found, conditional=True)
            else:
                self.bind.pop(target.id, None)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self.delete(element, line, conditional)
        else:
            self.store(target, line)

    def store(self, target: ast.expr, line: int) -> None:
        """An attribute or item stored or deleted at module level: what it may change."""
        if self.module is None:
            return
        current, through = target, []
        while isinstance(current, ast.Attribute | ast.Subscript):
            if isinstance(current, ast.Attribute):
                through.append(current.attr)
            current = current.value
        namespace = (  # globals()[...] = f, sys.modules[__name__] = other, X.__dict__[...]
            {"modules", "__dict__"} & set(through)
            or (
                isinstance(current, ast.Call)
                and isinstance(current.func, ast.Name)
                and current.func.id in _NAMESPACES
            )
        )
        if namespace:
            self.module.rebinders.append((clip(target), line))
        elif isinstance(current, ast.Name):
            self.module.patched.setdefault(current.id, line)

    def expressions(self, node: ast.stmt) -> None:
        """Walrus targets and run-time binders in a statement's own expressions."""
        stack: list[ast.AST] = [
            c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt)
        ]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Lambda):
                continue  # its own scope
            if isinstance(current, ast.NamedExpr) and isinstance(current.target, ast.Name):
                self.bind[current.target.id] = Binding("runtime", current, current.lineno, True)
            if self.module is not None:
                self.runtime_call(current)
            stack.extend(ast.iter_child_nodes(current))

    def runtime_call(self, node: ast.AST) -> None:
        assert self.module is not None
        if isinstance(node, ast.Call):
            callee = node.func
            called = (
                callee.id
                if isinstance(callee, ast.Name)
                else callee.attr
                if isinstance(callee, ast.Attribute)
                else None
            )
            if called in _RUNTIME_NAMERS:
                self.module.runtime_namers.append((f"{called}()", node.lineno))
            if called == "exec" or (
                called in _WRITERS and _namespace(callee)  # globals().update(...)
            ):
                self.module.rebinders.append((f"{clip(callee)}()", node.lineno))
            elif called in _SETTERS and node.args:
                self.store(ast.Attribute(value=node.args[0], attr="?"), node.lineno)
            elif (
                isinstance(callee, ast.Attribute)
                and isinstance(callee.value, ast.Name)
                and callee.value.id in ("__all__", "__path__")  # __all__.extend([...])
            ):
                self.module.patched.setdefault(callee.value.id, node.lineno)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ("__dict__", "modules")
            and isinstance(node.ctx, ast.Load)
        ):
            self.module.runtime_namers.append((clip(node), node.lineno))


def _namespace(callee: ast.expr) -> bool:
    """Whether ``callee`` is a method of ``globals()`` (or ``vars()``, ``locals()``)."""
    return (
        isinstance(callee, ast.Attribute)
        and isinstance(callee.value, ast.Call)
        and isinstance(callee.value.func, ast.Name)
        and callee.value.func.id in _NAMESPACES
    )


def _absolute(package: str, name: str | None, level: int) -> str | None:
    """The absolute module a (possibly relative) ``from`` import names; None if it cannot."""
    if level == 0:
        return name
    for _ in range(level - 1):
        if not package:
            return None
        package = package.rpartition(".")[0]
    if not package:
        return None
    return f"{package}.{name}" if name else package


def _pattern_names(pattern: ast.pattern) -> list[str]:
    """Names a ``case`` pattern captures (``case Point(x=px)`` binds ``px``)."""
    return [
        node.name
        for node in ast.walk(pattern)
        if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name
    ] + [
        node.rest for node in ast.walk(pattern) if isinstance(node, ast.MatchMapping) and node.rest
    ]
