"""The public surface: sorted, complete __all__ and a light ``import tooldeck``."""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import tooldeck


def _isort_key(name: str) -> tuple[int, str]:
    """CONSTANTS, then Classes, then functions: the order ruff's RUF022 keeps."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_all_is_sorted_and_every_name_exists():
    assert list(tooldeck.__all__) == sorted(tooldeck.__all__, key=_isort_key)
    for name in tooldeck.__all__:
        assert hasattr(tooldeck, name), name


def test_every_public_class_and_function_is_exported():
    public = {
        name
        for name, value in vars(tooldeck).items()
        if not name.startswith("_") and (isinstance(value, type) or callable(value))
    }
    assert public <= set(tooldeck.__all__) | {"annotations"}


def test_import_engine_stays_light():
    heavy = "('openai', 'mcp', 'watchfiles', 'jmespath')"
    code = f"import tooldeck, sys; print(sorted(m for m in {heavy} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_every_public_name_has_one_home_module():
    assert set(tooldeck._EXPORTS) == set(tooldeck.__all__)
    for name, module in tooldeck._EXPORTS.items():
        assert hasattr(importlib.import_module(module, "tooldeck"), name), (name, module)


def test_the_type_checking_imports_match_the_lazy_table():
    """Editors and type checkers see the same names ``__getattr__`` serves."""
    tree = ast.parse(Path(tooldeck.__file__).read_text(encoding="utf-8"))
    guarded = next(n for n in tree.body if isinstance(n, ast.If))
    seen = {
        alias.name: "." * node.level + (node.module or "")
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == tooldeck._EXPORTS


def test_the_api_names_what_users_need():
    for name in (
        "export_tools",
        "strict_schema",
        "PROVIDERS",
        "DuplicatePolicy",
        "BeforeHook",
        "AfterHook",
        "ApprovalCallback",
        "ExportError",
        "CallFailure",
        "from_manifests",
    ):
        assert name in tooldeck.__all__
    assert issubclass(tooldeck.ExportError, tooldeck.ToolDeckError)
    assert not issubclass(tooldeck.CallFailure, BaseException)
