"""Nulls that mean "not given": what provider strict mode makes a model send.

Strict mode (OpenAI structured outputs, the default for exports that can
use it) lists every property as required and makes the optional ones
nullable, so a model sends ``null`` where it would have left a key out. For
an optional property whose own schema does not accept ``null``, that
``null`` can only mean "absent", so calls drop it before validating: at the
top level (``PreparedTool.null_is_absent``, the fast path) and inside
declared objects, array items and local ``$ref`` definitions
(:class:`NullPlan`), the same places :func:`tooldeck.strict_schema`
rewrites. A property whose schema accepts ``null`` keeps it as a value.

Not followed: the branches of ``anyOf``/``oneOf`` (which branch a value
belongs to is the validator's business) and a ``$ref`` cycle after its first
turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NullPlan", "null_plan", "optional_non_null", "rejects_null"]


@dataclass(frozen=True, slots=True)
class NullPlan:
    """Where ``null`` means absent inside one value: keys here, then deeper."""

    drop: frozenset[str] = frozenset()
    """Optional keys of this object whose schema rejects ``null``."""
    nested: tuple[tuple[str, NullPlan], ...] = ()
    """Properties whose values have plans of their own."""
    items: NullPlan | None = None
    """The plan for each item of an array."""

    def apply(self, value: Any) -> Any:
        """``value`` without the nulls that mean absent; the same object when none was found.

        Never changes ``value`` itself (nested containers may belong to the caller).
        """
        if type(value) is dict:
            changed: dict[str, Any] | None = None
            if self.drop and None in value.values():
                changed = {k: v for k, v in value.items() if v is not None or k not in self.drop}
            for key, plan in self.nested:
                child = value.get(key)
                if child is None:
                    continue
                new = plan.apply(child)
                if new is not child:
                    if changed is None:
                        changed = dict(value)
                    changed[key] = new
            return value if changed is None else changed
        if type(value) is list and self.items is not None:
            items = self.items
            new_items = [items.apply(item) for item in value]
            if any(a is not b for a, b in zip(new_items, value, strict=True)):
                return new_items
        return value


def _resolve(root: Mapping[str, Any], ref: Any) -> Mapping[str, Any] | None:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    node: Any = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, Mapping) else None


def rejects_null(schema: Any, root: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``schema`` certainly rejects ``null`` (False when it may accept it)."""
    if schema is False:
        return True
    if not isinstance(schema, Mapping):
        return False
    if "const" in schema:
        return schema["const"] is not None
    enum = schema.get("enum")
    if isinstance(enum, list | tuple) and not any(v is None for v in enum):
        return True
    declared = schema.get("type")
    if isinstance(declared, str):
        if declared != "null":
            return True
    elif isinstance(declared, list | tuple) and "null" not in declared:
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref not in seen:
        target = _resolve(root, ref)
        if target is not None and rejects_null(target, root, seen | {ref}):
            return True
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if (
            isinstance(branches, list)
            and branches
            and all(rejects_null(b, root, seen) for b in branches)
        ):
            return True
    all_of = schema.get("allOf")
    return isinstance(all_of, list) and any(rejects_null(b, root, seen) for b in all_of)


def optional_non_null(schema: Mapping[str, Any]) -> frozenset[str]:
    """The top-level optional properties of an object schema that reject ``null``."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return frozenset()
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    return frozenset(
        key for key, sub in properties.items() if key not in required and rejects_null(sub, schema)
    )


def null_plan(schema: Mapping[str, Any]) -> NullPlan | None:
    """The plan below the top level of a tool's input ``schema``; None when there is nothing.

    The top level's own keys are :func:`optional_non_null` (the fast path).
    """
    plan = _plan(schema, schema, frozenset())
    if plan is None or not (plan.nested or plan.items):
        return None
    return NullPlan(nested=plan.nested, items=plan.items)


def _plan(node: Any, root: Mapping[str, Any], seen: frozenset[str]) -> NullPlan | None:
    if not isinstance(node, Mapping):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = _resolve(root, ref) if ref not in seen else None
        if target is not None:
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            seen = seen | {ref}
    drop: set[str] = set()
    nested: list[tuple[str, NullPlan]] = []
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        required = node.get("required")
        required = set(required) if isinstance(required, list) else set()
        for key, sub in properties.items():
            if key not in required and rejects_null(sub, root, seen):
                drop.add(key)
            inner = _plan(sub, root, seen)
            if inner is not None:
                nested.append((key, inner))
    items = node.get("items")
    items_plan = _plan(items, root, seen) if isinstance(items, Mapping) else None
    if not drop and not nested and items_plan is None:
        return None
    return NullPlan(frozenset(drop), tuple(nested), items_plan)
