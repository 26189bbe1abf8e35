"""What an attached server's ``tools/call`` answer becomes: text, or text with its media.

The usual answer (text blocks) stays text. An answer with images, audio or
binary embedded resources becomes a list of text and :class:`~tooldeck.Image`,
:class:`~tooldeck.Audio` and :class:`~tooldeck.File` objects, so ``tooldeck
serve`` as a gateway passes them on as content (and the model loop in the
shape its API takes), within the registry's media cap, instead of turning
them into words. A block whose data is not valid base64, or whose type does
not fit (an "image" that is not ``image/*``), is passed on as a notice saying
so, never dropped silently.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mcp_types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

__all__ = ["result_text", "result_value"]


def result_value(result: CallToolResult) -> str | list[Any]:
    """The answer as a handler's value: text, or a list of text and media objects."""
    content = result.content
    if not any(_is_media(block) for block in content):
        return result_text(result)
    from ..._media import Audio, File, Image

    items: list[Any] = []
    for block in content:
        if isinstance(block, TextContent):
            items.append(block.text)
        elif isinstance(block, ImageContent):
            items.append(_media(Image, "image", block.data, block.mime_type))
        elif isinstance(block, AudioContent):
            items.append(_media(Audio, "audio", block.data, block.mime_type))
        elif isinstance(block, EmbeddedResource):
            inner = block.resource
            if isinstance(inner, TextResourceContents):
                items.append(inner.text)
            else:
                name = str(inner.uri).rstrip("/").rsplit("/", 1)[-1] or None
                items.append(_media(File, "file", inner.blob, inner.mime_type, name=name))
        elif isinstance(block, ResourceLink):
            items.append(f"[resource link {block.uri}]")
        else:  # a kind of block a later protocol adds: named, never dropped
            items.append(f"[{block.type} content]")  # type: ignore[unreachable]
    return items


def _is_media(block: Any) -> bool:
    if isinstance(block, ImageContent | AudioContent):
        return True
    return isinstance(block, EmbeddedResource) and not isinstance(
        block.resource, TextResourceContents
    )


def _media(kind: Any, label: str, data: str, mime_type: str | None, **named: Any) -> Any:
    try:
        raw = base64.b64decode(data, validate=True)
        return kind(raw, mime_type=mime_type, **named)
    except (binascii.Error, ValueError, TypeError) as exc:
        return f"[{label} content the server sent that cannot be passed on: {exc}]"


def result_text(result: CallToolResult) -> str:
    """A ``tools/call`` result as text: text blocks joined, else structured content as JSON.

    Blocks that are not text (images, audio, resources) are named in brackets,
    so the model knows they were there.
    """
    content = result.content
    if len(content) == 1 and type(content[0]) is TextContent:  # the usual answer
        return content[0].text
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, EmbeddedResource):
            inner = block.resource
            if isinstance(inner, TextResourceContents):
                parts.append(inner.text)
            else:
                parts.append(f"[resource {inner.uri}]")
        elif isinstance(block, ResourceLink):
            parts.append(f"[resource link {block.uri}]")
        else:
            mime = getattr(block, "mime_type", None)
            parts.append(f"[{block.type} content{f' ({mime})' if mime else ''}]")
    if any(isinstance(block, TextContent) for block in result.content):
        return "\n".join(parts)
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False, default=str)
    return "\n".join(parts)
