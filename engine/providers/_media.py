"""A tool result with images, audio or files, in the shape each provider's API accepts.

Plain data, no SDK import. Each provider takes a different subset in a tool's
result, so each function sends what its API takes and puts the notice
(``[audio: audio/wav, 3.0 KB]``, the same words as :attr:`ToolResult.text
<tooldeck.ToolResult.text>`) in place of the rest, so the model still knows it
was there:

* OpenAI Responses API: ``function_call_output.output`` as a list of
  ``input_text``, ``input_image`` (PNG, JPEG, WebP, GIF as a data URL) and
  ``input_file`` (base64 ``file_data`` with its ``filename``); audio is not
  accepted there. Chat Completions tool messages take text only: the loop
  sends :attr:`~tooldeck.ToolResult.text` there.
* Anthropic Messages API: a ``tool_result`` block whose content holds ``text``,
  ``image`` (base64 source: JPEG, PNG, GIF, WebP) and ``document`` blocks (a PDF
  as base64, a plain-text file as text).
* Gemini: a ``functionResponse`` part whose ``response`` holds the text and
  whose ``parts`` carry ``inlineData`` for the types multimodal function
  responses accept (PNG, JPEG, WebP, PDF, plain text).

A text result (no :attr:`~tooldeck.ToolResult.content`) becomes the plain
text form of each.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._calltypes import ToolResult
    from .._media import Media

__all__ = ["anthropic_tool_result", "gemini_function_response", "responses_output"]

_WEB_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
"""The image types OpenAI and Anthropic take as input."""
_GEMINI_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"}
)
"""The types Gemini takes inline in a function response."""


def _b64(part: Media) -> str:
    return base64.b64encode(part.data or b"").decode("ascii")


def _mime(part: Media) -> str:
    return (part.mime_type or "application/octet-stream").split(";")[0].strip()


def responses_output(result: ToolResult) -> str | list[dict[str, Any]]:
    """``function_call_output.output`` for the OpenAI Responses API: text, or a list of items."""
    if result.content is None:
        return result.text
    items: list[dict[str, Any]] = []
    for part in result.content:
        if isinstance(part, str):
            items.append({"type": "input_text", "text": part})
        elif part.kind == "image" and _mime(part) in _WEB_IMAGES:
            url = f"data:{_mime(part)};base64,{_b64(part)}"
            items.append({"type": "input_image", "image_url": url})
        elif part.kind == "file":
            items.append(
                {
                    "type": "input_file",
                    "filename": part.name or "file",
                    "file_data": f"data:{_mime(part)};base64,{_b64(part)}",
                }
            )
        else:  # audio, and images of a type the API does not take
            items.append({"type": "input_text", "text": part.notice()})
    return items


def anthropic_tool_result(result: ToolResult, tool_use_id: str | None = None) -> dict[str, Any]:
    """The Anthropic ``tool_result`` block answering ``tool_use_id`` (default: the call id).

    Images go as ``image`` blocks, a PDF as a ``document`` block and a plain
    text file as a text ``document``; anything else (audio, other files) as its
    notice. A failed result carries ``is_error``.
    """
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id or result.call_id}
    if not result.ok:
        block["is_error"] = True
    if result.content is None:
        block["content"] = result.text
        return block
    blocks: list[dict[str, Any]] = []
    for part in result.content:
        if isinstance(part, str):
            blocks.append({"type": "text", "text": part})
            continue
        mime = _mime(part)
        if part.kind == "image" and mime in _WEB_IMAGES:
            source = {"type": "base64", "media_type": mime, "data": _b64(part)}
            blocks.append({"type": "image", "source": source})
        elif part.kind == "file" and mime == "application/pdf":
            source = {"type": "base64", "media_type": mime, "data": _b64(part)}
            blocks.append(_document(source, part))
        elif part.kind == "file" and mime == "text/plain" and (text := _utf8(part)) is not None:
            source = {"type": "text", "media_type": mime, "data": text}
            blocks.append(_document(source, part))
        else:
            blocks.append({"type": "text", "text": part.notice()})
    block["content"] = blocks
    return block


def _document(source: dict[str, Any], part: Media) -> dict[str, Any]:
    document: dict[str, Any] = {"type": "document", "source": source}
    if part.name:
        document["title"] = part.name
    return document


def _utf8(part: Media) -> str | None:
    try:
        return (part.data or b"").decode("utf-8")
    except UnicodeDecodeError:
        return None


def gemini_function_response(result: ToolResult, name: str | None = None) -> dict[str, Any]:
    """The Gemini ``functionResponse`` part for ``result`` (REST spelling, camelCase).

    ``response`` is ``{"result": text}`` (``{"error": text}`` for a failed
    call): the text parts, with a notice for each object not sent inline;
    ``parts`` carries the media Gemini accepts as ``inlineData``. ``name`` is
    the function's (default: the result's tool name); ``id`` is the call id.
    """
    response: dict[str, Any] = {"name": name or result.tool_name}
    if result.call_id:
        response["id"] = result.call_id
    key = "result" if result.ok else "error"
    if result.content is None:
        response["response"] = {key: result.text}
        return {"functionResponse": response}
    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    for part in result.content:
        if isinstance(part, str):
            texts.append(part)
        elif part.kind != "audio" and _mime(part) in _GEMINI_TYPES:
            parts.append({"inlineData": {"mimeType": _mime(part), "data": _b64(part)}})
        else:
            texts.append(part.notice())
    response["response"] = {key: "\n".join(texts)}
    if parts:
        response["parts"] = parts
    return {"functionResponse": response}
