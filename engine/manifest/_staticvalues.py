"""What a name in a module's source stands for, worked out without running the module.

The values here are descriptions, not objects: a function's definition, a
class's definition, an instance of a class that an assignment makes, a name
from a module outside what may be followed, data, or something only running
the code could tell (:class:`Runtime`). :class:`Walker` looks names up the
way attribute access would at run time (module bindings, ``from`` imports
followed into the modules they name, class bodies along their bases) for
:mod:`tooldeck.manifest._staticresolve` (handler references) and
:mod:`tooldeck.manifest._statictypes` (annotations).
"""

from __future__ import annotations

import ast
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tooldeck.manifest._resolve import close_names
from tooldeck.manifest._staticmarkers import clip, small
from tooldeck.manifest._staticsource import Binding, ModuleIndex, SourceModule, StaticProblem

__all__ = [
    "ClassDef",
    "Data",
    "External",
    "Function",
    "Instance",
    "Missing",
    "ModuleRef",
    "Runtime",
    "Value",
    "Walker",
    "is_installed_module",
]

_MAX_HOPS = 64
"""Bases read for one class's MRO."""
_MAX_LOOKUPS = 150
"""Aliases, imports and names followed for one reference before it counts as run-time only."""

_TRANSPARENT_DECORATORS = frozenset(
    {
        ("functools", "cache"),
        ("functools", "lru_cache"),
        ("functools", "wraps"),
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


@dataclass(frozen=True)
class Function:
    """A ``def``, ``async def`` or ``lambda`` in a module's source."""

    module: SourceModule
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    qualname: str
    drop: int = 0
    """Leading parameters already bound (``self`` of a bound method, ``cls``)."""
    kind: str = "function"
    """``function``, ``static`` (``@staticmethod``) or ``class`` (``@classmethod``)."""
    decorators: tuple[str, ...] = ()
    """Decorators static reading cannot see through (their source text)."""


@dataclass(frozen=True)
class ClassDef:
    """A ``class`` statement in a module's source."""

    module: SourceModule
    node: ast.ClassDef
    qualname: str


@dataclass(frozen=True)
class Instance:
    """An object an assignment makes by calling a class defined in the source."""

    cls: ClassDef
    line: int


@dataclass(frozen=True)
class ModuleRef:
    """A module (``import x``, a package's submodule): never a handler step."""

    name: str


@dataclass(frozen=True)
class External:
    """A name that comes from a module static reading does not follow (``module.name``)."""

    module: str
    name: str


@dataclass(frozen=True)
class Data:
    """A plain value (a literal, a computed property): ``kind`` names what it is."""

    kind: str
    computed: bool = False


@dataclass(frozen=True)
class Runtime:
    """Something only running the module could tell; ``why`` says what."""

    why: str
    made_by: External | None = None
    """The outside callable that made this value (``Counter()``), when one did."""


@dataclass(frozen=True)
class Missing:
    """No such name; ``close`` holds names that look like it."""

    close: tuple[str, ...] = ()


Value = Function | ClassDef | Instance | ModuleRef | External | Data | Runtime | Missing


@cache
def _install_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(Path(root).resolve() for root in roots if root)


def is_installed_module(source: SourceModule) -> bool:
    """Whether a module lives in the standard library or site-packages (not the project)."""
    try:
        where = Path(source.file).resolve()
    except (OSError, RuntimeError):
        return True
    return any(where.is_relative_to(root) for root in _install_roots())


class Walker:
    """Looks names up in source, following imports into the modules ``follow`` accepts."""

    def __init__(self, index: ModuleIndex, follow: Callable[[str], bool]) -> None:
        self.index = index
        self.follow = follow
        self.notes: list[str] = []
        """What a lookup had to assume (a conditional definition, an opaque decorator)."""
        self._hops = 0
        self._classes = index.classes

    # ----------------------------------------------------------------- modules
    def module(self, name: str) -> SourceModule:
        return self.index.module(name)

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
        return self._bound(module, name, binding)

    def _bound(self, module: SourceModule, name: str, binding: Binding) -> Value:
        node = binding.node
        if binding.kind == "def":
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            return self.function(module, node, name, in_class=False)
        if binding.kind == "class":
            assert isinstance(node, ast.ClassDef)
            return ClassDef(module, node, name)
        if binding.kind == "value":
            assert isinstance(node, ast.expr)
            return self.expression(module, node, {})
        if binding.kind == "import":
            return ModuleRef(binding.target)
        if binding.kind == "from":
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
            found = self.imported(star, name, line)
            if not isinstance(found, Missing):
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
            called = self.expression(module, node.func, scope)
            if isinstance(called, ClassDef):
                return Instance(called, node.lineno)
            shown = clip(node.func)
            why = f"made at run time by calling {shown} (line {node.lineno})"
            if isinstance(called, External):
                if called.module == "builtins" and called.name in _BUILTIN_DATA:
                    return Data(called.name)  # frozenset({...}): a value, never callable
                if (called.module, called.name) == ("functools", "partial") and node.args:
                    wrapped = self.expression(module, node.args[0], scope)
                    if isinstance(wrapped, External | Missing | ModuleRef | Data):
                        return wrapped  # judged as what it wraps: the origin a partial has
                return Runtime(why, made_by=called)
            return Runtime(why)
        if isinstance(node, ast.Constant):
            return Data(type(node.value).__name__)
        kinds = {
            ast.List: "list",
            ast.Tuple: "tuple",
            ast.Dict: "dict",
            ast.Set: "set",
            ast.JoinedStr: "str",
            ast.ListComp: "list",
            ast.DictComp: "dict",
            ast.SetComp: "set",
        }
        kind = kinds.get(type(node))
        if kind is not None:
            return Data(kind)
        if (
            isinstance(node, _OPERATIONS)
            and small(node, 1000)  # walked on every lookup that reaches it
            and all(isinstance(leaf, _CONSTANT_PARTS) for leaf in ast.walk(node))
        ):
            return Data("constant expression")
        return Runtime(f"computed at run time ({clip(node)}, line {node.lineno})")

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
        """``cls.name`` (or ``instance.name``) along the class's bases, as Python's MRO reads."""
        outside: list[Value] = []
        for klass in self.mro(cls, outside):
            binding = self.class_bindings(klass.node).get(name)
            if binding is None:
                continue
            qualname = f"{klass.qualname}.{name}"
            if binding.kind == "def":
                assert isinstance(binding.node, ast.FunctionDef | ast.AsyncFunctionDef)
                function = self.function(klass.module, binding.node, qualname, in_class=True)
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
                assert isinstance(binding.node, ast.ClassDef)
                return ClassDef(klass.module, binding.node, qualname)
            if binding.kind == "value":
                assert isinstance(binding.node, ast.expr)
                scope = self.class_bindings(klass.node)
                return self.expression(klass.module, binding.node, scope)
            return Runtime(f"{qualname} is bound when the class body runs")
        for base in outside:
            if isinstance(base, External):
                return External(base.module, f"{base.name}.{name}")
        for base in outside:
            if isinstance(base, Runtime):
                return Runtime(
                    f"{cls.qualname!r} does not define {name!r}; it may inherit it from a base "
                    f"class static lint cannot read ({base.why})"
                )
        names = dict.fromkeys(
            n for klass in self.mro(cls, []) for n in self.class_bindings(klass.node)
        )
        return Missing(tuple(close_names(name, names)))

    def mro(self, cls: ClassDef, outside: list[Value]) -> list[ClassDef]:
        """The class and its bases defined in followed source (depth first, left to right).

        Bases that are not (a class of another module, ``dict``, something
        computed) are appended to ``outside``; ``object`` and typing's
        ``Generic``/``Protocol`` are left out as Python's MRO would add nothing.
        """
        order: list[ClassDef] = []
        seen: set[int] = set()
        stack = [cls]
        while stack and len(order) < _MAX_HOPS:
            klass = stack.pop(0)
            if id(klass.node) in seen:
                continue
            seen.add(id(klass.node))
            order.append(klass)
            for base_node in klass.node.bases:
                base = self.expression(klass.module, base_node, {})
                if isinstance(base, ClassDef):
                    stack.append(base)
                elif isinstance(base, External) and (base.module, base.name) in _SKIPPED_BASES:
                    continue
                else:
                    outside.append(base)
        return order

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
                continue
            if key == ("builtins", "classmethod"):
                kind = "class"
                continue
            if key in _COMPUTED:
                return Data("property" if in_class else "property object", computed=in_class)
            if key in _TRANSPARENT_DECORATORS:
                continue
            opaque.append("@" + clip(decorator))
        return Function(module, node, qualname, 0, kind, tuple(opaque))

    def class_bindings(self, node: ast.ClassDef) -> dict[str, Binding]:
        """Names a class body binds (methods, nested classes, assignments), last one winning."""
        known = self._classes.get(id(node))
        if known is not None and known[0] is node:
            return known[1]
        found: dict[str, Binding] = {}
        _class_block(node.body, found, conditional=False)
        self._classes[id(node)] = (node, found)
        return found

    def _hop(self) -> bool:
        self._hops += 1
        return self._hops <= _MAX_LOOKUPS

    def reset(self) -> None:
        """Start a new lookup budget (one per reference)."""
        self._hops = 0


_SKIPPED_BASES = frozenset(
    {
        ("builtins", "object"),
        ("typing", "Generic"),
        ("typing", "Protocol"),
        ("typing_extensions", "Protocol"),
        ("abc", "ABC"),
    }
)


def _class_block(body: list[ast.stmt], found: dict[str, Binding], *, conditional: bool) -> None:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = Binding("def", node, node.lineno, conditional)
        elif isinstance(node, ast.ClassDef):
            found[node.name] = Binding("class", node, node.lineno, conditional)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = Binding("value", node.value, node.lineno, conditional)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.value is not None:
                found[node.target.id] = Binding("value", node.value, node.lineno, conditional)
        elif isinstance(node, ast.If | ast.Try):
            _class_block(node.body, found, conditional=True)
            _class_block(node.orelse, found, conditional=True)


def builtin_exists(name: str) -> bool:
    """Whether ``name`` is a builtin (``dict``, ``print``): a base or value from outside."""
    return hasattr(sys.modules["builtins"], name)
