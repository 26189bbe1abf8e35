"""Static resolution (``lint --static``) agrees with importing, wherever source can tell.

Each handler shape below is resolved twice: by importing the module (what
``load_manifests`` does) and by reading its source. What inference derives
from them (the parameter schemas, the description, sync or async, whether an
async handler ever awaits) and what TD411 reads from the annotations must be
the same. The refusals of ``tests/security/test_handler_resolution.py`` are
checked against the static resolver too.
"""

from __future__ import annotations

import contextlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security import test_handler_resolution as attacks
from tooldeck._inference import describe_handler, infer_params
from tooldeck._lint.rules import _never_awaits
from tooldeck._lint.signature import accepted_types
from tooldeck._schema import param_schema
from tooldeck.manifest._resolve import ResolveError, resolve_handler
from tooldeck.manifest._static.resolve import StaticResolver, static_notes

SHAPES_PY = '''
"""Handler shapes, imported and read as source."""
from __future__ import annotations

import datetime as dt
import typing
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum, IntEnum, auto
from pathlib import Path
from typing import Annotated, Literal, NewType, NotRequired, Optional, Required, TypedDict, Union

from tooldeck import ToolContext

from tdstatic_shapes.models import Address, Kind

DEFAULT_LIMIT = 25
UserId = NewType("UserId", int)
Pair = tuple[int, str]
Tags = list[str]


class Color(str, Enum):
    RED = "red"
    GREEN = "green"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Step(Enum):
    ONE = auto()
    TWO = auto()


class Order(TypedDict):
    id: int
    address: Address
    note: NotRequired[str]


class Patch(TypedDict, total=False):
    title: str
    done: Required[bool]


class BigOrder(Order):
    priority: Level


@dataclass
class Point:
    x: float
    y: float = 0.0
    tags: list[str] = field(default_factory=list)


@dataclass
class Point3(Point):
    z: float = 1.5


def scalars(
    text: str,
    count: int = DEFAULT_LIMIT,
    ratio: float = 0.5,
    flag: bool = False,
    maybe: Optional[int] = None,
    either: Union[int, str] = 3,
    newer: int | None = None,
) -> str:
    """Plain scalars with defaults.

    Args:
        text: The text to work on.
        count: How many times.
    """
    return text


def collections_(
    tags: Tags,
    pair: Pair,
    numbers: tuple[int, ...],
    unique: set[str],
    seq: Sequence[int],
    table: dict[str, int],
    mapping: Mapping[str, float],
    anything: dict,
) -> None:
    """Collections of every kind."""


def choices(
    color: Color,
    level: Level = Level.LOW,
    step: Step = Step.ONE,
    mode: Literal["fast", "slow"] = "fast",
    kind: Kind = Kind.A,
) -> None:
    """Enums and literals, some from another module."""


def records(order: Order, patch: Patch, big: BigOrder, point: Point, p3: Point3) -> None:
    """TypedDicts and dataclasses, with inheritance."""


def specials(
    when: dt.datetime,
    day: dt.date,
    ident: uuid.UUID,
    amount: Decimal,
    where: Path,
    user: UserId,
    labelled: Annotated[int, "a labelled number"] = 1,
    ctx: ToolContext | None = None,
) -> None:
    """Standard-library types, a NewType and injected parameters."""


def shapes_of_parameters(a, /, b: int, *args: int, c: str = "x", **kwargs: typing.Any) -> None:
    """Positional-only, variadic and keyword-only parameters."""


async def awaits(url: str) -> str:
    """An async handler with an await point."""
    import asyncio

    await asyncio.sleep(0)
    return url


async def never_awaits(n: int) -> int:
    """An async handler that never awaits."""
    return n


class Service:
    """A service class; its constructor is the handler."""

    def __init__(self, base_url: str, retries: int = 3) -> None:
        self.base_url = base_url

    def fetch(self, path: str) -> str:
        """Fetch a path."""
        return path

    @staticmethod
    def static(n: int) -> int:
        """A static method."""
        return n

    @classmethod
    def build(cls, name: str) -> str:
        """A class method."""
        return name

    async def __call__(self, query: str, limit: int = 5) -> list:
        """Search."""
        return []


service = Service("https://example.org")
'''

MODELS_PY = """
from enum import Enum
from typing import TypedDict


class Kind(Enum):
    A = "a"
    B = "b"


class Address(TypedDict):
    street: str
    zip: int
"""

