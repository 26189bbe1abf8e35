"""The sample registry as a fresh fixture per test (tests may mutate what they export)."""

import pytest

from tests.unit.providers.sample import build_registry


@pytest.fixture
def registry():
    return build_registry()
