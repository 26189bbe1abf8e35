"""``import_python``: a module's public functions become the tools ``add_tool`` would register.

The round trip is exact: the manifest written for a module, loaded by the
engine, gives every tool the same name, description and input schema as
``ToolRegistry().add_tool(None, None, function)`` gives it.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tooldeck
from tooldeck._importers import Severity, import_python, render_manifest

MODULE = '''
"""Order tools for the tests."""

from __future__ import annotations

import dataclasses
import enum
import os.path
from datetime import date
from os.path import join  # imported: never a tool
from typing import Annotated, Literal, Optional

from tooldeck import ToolContext


class Speed(enum.Enum):
    SLOW = "slow"
    FAST = "fast"


@dataclasses.dataclass
class Address:
    street: str
    number: int = 1


def add_order(order_id: str, quantity: int = 1, express: bool = False) -> dict:
    """Add an order to the basket.

    Args:
        order_id: Order id, O-YYYYMMDD.
        quantity: How many items.
        express: Ship with express delivery.
    """
    return {}


def shipOrder(
    ctx: ToolContext,
    address: Address,
    speed: Speed = Speed.SLOW,
    when: Optional[date] = None,
    note: Annotated[str, "A note for the courier"] = "Costs ${ 5 } more",
    tags: list[str] | None = None,
    mode: Literal["a", "b"] = "a",
    either: int | str = 0,
    extra: dict[str, int] | None = None,
    *args: int,
    **kwargs: int,
) -> str:
    """Ship an order to an address.

    Second paragraph: with "quotes" and: colons.
    """
    return ""


async def cancel(order_id: str, reason: str = "") -> None:
    """Cancel an order."""


def _helper() -> None:
    """Private: never a tool."""


undocumented = lambda x: x  # noqa: E731 - a lambda is a function too


class NotATool:
    def method(self) -> None: ...
'''


@pytest.fixture
def module(tmp_path: Path) -> Iterator[Any]:
    """``module(name, source)`` writes a module under tmp_path and makes it importable."""
    names: list[str] = []
    sys.path.insert(0, str(tmp_path))

    def write(name: str, source: str) -> str:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        importlib.invalidate_caches()
        names.append(name)
        return name

    yield write
    sys.path.remove(str(tmp_path))
    for name in names:
        sys.modules.pop(name, None)


def load(tmp_path: Path, name: str) -> tuple[Any, Any, str]:
    result = import_python(name)
    path = tmp_path / f"{name}.yaml"
    text = render_manifest(result)
    path.write_text(text, encoding="utf-8")
    registry, loaded = tooldeck.load_manifests([path], allow_handlers=[name])
    assert loaded.errors == [], [str(d) for d in loaded.errors]
    return result, registry, text


def test_the_manifest_registers_what_add_tool_registers(module: Any, tmp_path: Path) -> None:
    name = module("orders_exact", MODULE)
    result, registry, text = load(tmp_path, name)
    assert [t.name for t in result.tools] == ["add_order", "ship_order", "cancel", "undocumented"]
    assert [t.handler for t in result.tools] == [
        f"{name}:add_order",
        f"{name}:shipOrder",
        f"{name}:cancel",
        f"{name}:undocumented",
    ]
    expected = tooldeck.ToolRegistry()
    imported = sys.modules[name]
    for attribute in ("add_order", "shipOrder", "cancel"):
        expected.add_tool(None, None, getattr(imported, attribute))
    expected.add_tool(
        "undocumented", None, imported.undocumented
    )  # a lambda: named for its attribute
    for spec in expected.tools():
        got = registry.get_tool(spec.name)
        assert got is not None
        assert got.description == spec.description
        assert registry.input_schema(spec.name) == expected.input_schema(spec.name), spec.name
    assert "Costs $${ 5 } more" in text  # a literal ${ survives interpolation


def test_params_are_written_out_explicitly(module: Any) -> None:
    name = module("orders_params", MODULE)
    add_order = import_python(name).tools[0]
    assert add_order.description == "Add an order to the basket."
    assert add_order.params == [
        {"name": "order_id", "type": "string", "description": "Order id, O-YYYYMMDD."},
        {"name": "quantity", "type": "integer", "description": "How many items.", "default": 1},
        {
            "name": "express",
            "type": "boolean",
            "description": "Ship with express delivery.",
            "default": False,
        },
    ]
    ship = import_python(name).tools[1]
    address = ship.params[0]
    assert address["properties"] == [
        {"name": "street", "type": "string"},
        {"name": "number", "type": "integer", "default": 1},
    ]


def test_dunder_all_chooses_and_orders_and_says_what_it_leaves_out(module: Any) -> None:
    name = module(
        "orders_all",
        '''
        from os.path import join

        __all__ = ["second", "first", "join", "_private", "CONSTANT"]
        CONSTANT = 1


        def first() -> None:
            """First."""


        def second() -> None:
            """Second."""


        def _private() -> None:
            """Private."""


        def unlisted() -> None:
            """Not in __all__."""
        ''',
    )
    result = import_python(name)
    assert [t.name for t in result.tools] == ["second", "first"]
    assert [(p.code, p.severity, p.name) for p in result.problems] == [
        ("TD511", Severity.WARNING, "join"),
        ("TD511", Severity.WARNING, "_private"),
    ]
    assert "it is imported from" in result.problems[0].message


def test_a_function_the_engine_refuses_is_skipped_the_others_written(module: Any) -> None:
    name = module(
        "orders_bad",
        '''
        def good(x: int) -> int:
            """Fine."""
            return x


        def bad(x: int = "three") -> int:
            """Its default breaks its own type."""
            return 0
        ''',
    )
    result = import_python(name)
    assert [t.name for t in result.tools] == ["good"]
    (problem,) = result.errors
    assert (problem.code, problem.name, problem.index) == ("TD511", "bad", 2)
    assert 'default "three"' in problem.message
    assert result.exit_code() == 1


def test_a_function_without_a_docstring_is_imported_with_a_warning(module: Any) -> None:
    name = module(
        "orders_terse",
        """
        def described(x: int) -> int:
            \"\"\"Double a number.\"\"\"
            return 2 * x


        def terse(x: int) -> int:
            return x
        """,
    )
    result = import_python(name)
    assert [t.name for t in result.tools] == ["described", "terse"]
    (problem,) = result.problems
    assert (problem.code, problem.severity, problem.name) == ("TD515", Severity.WARNING, "terse")
    assert problem.message.startswith(f"{name}:terse has no docstring")
    assert "TD401" in problem.message
    assert result.exit_code() == 0


@pytest.mark.parametrize(
    ("source", "name", "message"),
    [
        ("raise RuntimeError('boom')\n", "broken_module", "RuntimeError: boom"),
        ("import sys\nsys.exit(3)\n", "exiting_module", "SystemExit: 3"),
        ("X = 1\n", "empty_module", "defines no public functions"),
        (None, "no_such_module_here", "ModuleNotFoundError"),
        (None, "_private_mod", "not a module name"),
    ],
)
def test_an_unusable_module_is_one_problem(
    module: Any, source: str | None, name: str, message: str
) -> None:
    if source is not None:
        module(name, source)
    result = import_python(name)
    assert not result.readable
    assert result.exit_code() == 2
    (problem,) = result.problems
    assert problem.code == "TD510"
    assert message in problem.message
