"""Names looked up in source the way attribute access would find them at run time.

:class:`Walker` follows module bindings, ``from`` imports (into the modules
``follow`` accepts), star imports (as far as ``__all__`` lets them), class
bodies along their MRO (:mod:`.mro`) and the decorators whose effect
is known. What running the module could change (a name rebound by
``globals()`` or a function declaring it ``global``, a class a decorator
may replace, a package that rewrites its ``__path__``, an instance made by
a ``__new__``) is noted, so the reference is reported as needing an import
(TD316) rather than trusted.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .._resolve import close_names
from .bindings import Binding, SourceModule
from .markers import clip, small
from .mro import ClassLookup, Entry
from .source import ModuleIndex, StaticProblem
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
    builtin_exists,
)

__all__ = ["Walker"]

_MAX_LOOKUPS = 150
"""Aliases, imports and names followed for one reference before it counts as run-time only."""

_TRANSPARENT_DECORATORS = frozenset(
    {
        ("functools", "cache"),
        ("functools", "lru_cache"),
        ("abc", "abstractmethod"),
        ("typing", "override"),
        ("typing", "final"),
        ("typing_extensions", "override"),
        ("typing_extensions", "final"),
        ("contextlib", "contextmanager"),
        ("contextlib", "asynccontextmanager"),
    }
)
"""Decorators that keep the function's signature and origin (``functools.wraps`` style)."""
_TRANSPARENT_CLASS_DECORATORS = frozenset(
    {
        ("dataclasses", "dataclass"),
        ("functools", "total_ordering"),
        ("enum", "unique"),
        ("typing", "final"),
        ("typing", "runtime_checkable"),
        ("typing_extensions", "final"),
        ("typing_extensions", "runtime_checkable"),
    }
)
"""Class decorators that return the class they are given."""
_COMPUTED = frozenset({("builtins", "property"), ("functools", "cached_property")})
_BUILTIN_DATA = frozenset(
    [
        "frozenset",
        "set",
        "list",
        "dict",
        "tuple",
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "bytearray",
        "complex",
        "range",
    ]
)
"""Builtins whose call makes plain data."""
_OPERATIONS = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare)
_CONSTANT_PARTS = (ast.Constant, ast.operator, ast.unaryop, ast.boolop, ast.cmpop, *_OPERATIONS)
"""What an expression of constants is made of (``200 * 1024``): data, never a handler."""
_KINDS: dict[type, str] = {
    ast.List: "list",
    ast.Tuple: "tuple",
    ast.Dict: "dict",
    ast.Set: "set",
    ast.JoinedStr: "str",
    ast.ListComp: "list",
    ast.DictComp: "dict",
    ast.SetComp: "set",
}


