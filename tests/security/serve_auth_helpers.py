"""Real parts for the ``serve --auth`` tests: keys, signed tokens, a JWKS server, a live app.

Keys are generated with ``cryptography`` and tokens signed with PyJWT, as an
authorization server would; the app is ``build_app`` under a real uvicorn on
127.0.0.1 (in a thread, with its own loop); the JWKS is served by
``http.server`` on loopback and counts how often it is read.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import http.server
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import jwt
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tooldeck import Param, ToolContext, ToolRegistry, ToolSpec
from tooldeck.mcp._http import DEFAULT_TOOLSET, HttpOptions, build_app
from tooldeck.mcp._serving import build_server

DEADLINE = 30.0
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
AUDIENCE = "http://127.0.0.1/mcp"
ISSUER = "https://issuer.example"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ------------------------------------------------------------------ keys and tokens
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def public_pem(key: Any) -> bytes:
    return bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    base: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "alice",
        "azp": "ide",
        "scope": "tickets:read",
        "email": "alice@example.com",
        "iat": now,
        "exp": now + 600,
    }
    base.update(overrides)
    return {name: value for name, value in base.items() if value is not None}


def sign(key: Any, algorithm: str = "RS256", kid: str | None = None, **overrides: Any) -> str:
    headers = {"kid": kid} if kid else None
    return jwt.encode(claims(**overrides), key, algorithm=algorithm, headers=headers)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged(header: dict[str, Any], secret: bytes | None) -> str:
    """A token an attacker writes by hand: ``alg: none`` (no signature), or HS256 with
    ``secret`` as the HMAC key (the server's public key, which everybody has)."""
    body = _b64(json.dumps(header).encode()) + "." + _b64(json.dumps(claims()).encode())
    if secret is None:
        return body + "."
    signature = hmac.new(secret, body.encode(), hashlib.sha256).digest()
    return body + "." + _b64(signature)


def jwk_of(key: Any, kid: str, algorithm: str) -> dict[str, Any]:
    algo = jwt.get_algorithm_by_name(algorithm)
    data: dict[str, Any] = json.loads(algo.to_jwk(key.public_key()))
    data.update(kid=kid, use="sig", alg=algorithm)
    return data


class JwksServer:
    """A JWKS on loopback whose keys the test changes (rotation); counts the reads."""

    def __init__(self) -> None:
        self.keys: list[dict[str, Any]] = []
        self.reads = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.reads += 1
                body = json.dumps({"keys": outer.keys}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/jwks.json"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> JwksServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ------------------------------------------------------------------ the registry
def whoami(ctx: ToolContext) -> dict[str, Any]:
    auth = ctx.auth
    if auth is None:
        return {"subject": None}
    return {
        "subject": auth.subject,
        "client_id": auth.client_id,
        "scopes": sorted(auth.scopes),
        "email": auth.claims.get("email"),
    }


def registry(written: list[str]) -> ToolRegistry:
    """whoami (anyone), read_ticket (tickets:read), close_ticket (tickets:write), and
    write_note (side effects; approval off, so only the side-effects scope decides)."""
    reg = ToolRegistry(allow_side_effects=True)
    reg.add(ToolSpec(name="whoami", description="Who is calling.", handler=whoami))
    reg.add(
        ToolSpec(
            name="read_ticket",
            description="Read a ticket.",
            handler=lambda: "ticket 1: open",
            scopes=("tickets:read",),
        )
    )
    reg.add(
        ToolSpec(
            name="close_ticket",
            description="Close a ticket.",
            handler=lambda: written.append("closed") or "closed",
            scopes=("tickets:write",),
        )
    )

    def write_note(text: str) -> str:
        written.append(text)
        return "written"

    reg.add(
        ToolSpec(
            name="write_note",
            description="Write a note.",
            handler=write_note,
            params=(Param("text"),),
            side_effects=True,
        )
    )
    reg.add_resource(
        "tickets://{ticket_id}",
        lambda ticket_id: f"ticket {ticket_id}: open",
        name="ticket",
        scopes=("tickets:read",),
    )
    reg.add_resource("hr://salaries", lambda: "pay", name="salaries", scopes=("hr:read",))
    reg.add_resource("docs://whoami", whoami, name="caller")
    return reg


@contextlib.contextmanager
def live_app(reg: ToolRegistry, options: HttpOptions) -> Iterator[str]:
    """``build_app`` for ``reg`` under uvicorn on ``options.host``; yields the base URL."""
    port = options.port
    app = build_app({DEFAULT_TOOLSET: build_server(reg)}, options)
    config = uvicorn.Config(app, host=options.host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + DEADLINE
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise AssertionError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(DEADLINE)


@contextlib.asynccontextmanager
async def mcp_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    """A real MCP client whose HTTP client carries ``Authorization: Bearer <token>``."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=DEADLINE) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)
