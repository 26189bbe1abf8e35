"""Classes a project defines, rebuilt from their source by the standard library's own forms.

An enum becomes ``Enum(name, members)``, a TypedDict ``TypedDict(name,
fields)``, a dataclass and a pydantic model ``make_dataclass(...)`` with the
same fields, defaults and descriptions, a NamedTuple ``NamedTuple(name,
fields)`` and any other class an empty class of the same name (which
inference refuses, as it refuses the real one). Only literals are taken from
the source; nothing the project wrote runs, so a member or default that
only running gives makes the class unknown (or its default "some value").
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import typing
from typing import Any, Protocol

from .markers import (
    NAMEDTUPLE,
    PYDANTIC_FIELD,
    PYDANTIC_MODEL,
    RUNTIME,
    TYPEDDICT,
    Unknown,
    clip,
)

__all__ = ["TypeReading", "rebuild_class"]


class TypeReading(Protocol):
    """What rebuilding a class needs from :class:`~.types.TypeReader`."""

    notes: list[str]

    def annotation(self, node: ast.expr | None, module: Any, where: str) -> Any: ...

    def value(self, node: ast.expr | None, module: Any) -> Any: ...

    def _name(self, node: ast.Name | ast.Attribute, module: Any, depth: int) -> Any: ...


_FIELDS = "__tooldeck_fields__"
"""On a rebuilt TypedDict: field name -> (annotation, required), for classes that extend it."""
_MODEL = "__tooldeck_model__"
"""On a rebuilt pydantic model: marks it as one, for classes that extend it."""


def rebuild_class(reader: TypeReading, cls: Any, depth: int) -> Any:
    """The class ``cls`` (a ``ClassDef`` value) stands for, or raise ``Unknown``."""
    node: ast.ClassDef = cls.node
    bases = [_base(reader, base, cls.module, depth) for base in node.bases]
    bases = [b for b in bases if b is not None]
    names = {"__module__": cls.module.name, "__qualname__": cls.qualname}
    doc = ast.get_docstring(node)
    if any(isinstance(b, type) and issubclass(b, enum.Enum) for b in bases):
        return _enum(reader, cls, bases)
    if any(b is TYPEDDICT or typing.is_typeddict(b) for b in bases):
        return _typeddict(reader, cls, bases, names, doc)
    if any(b is PYDANTIC_MODEL or getattr(b, _MODEL, False) for b in bases):
        reader.notes.append(
            f"pydantic model {cls.qualname!r} was read from its source: its fields, defaults "
            "and descriptions are checked, its validators and constraints are not"
        )
        return _dataclass(reader, cls, bases, names, doc, model=True)
    if any(b is NAMEDTUPLE for b in bases):
        fields = [(name, annotation) for name, annotation, _, _ in _fields(reader, cls)]
        built = typing.NamedTuple(node.name, fields)  # type: ignore[misc]
        built.__module__, built.__qualname__ = names["__module__"], names["__qualname__"]
        return built
    if _is_dataclass(reader, cls):
        return _dataclass(reader, cls, bases, names, doc, model=False)
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "model_json_schema":
            raise Unknown(f"{cls.qualname!r} computes its own schema (model_json_schema)")
    plain = [b for b in bases if isinstance(b, type)]
    if len(plain) != len(bases):
        raise Unknown(f"{cls.qualname!r} has a base class static lint cannot rebuild")
    try:
        return type(node.name, tuple(plain), {**names, "__doc__": doc})
    except TypeError as exc:
        raise Unknown(f"{cls.qualname!r}: {exc}") from None


def _base(reader: TypeReading, node: ast.expr, module: Any, depth: int) -> Any:
    """A base class as a rebuilt class or marker; None for ones that add nothing (Generic)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if not isinstance(node, ast.Name | ast.Attribute):
        raise Unknown(f"base `{clip(node)}` is computed")
    found = reader._name(node, module, depth + 1)
    if found in (typing.Generic, object) or getattr(found, "__name__", "") == "Protocol":
        return None
    return found


def _fields(reader: TypeReading, cls: Any) -> list[tuple[str, Any, ast.expr | None, int]]:
    """Annotated class-body names (not ``ClassVar``): (name, annotation, default node, line)."""
    found = []
    for statement in cls.node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        name = statement.target.id
        annotation = reader.annotation(
            statement.annotation, cls.module, f"field {cls.qualname}.{name}"
        )
        if typing.get_origin(annotation) is typing.ClassVar or annotation is typing.ClassVar:
            continue
        found.append((name, annotation, statement.value, statement.lineno))
    return found


