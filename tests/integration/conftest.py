"""The scripted OpenAI-compatible server and the real ``openai`` clients on it, for the loop tests.

One server per test module (``server``), its script and recorded requests emptied for each test
(``model``), and a sync and an async client with retries off. A module that needs another kind
(a held stream, a caching client) defines its own fixture of that name, which wins.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import openai
import pytest

from tests.integration.openai_server import ScriptedServer
from tests.scripted_model import model, server

__all__ = ["model", "server"]  # fixtures, used by name


@pytest.fixture
def client(model: ScriptedServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=model.url, api_key="test", max_retries=0) as made:
        yield made


@pytest.fixture
async def aclient(model: ScriptedServer) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(base_url=model.url, api_key="test", max_retries=0) as made:
        yield made
