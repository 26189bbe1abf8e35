"""A small real HTTP(S) server on 127.0.0.1 for the HTTP pack's tests (stdlib http.server).

Routes: ``/json`` echoes the request (method, path, headers, body) as JSON (the path also in
a Link header); ``/deep`` is JSON nested 100,000 deep; ``/text`` answers
Latin-1 text; ``/status/N`` answers status N; ``/redirect?to=URL&status=N`` redirects; ``/loop``
redirects to itself; ``/big`` streams 100 MB (it stops when the client goes away); ``/bomb``
sends gzip of 64 MiB of zeros;
``/packed?as=gzip|deflate|raw-deflate`` compressed JSON; ``/binary`` a PNG header; ``/slow``
answers after 5 s.
Every request is recorded (path, headers) in ``seen``.
"""

from __future__ import annotations

import gzip
import json
import socket
import ssl
import threading
import time
import zlib
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tooldeck import ToolFailed

BIG_BYTES = 100 * 1024 * 1024
BOMB_BYTES = 64 * 1024 * 1024


@cache
def gzip_bomb() -> bytes:
    """gzip of BOMB_BYTES zeros (about 64 KB), built once."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1024 * 1024)
    parts = [packer.compress(block) for _ in range(BOMB_BYTES // len(block))]
    return b"".join(parts) + packer.flush()


class _Handler(BaseHTTPRequestHandler):
    server: LocalServer  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _route(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.server.seen.append(
            {"method": self.command, "path": self.path, "headers": dict(self.headers)}
        )
        if url.path == "/json":
            echo = {
                "method": self.command,
                "path": self.path,
                "headers": dict(self.headers),
                "body": body.decode("utf-8", "replace"),
            }
            data = json.dumps(echo).encode()
            self._send(
                200, data, "application/json", X_Echo=json.dumps(echo), Link=f"<{self.path}>"
            )
        elif url.path == "/deep":
            self._send(200, b"[" * 100_000 + b"]" * 100_000, "application/json")
        elif url.path == "/text":
            self._send(200, "caf\u00e9 au lait".encode("latin-1"), "text/plain; charset=latin-1")
        elif url.path.startswith("/status/"):
            self._send(int(url.path.rsplit("/", 1)[1]), b"nope", "text/plain")
        elif url.path == "/redirect":
            self._send(int(query.get("status", "302")), b"", "text/plain", Location=query["to"])
        elif url.path == "/loop":
            self._send(302, b"", "text/plain", Location="/loop")
        elif url.path == "/binary":
            self._send(200, b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png")
        elif url.path == "/bomb":
            self._send(200, gzip_bomb(), "text/plain", Content_Encoding="gzip")
        elif url.path == "/packed":
            data, encoding = b'{"packed": true}', query["as"]
            if encoding == "gzip":
                data = gzip.compress(data)
            else:
                wbits = -zlib.MAX_WBITS if encoding == "raw-deflate" else zlib.MAX_WBITS
                packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
                data, encoding = packer.compress(data) + packer.flush(), "deflate"
            self._send(200, data, "application/json", Content_Encoding=encoding)
        elif url.path == "/big":
            self._stream_big()
        elif url.path == "/slow":
            time.sleep(5)
            self._send(200, b"late", "text/plain")
        else:
            self._send(404, b"no such route", "text/plain")

    def _stream_big(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(BIG_BYTES))
        self.end_headers()
        block = b"x" * (64 * 1024)
        sent = 0
        try:
            while sent < BIG_BYTES:
                self.wfile.write(block)
                sent += len(block)
        except OSError:
            pass  # the client stopped reading: what the test wants
        self.server.big_sent.append(sent)
        self.server.stopped_big.set()

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _route


class LocalServer(ThreadingHTTPServer):
    """The server, its thread and what it saw; ``tls`` (a context) makes it an https server."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.seen: list[dict[str, Any]] = []
        self.big_sent: list[int] = []
        self.stopped_big = threading.Event()
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)
        self.port = self.server_address[1]
        self._thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up early (the tool cutting a body) is expected here

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


_REAL_GETADDRINFO = socket.getaddrinfo


def cfg(*hosts: str, private: bool = True, **more: Any) -> dict[str, Any]:
    return {"tooldeck": {"http": {"allow_hosts": list(hosts), "allow_private": private, **more}}}


class FakeDns:
    """getaddrinfo for made-up names: ``answers[name]`` is a list of answers, one per lookup
    (the last repeats); numeric hosts and other names go to the real resolver."""

    def __init__(self, **answers: list[str]) -> None:
        self.answers = {k.replace("_", "."): v for k, v in answers.items()}
        self.asked: list[str] = []

    def __call__(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name not in self.answers:
            return _REAL_GETADDRINFO(host, port, *args, **kwargs)
        self.asked.append(name)
        plan = self.answers[name]
        address = plan.pop(0) if len(plan) > 1 else plan[0]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port or 0))]


def refused(kind: str, call: Any, *args: Any, **kwargs: Any) -> str:
    """Call a tool expecting a ToolFailed of ``kind``; its message."""
    with pytest.raises(ToolFailed) as caught:
        call(*args, **kwargs)
    assert caught.value.kind == kind, caught.value.message
    return caught.value.message
