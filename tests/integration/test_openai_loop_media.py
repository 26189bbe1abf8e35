"""The model loop sends a tool's images and files: exact bodies at the scripted OpenAI server.

Through the real ``openai`` client over loopback (:mod:`tests.integration.openai_server`):
the Responses API gets a ``function_call_output`` whose ``output`` is a list of
``input_text`` / ``input_image`` / ``input_file`` items (audio as its notice); Chat
Completions tool messages take text only and get the result's text with notices.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.integration.openai_server import Turn, call, say
from tooldeck import Audio, File, Image, ToolRegistry
from tooldeck.providers.openai import run

PNG = b"\x89PNG\r\n\x1a\n" + bytes(40)
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt " + bytes(20)
PDF = b"%PDF-1.7 tiny"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@pytest.fixture
def registry(tmp_path: Path) -> ToolRegistry:
    (tmp_path / "chart.png").write_bytes(PNG)

    def chart(city: str) -> list[object]:
        """Draw the weather chart of a city.

        Args:
            city: City name.
        """
        return [
            f"Chart for {city}:",
            Image(path="chart.png"),
            File(PDF, name="report.pdf"),
            Audio(WAV),
        ]

    made = ToolRegistry(project_dir=tmp_path)
    made.add_tool("chart", "Draw the weather chart of a city.", chart)
    return made


def test_responses_sends_images_and_files_as_output_items(model, client, registry):
    model.script(Turn(calls=(call("chart", {"city": "Oslo"}, "call_1"),)), say("Done."))

    result = run(client, model="gpt-test", input="Chart?", registry=registry)

    _, second = model.bodies()
    output = second["input"][-1]
    assert output == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": [
            {"type": "input_text", "text": "Chart for Oslo:"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{b64(PNG)}"},
            {
                "type": "input_file",
                "filename": "report.pdf",
                "file_data": f"data:application/pdf;base64,{b64(PDF)}",
            },
            {"type": "input_text", "text": "[audio: audio/wav, 36 B]"},
        ],
    }
    assert result.text == "Done."
    [made] = result.calls
    assert made.result.text == (
        "Chart for Oslo:\n[image: image/png, 48 B]\n"
        "[file: report.pdf, application/pdf, 13 B]\n[audio: audio/wav, 36 B]"
    )


def test_chat_sends_the_text_with_notices(model, client, registry):
    model.script(Turn(calls=(call("chart", {"city": "Oslo"}, "call_2"),)), say("Done."))

    run(client, model="m", input="Chart?", registry=registry, api="chat")

    _, second = model.bodies()
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": (
            "Chart for Oslo:\n[image: image/png, 48 B]\n"
            "[file: report.pdf, application/pdf, 13 B]\n[audio: audio/wav, 36 B]"
        ),
    }
