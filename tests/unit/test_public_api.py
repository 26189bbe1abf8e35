"""The public surface: sorted, complete __all__ and a light ``import tooldeck``."""

import subprocess
import sys

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