PACKAGE = "tdstatic_shapes"
ALLOWED = (PACKAGE,)
REFERENCES = [
    "tools:scalars",
    "tools:collections_",
    "tools:choices",
    "tools:records",
    "tools:specials",
    "tools:shapes_of_parameters",
    "tools:awaits",
    "tools:never_awaits",
    "tools:Service",
    "tools:Service.static",
    "tools:Service.build",
    "tools:Service.fetch",
    "tools:service",
    "tools:service.fetch",
    "tools:Point",
    "tools:Point3",
]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("static")
    package = root / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tools.py").write_text(SHAPES_PY)
    (package / "models.py").write_text(MODELS_PY)
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))
    for name in [n for n in sys.modules if n.startswith(PACKAGE)]:
        del sys.modules[name]


def _full(short: str) -> str:
    module, _, attribute = short.partition(":")
    return f"{PACKAGE}.{module}:{attribute}"


def _schemas(handler) -> list[dict]:
    return [param_schema(p) | {"name": p.name} for p in infer_params(handler)]


def _accepted(handler) -> dict[str, object]:
    from tooldeck._typing import signature_of

    signature = signature_of(handler)
    assert signature is not None
    return {name: accepted_types(p.annotation) for name, p in signature.parameters.items()}


@pytest.mark.parametrize("short", REFERENCES)
def test_static_reading_derives_what_importing_derives(shapes: Path, short: str):
    reference = _full(short)
    imported = resolve_handler(reference, ALLOWED)
    static = StaticResolver()(reference, ALLOWED)
    assert _schemas(static) == _schemas(imported)
    assert describe_handler(static) == describe_handler(imported)
    assert inspect.iscoroutinefunction(static) == inspect.iscoroutinefunction(
        imported
    ) or inspect.iscoroutinefunction(imported.__call__)
    assert _never_awaits(static) == _never_awaits(imported)
    assert _accepted(static) == _accepted(imported)
    assert [(p.name, p.kind) for p in inspect.signature(static).parameters.values()] == [
        (p.name, p.kind) for p in inspect.signature(imported).parameters.values()
    ]
    assert static_notes(static).needs_import == ()


def test_a_stand_in_cannot_be_called(shapes: Path):
    from tooldeck.manifest._static.resolve import StaticHandlerCalled

    static = StaticResolver()(_full("tools:scalars"), ALLOWED)
    with pytest.raises(StaticHandlerCalled):
        static("x")


@pytest.mark.parametrize("short", [short for short, _ in attacks.LEGITIMATE])
def test_legitimate_references_resolve_statically(short: str, tmp_path: Path):
    root = _attack_package(tmp_path)
    try:
        handler = StaticResolver()(attacks.ref(short), attacks.ALLOWED)
    finally:
        sys.path.remove(str(root))
    notes = static_notes(handler)
    assert notes is not None
    if short in ("tools:decorated", "tools:echo_partial"):
        assert notes.needs_import  # a decorator and a partial: said, not guessed
    else:
        assert notes.needs_import == ()


@pytest.mark.parametrize(
    "reference",
    [
        *(attacks.ref(short) for short in attacks.ATTACKS if short != "shell:run"),
        *attacks.BUNDLED_ATTACKS,
        *attacks.DUNDER_ATTACKS,
        *attacks.MALFORMED,
    ],
)
def test_what_importing_refuses_static_reading_refuses(reference: str, tmp_path: Path):
    root = _attack_package(tmp_path)
    try:
        with pytest.raises(ResolveError) as caught:
            StaticResolver()(reference, attacks.ALLOWED)
    finally:
        sys.path.remove(str(root))
    assert caught.value.code in ("TD311", "TD312", "TD313", "TD315")


def test_an_alias_planted_in_sys_modules_is_not_followed(tmp_path: Path):
    """``sys.modules`` says what this process imported, not what the repository holds."""
    import subprocess

    root = _attack_package(tmp_path)
    sys.modules[f"{attacks.PACKAGE}.shell"] = subprocess
    try:
        with pytest.raises(ResolveError) as caught:
            StaticResolver()(attacks.ref("shell:run"), attacks.ALLOWED)
    finally:
        sys.path.remove(str(root))
        del sys.modules[f"{attacks.PACKAGE}.shell"]
    assert caught.value.code == "TD311"


def _attack_package(tmp_path: Path) -> Path:
    package = tmp_path / attacks.PACKAGE
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("from tdsec_handlers.helpers import helper\n")
    (package / "tools.py").write_text(attacks.TOOLS_PY)
    (package / "helpers.py").write_text(attacks.HELPERS_PY)
    (tmp_path / "outside_helpers.py").write_text(attacks.OUTSIDE_PY)
    sys.path.insert(0, str(tmp_path))
    return tmp_path


