"""What the HTTP tools return from a response: a few headers and a bounded, decoded body.

The response is untrusted: its size, its content encoding and its charset are whatever the server
says. The body is read as it streams, inflated here in steps of at most ``INFLATE_STEP`` bytes
(gzip and deflate only: the tools ask for nothing else), and reading stops at the cap, so neither a
100 MB answer nor a gzip bomb is ever held in memory. Binary content types are described, not
returned.
"""

from __future__ import annotations

import codecs
import json
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import httpx2

from tooldeck import ToolFailed

from ._httpconfig import Masker

SHOWN_HEADERS = (
    "content-type",
    "content-length",
    "content-encoding",
    "content-disposition",
    "location",
    "date",
    "last-modified",
    "etag",
    "cache-control",
    "expires",
    "retry-after",
    "www-authenticate",
    "allow",
    "link",
)
SHOWN_PREFIXES = ("x-ratelimit-", "ratelimit-")
MAX_HEADER_CHARS = 500
INFLATE_STEP = 64 * 1024
"""The most bytes one step of inflating a compressed body may produce."""
MIN_CUT_SECRET = 3
"""A cut body ending in this many or more leading characters of a secret has them masked."""
TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-www-form-urlencoded",
        "application/x-ndjson",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/graphql",
        "application/sql",
        "image/svg+xml",
    }
)


def answer(
    response: httpx2.Response,
    *,
    method: str,
    url: str,
    cap: int,
    masker: Masker,
    check_time: Callable[[], object],
) -> dict[str, Any]:
    """The tool's answer for a (non-redirect) response: status, URL, headers, bounded body.

    ``cap`` is the most decoded bytes read; ``check_time`` raises once the call's deadline passed
    (it is called for every piece of the body).
    """
    content_type = response.headers.get("content-type", "")
    mime = content_type.split(";")[0].strip().lower()
    shown = {
        name: masker.text(", ".join(response.headers.get_list(name)))[:MAX_HEADER_CHARS]
        for name in sorted({k.lower() for k in response.headers})
        if name in SHOWN_HEADERS or name.startswith(SHOWN_PREFIXES)
    }
    result: dict[str, Any] = {
        "status": response.status_code,
        "url": masker.text(url),
        "content_type": masker.text(content_type)[:MAX_HEADER_CHARS] or None,
        "headers": shown,
        "body": "",
        "truncated": False,
    }
    if method == "HEAD":
        return result
    encodings = [
        e.strip().lower()
        for e in response.headers.get("content-encoding", "").split(",")
        if e.strip() and e.strip().lower() != "identity"
    ]
    if mime and not _is_text(mime):
        result["body"] = _describe(mime, response, encodings)
        return result
    if any(e not in ("gzip", "x-gzip", "deflate") for e in encodings) or len(encodings) > 3:
        result["body"] = (
            f"[body in an encoding that was not asked for ({', '.join(encodings)}); not shown]"
        )
        return result
    data, truncated = _read(response, encodings, cap, check_time)
    if not mime and b"\x00" in data[:1024]:
        result["body"] = (
            f"[binary content without a content type, {len(data)} bytes read; not shown]"
        )
        return result
    text = _decode(data, response.charset_encoding, final=not truncated)
    if not truncated and (mime == "application/json" or mime.endswith("+json")):
        try:  # parsed before masking, so a secret written with JSON escapes is masked too
            result["body"] = masker.value(json.loads(text))
            return result
        except (ValueError, RecursionError):
            pass  # not JSON after all (or nested too deep to parse): shown as text
    text = masker.text(text)
    if truncated:
        text = _mask_cut_secret(text, masker) + f"\n[... response truncated at {cap} bytes]"
    result["body"] = text
    result["truncated"] = truncated
    return result


def _is_text(mime: str) -> bool:
    return mime.startswith("text/") or mime in TEXT_TYPES or mime.endswith(("+json", "+xml"))


def _describe(mime: str, response: httpx2.Response, encodings: list[str]) -> str:
    length = response.headers.get("content-length", "")
    size = f"{length} bytes" if length.isdigit() else "size not given"
    encoded = f", encoded {', '.join(encodings)}" if encodings else ""
    return f"[binary content ({mime}, {size}{encoded}); not shown]"


def _read(
    response: httpx2.Response, encodings: list[str], cap: int, check_time: Callable[[], object]
) -> tuple[bytes, bool]:
    """Up to ``cap`` decoded bytes, and whether more followed.

    The deadline is checked for every piece *received*, not only for every piece inflated: a
    compressed body can stream forever without inflating to a single byte (empty deflate
    blocks), and would then never reach the cap.
    """
    data = bytearray()
    for piece in _decoded(_timed(response.iter_raw(), check_time), encodings):
        check_time()
        room = cap - len(data)
        if len(piece) > room:
            data += piece[:room]
            return bytes(data), True
        data += piece
    check_time()  # a body ended by the connection's close may have been cut at the deadline
    return bytes(data), False


def _timed(chunks: Iterator[bytes], check_time: Callable[[], object]) -> Iterator[bytes]:
    for chunk in chunks:
        check_time()
        yield chunk


def _decoded(chunks: Iterator[bytes], encodings: list[str]) -> Iterator[bytes]:
    """The body with its content encodings undone (last applied, first undone), step by step."""
    for encoding in reversed(encodings):
        chunks = _inflate(chunks, gzip=encoding != "deflate")
    return chunks


def _inflate(chunks: Iterator[bytes], *, gzip: bool) -> Iterator[bytes]:
    """Inflate gzip or deflate (zlib-wrapped or raw), at most INFLATE_STEP bytes at a time.

    ``max_length`` keeps each step small, so a few kilobytes of compressed zeros never become
    gigabytes in memory: the reader stops asking once the cap is reached.
    """
    decompressor: Any = None
    try:
        for chunk in chunks:
            if decompressor is None:
                wrapped = (
                    len(chunk) >= 2
                    and chunk[0] & 0x0F == 8
                    and (chunk[0] << 8 | chunk[1]) % 31 == 0
                )
                raw = not gzip and not wrapped
                decompressor = zlib.decompressobj(
                    zlib.MAX_WBITS | 16 if gzip else -zlib.MAX_WBITS if raw else zlib.MAX_WBITS
                )
            data = chunk
            while data:
                out = decompressor.decompress(data, INFLATE_STEP)
                if out:
                    yield out
                data = decompressor.unconsumed_tail
                if decompressor.eof:
                    break
        if decompressor is not None:
            while not decompressor.eof:
                out = decompressor.decompress(b"", INFLATE_STEP)
                if not out:
                    break
                yield out
    except zlib.error as exc:
        raise ToolFailed(
            f"the server sent a body it said was {'gzip' if gzip else 'deflate'}-compressed, "
            f"but it could not be decompressed ({exc})",
            kind="bad_response",
        ) from None


def _decode(data: bytes, charset: str | None, *, final: bool) -> str:
    """Text in the declared charset (UTF-8 when none or unknown), undecodable bytes replaced.

    A cut body may end inside a character: that partial character is left out, not replaced.
    """
    try:
        decoder = codecs.getincrementaldecoder(charset or "utf-8")(errors="replace")
    except LookupError:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return str(decoder.decode(data, final=final))


def _mask_cut_secret(text: str, masker: Masker) -> str:
    """Mask the start of a secret left at the very end of a cut body."""
    for secret in masker.secrets:
        for size in range(len(secret) - 1, MIN_CUT_SECRET - 1, -1):
            if text.endswith(secret[:size]):
                return text[:-size] + "***"
    return text