class Walker:
    """Looks names up in source, following imports into the modules ``follow`` accepts."""

    def __init__(self, index: ModuleIndex, follow: Callable[[str], bool]) -> None:
        self.index = index
        self.follow = follow
        self.notes: list[str] = []
        """What a lookup had to assume (a conditional definition, an opaque decorator)."""
        self._hops = 0
        self.classes = ClassLookup(self)

    # ----------------------------------------------------------------- modules
    def module(self, name: str) -> SourceModule:
        source = self.index.module(name)
        if "." in name and self.follow(name):
            self._note_packages(name)
        return source

    def _note_packages(self, name: str) -> None:
        """A package whose ``__init__`` may make its submodules come from elsewhere."""
        parts = name.split(".")
        for depth in range(1, len(parts)):
            package = ".".join(parts[:depth])
            try:
                source = self.index.module(package)
            except StaticProblem:
                continue
            why = source.rebinding("__path__")  # __path__.append(...), sys.modules[...] = ...
            if "__path__" in source.bindings:
                why = f"it sets __path__ (line {source.bindings['__path__'].line})"
            if why is not None:
                self.notes.append(
                    f"package {package} may change where {name} comes from when it runs "
                    f"({why}); static lint read the file the finders locate"
                )

    def module_attr(self, module: SourceModule, name: str) -> Value:
        """``module.name`` as the module's source binds it."""
        if not self._hop():
            return Runtime(f"too many aliases and imports lead to {name!r}")
        binding = module.bindings.get(name)
        if binding is None:
            return self._unbound(module, name)
        if binding.conditional:
            self.notes.append(
                f"{module.name}:{name} is defined conditionally (line {binding.line}); static "
                "lint read the last definition, but which one runs is decided at run time"
            )
        rebound = module.rebinding(name)
        if rebound is not None:
            self.notes.append(
                f"{module.name}:{name} may not be what its definition says when the module "
                f"has run: {rebound}"
            )
        return self._bound(module, name, binding)

    def _bound(self, module: SourceModule, name: str, binding: Binding) -> Value:
        node = binding.node
        if binding.kind == "def":
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            return self.function(module, node, name, in_class=False)
        if binding.kind == "class":
            assert isinstance(node, ast.ClassDef)
            return self.class_value(module, node, name)
        if binding.kind == "value":
            assert isinstance(node, ast.expr)
            return self.expression(module, node, {})
        if binding.kind == "import":
            return ModuleRef(binding.target)
        if binding.kind == "from":
            if binding.target == module.name:  # `from . import tools` in the package itself
                submodule = f"{module.name}.{binding.name}"
                if self.index.is_package_module(submodule):
                    return ModuleRef(submodule)
                return Runtime(f"{module.name} imports {binding.name!r} from itself")
            return self.imported(binding.target, binding.name, binding.line)
        return Runtime(f"{name!r} is bound when the module runs (line {binding.line})")

    def imported(self, module_name: str, name: str, line: int) -> Value:
        """What ``from module_name import name`` binds."""
        if not self.follow(module_name):
            return External(module_name, name)
        try:
            source = self.module(module_name)
        except StaticProblem as problem:
            return Runtime(f"{module_name}.{name} (line {line}): {problem.message}")
        found = self.module_attr(source, name)
        if isinstance(found, Missing) and self.index.is_package_module(f"{module_name}.{name}"):
            return ModuleRef(f"{module_name}.{name}")
        return found

    def _unbound(self, module: SourceModule, name: str) -> Value:
        for star, line in reversed(module.star_imports):
            exported = self._exports(star, name)
            if exported is False:
                continue
            found = self.imported(star, name, line)
            if isinstance(found, Missing):
                continue
            if exported is None:
                self.notes.append(
                    f"{module.name} gets {name!r} from `from {star} import *` (line {line}), "
                    f"whose __all__ is computed: only running {star} says if it exports it"
                )
            return found
        if module.is_package and self.index.is_package_module(f"{module.name}.{name}"):
            return ModuleRef(f"{module.name}.{name}")
        if module.runtime_namers:
            what, line = module.runtime_namers[0]
            return Runtime(
                f"{module.name} does not define {name!r} in its source, but it may make it "
                f"at run time ({what} at line {line})"
            )
        return Missing(tuple(close_names(name, module.bindings)))

    def _exports(self, module_name: str, name: str) -> bool | None:
        """Whether ``from module_name import *`` binds ``name`` (None: only running tells)."""
        if not self.follow(module_name):
            return True  # what it binds is judged as coming from outside anyway
        try:
            return self.index.module(module_name).exported(name)
        except StaticProblem:
            return True

    # ------------------------------------------------------------- expressions
    def expression(self, module: SourceModule, node: ast.expr, scope: dict[str, Binding]) -> Value:
        """What an assigned expression evaluates to, where that can be read off the source."""
        if not self._hop():
            return Runtime("too many aliases")
        if isinstance(node, ast.Lambda):
            return Function(module, node, "<lambda>")
        if isinstance(node, ast.Name):
            if node.id in scope:
                return self._bound(module, node.id, scope[node.id])
            if node.id in module.bindings or module.star_imports:
                found = self.module_attr(module, node.id)
                if not isinstance(found, Missing):
                    return found
            if builtin_exists(node.id):
                return External("builtins", node.id)
            return Runtime(f"{node.id!r} is not defined in {module.name} (line {node.lineno})")
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expression(module, node.value, scope), node.attr)
        if isinstance(node, ast.Subscript):  # Base[T] as a base class, a generic alias
            base = self.expression(module, node.value, scope)
            return base if isinstance(base, ClassDef | External) else Data("subscript")
        if isinstance(node, ast.Call):
            return self._call(module, node, scope)
        if isinstance(node, ast.Constant):
            return Data(type(node.value).__name__)
        kind = _KINDS.get(type(node))
        if kind is not None:
            return Data(kind)
        if (
            isinstance(node, _OPERATIONS)
            and small(node, 1000)  # walked on every lookup that reaches it
            and all(isinstance(leaf, _CONSTANT_PARTS) for leaf in ast.walk(node))
        ):
            return Data("constant expression")
        return Runtime(f"computed at run time ({clip(node)}, line {node.lineno})")

    def _call(self, module: SourceModule, node: ast.Call, scope: dict[str, Binding]) -> Value:
        called = self.expression(module, node.func, scope)
        why = f"made at run time by calling {clip(node.func)} (line {node.lineno})"
        if isinstance(called, ClassDef):
            return self._instance(called, node.lineno)
        if isinstance(called, External):
            if called.module == "builtins" and called.name in _BUILTIN_DATA:
                return Data(called.name)  # frozenset({...}): a value, never callable
            if (called.module, called.name) == ("functools", "partial") and node.args:
                wrapped = self.expression(module, node.args[0], scope)
                if isinstance(wrapped, External | Missing | ModuleRef | Data):
                    return wrapped  # judged as what it wraps: the origin a partial has
            return Runtime(why, made_by=called)
        return Runtime(why)

    def _instance(self, cls: ClassDef, line: int) -> Value:
        """``cls()``: an instance, unless a ``__new__`` or a metaclass decides otherwise."""
        new = self.class_attr(cls, "__new__", instance=False)
        if isinstance(new, Function):
            return Runtime(f"{new.qualname} decides what {cls.qualname}() makes (line {line})")
        for keyword in cls.node.keywords:
            if keyword.arg != "metaclass":
                continue
            meta = self.expression(cls.module, keyword.value, {})
            if isinstance(meta, ClassDef) and isinstance(
                self.class_attr(meta, "__call__", instance=True), Function
            ):
                why = f"the metaclass {meta.qualname} decides what {cls.qualname}() makes"
                return Runtime(f"{why} (line {line})")
        return Instance(cls, line)

    def attribute(self, owner: Value, name: str) -> Value:
        """``owner.name`` for a value static reading knows."""
        if isinstance(owner, ModuleRef):
            if not self.follow(owner.name):
                return External(owner.name, name)
            try:
                source = self.module(owner.name)
            except StaticProblem as problem:
                return Runtime(problem.message)
            return self.module_attr(source, name)
        if isinstance(owner, ClassDef):
            return self.class_attr(owner, name, instance=False)
        if isinstance(owner, Instance):
            return self.class_attr(owner.cls, name, instance=True)
        if isinstance(owner, External):
            return External(owner.module, f"{owner.name}.{name}")
        if isinstance(owner, Runtime) and owner.made_by is not None:
            made = owner.made_by  # an object made by outside code: its attributes are its class's
            return External(made.module, f"{made.name}(...).{name}")
        if isinstance(owner, Runtime | Missing):
            return owner
        return Runtime(f"an attribute of a {getattr(owner, 'kind', 'value')} value")

    # ----------------------------------------------------------------- classes
    def class_attr(self, cls: ClassDef, name: str, *, instance: bool) -> Value:
        """``cls.name`` (or ``instance.name``) along the class's MRO (:mod:`.mro`)."""
        return self.classes.attr(cls, name, instance=instance)

    def mro(self, cls: ClassDef) -> list[Entry]:
        """``cls`` and its bases in the order Python looks attributes up."""
        return self.classes.mro(cls)

    def class_value(self, module: SourceModule, node: ast.ClassDef, qualname: str) -> ClassDef:
        """A ``class`` statement; a decorator that may replace the class is noted."""
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            found = self.expression(module, target, {})
            key = (found.module, found.name) if isinstance(found, External) else None
            if key not in _TRANSPARENT_CLASS_DECORATORS:
                self.notes.append(
                    f"{qualname} is decorated with @{clip(decorator)}, which may replace the "
                    "class; static lint read the class as written"
                )
        return ClassDef(module, node, qualname)

    # --------------------------------------------------------------- functions
    def function(
        self,
        module: SourceModule,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        *,
        in_class: bool,
    ) -> Value:
        """A ``def`` with its decorators applied where their effect is known."""
        kind, opaque = "function", []
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            found = self.expression(module, target, {})
            key = (found.module, found.name) if isinstance(found, External) else None
            if key == ("builtins", "staticmethod"):
                kind = "static"
            elif key == ("builtins", "classmethod"):
                kind = "class"
            elif key in _COMPUTED:
                return Data("property" if in_class else "property object", computed=in_class)
            elif key == ("functools", "wraps") and isinstance(decorator, ast.Call):
                wrapped = self.expression(module, decorator.args[0], {}) if decorator.args else None
                if isinstance(wrapped, External):  # the wrapper takes its __module__ and name
                    return wrapped
                if not isinstance(wrapped, Function | ClassDef):
                    opaque.append("@" + clip(decorator))
            elif key not in _TRANSPARENT_DECORATORS:
                opaque.append("@" + clip(decorator))
        if not in_class and kind == "class":  # a classmethod object: not callable
            return Data("classmethod object")
        if not in_class and kind == "static":  # a staticmethod object, as importing judges it
            return External("builtins", "staticmethod")
        return Function(module, node, qualname, 0, kind, tuple(opaque))

    def _hop(self) -> bool:
        self._hops += 1
        return self._hops <= _MAX_LOOKUPS
