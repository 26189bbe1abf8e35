"""The scripted OpenAI-compatible server as fixtures, for every test that talks to a model.

``server``: one per test module; ``model``: the same server with its script and recorded
requests emptied for each test. A module imports both (and lists them in ``__all__``, as they
are used by name); one that needs another kind defines its own fixture of that name.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.openai_server import ScriptedServer

__all__ = ["model", "server"]


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def model(server: ScriptedServer) -> ScriptedServer:
    """The server with an empty script and no requests recorded."""
    server.script()
    server.requests.clear()
    return server
