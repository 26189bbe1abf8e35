"""The public surface: sorted, complete __all__ and a light ``import engine``."""

import subprocess
import sys

import engine


def _isort_key(name: str) -> tuple[int, str]:
    """CONSTANTS, then Classes, then functions: the order ruff's RUF022 keeps."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_all_is_sorted_and_every_name_exists():
    assert list(engine.__all__) == sorted(engine.__all__, key=_isort_key)
    for name in engine.__all__:
        assert hasattr(engine, name), name


def test_every_public_class_and_function_is_exported():
    public = {
        name
        for name, value in vars(engine).items()
        if not name.startswith("_") and (isinstance(value, type) or callable(value))
    }
    assert public <= set(engine.__all__) | {"annotations"}


def test_import_engine_stays_light():
    heavy = "('openai', 'mcp', 'watchfiles', 'jmespath')"
    code = f"import engine, sys; print(sorted(m for m in {heavy} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
