"""A result with media in the shape each provider takes: Anthropic, Gemini, OpenAI Responses."""

from __future__ import annotations

import base64
from pathlib import Path

from tooldeck import Audio, File, Image, ToolRegistry, ToolResult
from tooldeck.providers.anthropic import anthropic_tool_result
from tooldeck.providers.gemini import gemini_function_response

PNG = b"\x89PNG\r\n\x1a\n" + bytes(8)
SVG = b"<svg xmlns='http://www.w3.org/2000/svg'/>"
PDF = b"%PDF-1.7 x"
WAV = b"RIFF\x00\x00\x00\x00WAVE"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def media_result(tmp_path: Path) -> ToolResult:
    value = [
        "Caption",
        Image(PNG),
        Image(SVG, mime_type="image/svg+xml"),
        File(PDF, name="r.pdf"),
        File(b"plain words", name="notes.txt"),
        File(b"a,b", name="t.csv"),
        Audio(WAV),
    ]
    registry = ToolRegistry(project_dir=tmp_path)
    registry.add_tool("make", "Make.", lambda: value)
    return registry.call("make", "{}", call_id="toolu_1")


def test_anthropic_sends_images_pdfs_and_text_documents(tmp_path):
    block = anthropic_tool_result(media_result(tmp_path))
    assert block == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [
            {"type": "text", "text": "Caption"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)},
            },
            {"type": "text", "text": "[image: image/svg+xml, 41 B]"},
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": b64(PDF)},
                "title": "r.pdf",
            },
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "plain words"},
                "title": "notes.txt",
            },
            {"type": "text", "text": "[file: t.csv, text/csv, 3 B]"},
            {"type": "text", "text": "[audio: audio/wav, 12 B]"},
        ],
    }


def test_gemini_sends_inline_data_where_accepted(tmp_path):
    part = gemini_function_response(media_result(tmp_path))
    assert part == {
        "functionResponse": {
            "name": "make",
            "id": "toolu_1",
            "response": {
                "result": "Caption\n[image: image/svg+xml, 41 B]\n[file: t.csv, text/csv, 3 B]\n"
                "[audio: audio/wav, 12 B]"
            },
            "parts": [
                {"inlineData": {"mimeType": "image/png", "data": b64(PNG)}},
                {"inlineData": {"mimeType": "application/pdf", "data": b64(PDF)}},
                {"inlineData": {"mimeType": "text/plain", "data": b64(b"plain words")}},
            ],
        }
    }


def test_text_and_failed_results_keep_their_plain_forms(tmp_path):
    registry = ToolRegistry()
    registry.add_tool("echo", "Echo.", lambda: "hi")
    registry.add_tool("fail", "Fail.", lambda: 1 / 0)
    ok = registry.call("echo", "{}", call_id="c1")
    failed = registry.call("fail", "{}", call_id="c2")
    assert anthropic_tool_result(ok) == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": "hi",
    }
    assert anthropic_tool_result(failed, "toolu_9") == {
        "type": "tool_result",
        "tool_use_id": "toolu_9",
        "is_error": True,
        "content": failed.text,
    }
    assert gemini_function_response(ok, "echo_fn") == {
        "functionResponse": {"name": "echo_fn", "id": "c1", "response": {"result": "hi"}}
    }
    assert gemini_function_response(failed)["functionResponse"]["response"] == {
        "error": failed.text
    }