RUNTIME_NAMES = {
    "made by a factory": ("def factory():\n    return lambda: 1\n\nhandler = factory()\n", True),
    "globals()": ("globals()['handler'] = print\n", True),
    "setattr on the module": ("import sys\nsetattr(sys.modules[__name__], 'handler', 1)\n", True),
    "a conditional def": ("import os\nif os.name:\n    def handler(): pass\n", True),
    "a loop variable": ("for handler in [print]:\n    pass\n", True),
    "an opaque decorator": ("from x import deco\n\n@deco\ndef handler(a: int): pass\n", True),
    "nothing at all": ("def other(): pass\n", False),
}


@pytest.mark.parametrize("case", RUNTIME_NAMES)
def test_names_only_running_can_tell_are_warnings_that_say_so(tmp_path: Path, case: str):
    source, warned = RUNTIME_NAMES[case]
    (tmp_path / "tdstatic_runtime.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        if not warned:
            with pytest.raises(ResolveError) as caught:
                StaticResolver()("tdstatic_runtime:handler", ("tdstatic_runtime",))
            assert caught.value.code == "TD312"
            return
        handler = StaticResolver()("tdstatic_runtime:handler", ("tdstatic_runtime",))
    finally:
        sys.path.remove(str(tmp_path))
    notes = static_notes(handler)
    assert notes is not None
    assert notes.needs_import


def test_cycles_of_aliases_imports_and_bases_end(tmp_path: Path):
    (tmp_path / "tdstatic_a.py").write_text(
        "from tdstatic_b import f\nx = y\ny = x\n"
        "class A(B): pass\nclass B(A): pass\nfrom tdstatic_a import *\n"
    )
    (tmp_path / "tdstatic_b.py").write_text("from tdstatic_a import f\n")
    sys.path.insert(0, str(tmp_path))
    try:
        for name in ("f", "x", "A.method", "missing"):
            with contextlib.suppress(ResolveError):  # ending at all is what is checked
                StaticResolver()(f"tdstatic_a:{name}", ("tdstatic_a", "tdstatic_b"))
    finally:
        sys.path.remove(str(tmp_path))


def test_unknown_annotations_are_any_value_with_a_note(tmp_path: Path):
    (tmp_path / "tdstatic_ann.py").write_text(
        "from somelib import Money\n\n"
        "def charge(amount: Money, count: int) -> str:\n    '''Charge.'''\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        handler = StaticResolver()("tdstatic_ann:charge", ("tdstatic_ann",))
    finally:
        sys.path.remove(str(tmp_path))
    assert _schemas(handler) == [{"name": "amount"}, {"type": "integer", "name": "count"}]
    notes = static_notes(handler)
    assert notes is not None
    assert any("Money" in note for note in notes.unjudged)


def test_a_pydantic_model_is_read_with_its_fields_and_descriptions(tmp_path: Path):
    (tmp_path / "tdstatic_model.py").write_text(
        "from pydantic import BaseModel, Field\n\n"
        "class Item(BaseModel):\n"
        "    name: str = Field(description='The item name')\n"
        "    qty: int = 1\n"
        "    tags: list[str] = []\n\n"
        "def add(item: Item) -> str:\n    '''Add.'''\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        static = StaticResolver()("tdstatic_model:add", ("tdstatic_model",))
    finally:
        sys.path.remove(str(tmp_path))
    [schema] = _schemas(static)
    assert schema["properties"]["name"] == {"type": "string", "description": "The item name"}
    assert schema["properties"]["qty"]["type"] == "integer"
    assert schema["required"] == ["name"]
    notes = static_notes(static)
    assert notes is not None
    assert any("pydantic model" in note for note in notes.unjudged)


MODEL_PY = """
from pydantic import BaseModel


class Item(BaseModel):
    name: str


def add(item: Item) -> str:
    \"\"\"Add.\"\"\"
"""


def test_static_reading_imports_neither_the_module_nor_pydantic(tmp_path: Path):
    (tmp_path / "tdstatic_model.py").write_text(MODEL_PY)
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from tooldeck.manifest._static.resolve import StaticResolver\n"
        "StaticResolver()('tdstatic_model:add', ('tdstatic_model',))\n"
        "print(sorted(m for m in ('pydantic', 'tdstatic_model') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip() == "[]", done.stderr