def _enum(reader: TypeReading, cls: Any, bases: list[Any]) -> Any:
    kinds = [b for b in bases if isinstance(b, type) and issubclass(b, enum.Enum)]
    if any(len(kind.__members__) for kind in kinds):
        raise Unknown(f"{cls.qualname!r} extends an enum that has members")
    members: list[tuple[str, Any]] = []
    for statement in cls.node.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if not isinstance(target, ast.Name) or target.id.startswith("_"):
            continue
        value = statement.value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name | ast.Attribute)
            and not value.args
            and reader._name(value.func, cls.module, 0) is enum.auto
        ):
            members.append((target.id, enum.auto()))
            continue
        literal = reader.value(value, cls.module)
        if literal is RUNTIME:
            raise Unknown(f"member {cls.qualname}.{target.id} is computed")
        members.append((target.id, literal))
    try:
        functional: Any = kinds[-1]  # Enum's functional form: Enum(name, members, module=...)
        return functional(cls.node.name, members, module=cls.module.name, qualname=cls.qualname)
    except (TypeError, ValueError) as exc:
        raise Unknown(f"{cls.qualname!r}: {exc}") from None


def _typeddict(
    reader: TypeReading, cls: Any, bases: list[Any], names: dict[str, str], doc: str | None
) -> Any:
    total = True
    for keyword in cls.node.keywords:
        if keyword.arg == "total" and isinstance(keyword.value, ast.Constant):
            total = bool(keyword.value.value)
    fields: dict[str, tuple[Any, bool]] = {}
    for base in bases:
        fields.update(getattr(base, _FIELDS, {}))
    for name, annotation, _, _ in _fields(reader, cls):
        origin = typing.get_origin(annotation)
        if origin is typing.Required:
            fields[name] = (typing.get_args(annotation)[0], True)
        elif origin is typing.NotRequired:
            fields[name] = (typing.get_args(annotation)[0], False)
        else:
            fields[name] = (annotation, total)
    spelled = {
        name: hint if required else typing.NotRequired[hint]
        for name, (hint, required) in fields.items()
    }
    functional: Any = typing.TypedDict  # the functional form, with a name only known here
    built: Any = functional(cls.node.name, spelled)
    built.__module__, built.__qualname__, built.__doc__ = (
        names["__module__"],
        names["__qualname__"],
        doc,
    )
    setattr(built, _FIELDS, fields)
    return built


def _is_dataclass(reader: TypeReading, cls: Any) -> bool:
    for decorator in cls.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name | ast.Attribute):
            try:
                if reader._name(target, cls.module, 0) is dataclasses.dataclass:
                    return True
            except Unknown:
                continue
    return False


def _dataclass(
    reader: TypeReading,
    cls: Any,
    bases: list[Any],
    names: dict[str, str],
    doc: str | None,
    *,
    model: bool,
) -> Any:
    spec: list[tuple[str, Any, Any]] = []
    for name, annotation, default, _line in _fields(reader, cls):
        if model and (name.startswith("_") or name == "model_config"):
            continue
        hint, value = _default(reader, cls, annotation, default, model=model)
        spec.append((name, hint, value))
    kept = tuple(b for b in bases if isinstance(b, type) and dataclasses.is_dataclass(b))
    try:
        built = dataclasses.make_dataclass(cls.node.name, spec, bases=kept, kw_only=model)
    except TypeError:  # a field without a default after one with: as keyword-only instead
        try:
            built = dataclasses.make_dataclass(cls.node.name, spec, bases=kept, kw_only=True)
        except (TypeError, ValueError) as exc:
            raise Unknown(f"{cls.qualname!r}: {exc}") from None
    except ValueError as exc:  # a mutable default: the real class fails to define too
        raise Unknown(f"{cls.qualname!r}: {exc}") from None
    built.__module__, built.__qualname__, built.__doc__ = (
        names["__module__"],
        names["__qualname__"],
        doc,
    )
    if model:
        setattr(built, _MODEL, True)
    return built


def _default(
    reader: TypeReading, cls: Any, annotation: Any, node: ast.expr | None, *, model: bool
) -> tuple[Any, Any]:
    """(annotation, ``dataclasses.field``) for one field's default as the source writes it."""
    if node is None:
        return annotation, dataclasses.field()
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
        try:
            called = reader._name(node.func, cls.module, 0)
        except Unknown:
            called = None
        if called is dataclasses.field or (model and called is PYDANTIC_FIELD):
            return _field_call(reader, cls, annotation, node, model=model)
    return annotation, _literal_field(reader.value(node, cls.module), model=model)


def _literal_field(value: Any, *, model: bool) -> Any:
    """A field with this default; a model's mutable default is copied per instance."""
    if value is RUNTIME:
        return dataclasses.field(default_factory=_computed)
    if model and isinstance(value, list | dict | set):
        return dataclasses.field(default_factory=lambda: value)
    return dataclasses.field(default=value)


def _field_call(
    reader: TypeReading, cls: Any, annotation: Any, node: ast.Call, *, model: bool
) -> tuple[Any, Any]:
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    description = keywords.get("description")
    if isinstance(description, ast.Constant) and isinstance(description.value, str):
        annotation = typing.Annotated[annotation, description.value]
    if "default_factory" in keywords:
        return annotation, dataclasses.field(default_factory=_computed)
    default = keywords.get("default", node.args[0] if node.args else None)
    if default is None or (isinstance(default, ast.Constant) and default.value is Ellipsis):
        return annotation, dataclasses.field()
    return annotation, _literal_field(reader.value(default, cls.module), model=model)


def _computed() -> None:
    """Stands for a default only running the class gives (a factory: optional, not shown)."""
    return
