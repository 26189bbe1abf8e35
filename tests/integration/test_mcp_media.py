"""``tooldeck serve`` sends images, audio and files as MCP content, to the real ``mcp`` client.

The real console script over stdio (the client spawns it) and over Streamable HTTP on
a free 127.0.0.1 port; the handlers return :class:`tooldeck.Image`, ``Audio`` and
``File``, from bytes and from paths in the project directory.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.serve_process import free_port, serve_process

pytestmark = pytest.mark.slow

TOOLDECK = Path(sys.executable).parent / "tooldeck"
MODULE = "mcp_media_handlers"
DEADLINE = 30.0
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt " + bytes(32)

HANDLERS = """
from tooldeck import Audio, File, Image

def chart() -> list:  # a bare list: an outputSchema the structure must match
    return ["The chart:", Image(path="chart.png")]

def sound():
    return Audio(data=b"RIFF\\x00\\x00\\x00\\x00WAVEfmt " + bytes(32))

def files():
    return [File(path="notes.md"), File(data=b"%PDF-1.7 binary", name="r.pdf")]

def huge():
    return Image(data=b"\\x89PNG\\r\\n\\x1a\\n" + bytes(11 * 1024 * 1024))  # over 10 MiB
"""

MANIFEST = f"""\
version: 1
tools:
  - {{name: chart, handler: "{MODULE}:chart", description: A chart.}}
  - {{name: sound, handler: "{MODULE}:sound", description: A sound.}}
  - {{name: files, handler: "{MODULE}:files", description: Two files.}}
  - {{name: huge, handler: "{MODULE}:huge", description: Too big.}}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / f"{MODULE}.py").write_text(HANDLERS, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "chart.png").write_bytes(PNG)
    (tmp_path / "notes.md").write_text("# Notes\n", encoding="utf-8")
    return tmp_path


def serve_args(*extra: str) -> list[str]:
    return ["serve", "-m", "tools.yaml", "--allow-handlers", MODULE, "--project-dir", ".", *extra]


async def check_media(session: ClientSession) -> None:
    chart = await session.call_tool("chart", {})
    assert not chart.is_error
    text, image = chart.content
    assert isinstance(text, types.TextContent)
    assert text.text == "The chart:"
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG
    assert chart.structured_content == {"result": ["The chart:", "[image: image/png, 72 B]"]}

    sound = await session.call_tool("sound", {})
    assert sound.structured_content is None  # no annotation, no structure
    (audio,) = sound.content
    assert isinstance(audio, types.AudioContent)
    assert audio.mime_type == "audio/wav"
    assert base64.b64decode(audio.data) == WAV

    files = await session.call_tool("files", {})
    notes, pdf = files.content
    assert isinstance(notes, types.EmbeddedResource)
    assert isinstance(notes.resource, types.TextResourceContents)
    assert notes.resource.text == "# Notes\n"
    assert notes.resource.mime_type == "text/markdown"
    assert notes.resource.uri == "file:///notes.md"
    assert isinstance(pdf, types.EmbeddedResource)
    assert isinstance(pdf.resource, types.BlobResourceContents)
    assert base64.b64decode(pdf.resource.blob) == b"%PDF-1.7 binary"
    assert pdf.resource.mime_type == "application/pdf"

    huge = await session.call_tool("huge", {})
    assert huge.is_error
    (error,) = huge.content
    assert isinstance(error, types.TextContent)
    assert error.text.startswith("Error (result_too_large): ")


@contextlib.asynccontextmanager
async def stdio_session(project: Path, *extra: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(TOOLDECK), args=serve_args(*extra), cwd=str(project))
    with (project / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
        ):
            async with asyncio.timeout(DEADLINE):
                await session.initialize()
            yield session


async def test_stdio_sends_images_audio_and_files(project: Path):
    async with stdio_session(project) as session:
        await check_media(session)


async def test_http_sends_images_audio_and_files(project: Path):
    port = free_port()
    argv = [str(TOOLDECK), *serve_args("--transport", "http", "--port", str(port))]
    with serve_process(argv, cwd=project, port=port, log=project / "http.log", deadline=DEADLINE):
        async with (
            streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
            ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
        ):
            async with asyncio.timeout(DEADLINE):
                await session.initialize()
            await check_media(session)
