"""The two servers of ``serve_load.py``: the project they serve, how each is started, the JWTs.

tooldeck is started as the real CLI (``python -m tooldeck serve``), MCPServer by
``serve_load.py --serve-mcpserver`` (:func:`serve_mcpserver`); both are child
processes whose CPU time and memory are read from ``/proc`` (:class:`Server`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

__all__ = [
    "DESCRIPTIONS",
    "ISSUER",
    "Project",
    "PyJwtVerifier",
    "Server",
    "free_port",
    "limit_flags",
    "mcpserver_argv",
    "serve_mcpserver",
    "tooldeck_argv",
    "tooldeck_flags",
]

ISSUER = "https://issuer.bench.invalid"
SCOPE = "tools"
LEEWAY = 30
"""Seconds of clock skew allowed on ``exp`` and ``nbf``, as tooldeck's default."""
DESCRIPTIONS = ("Add two integers.", "Add two integers and return their sum.")

HANDLER_MODULE = '''"""The tool both servers serve."""


def add(a: int, b: int) -> dict:
    """Add two integers."""
    return {"sum": a + b}
'''
MANIFEST = """version: 1
bundle: bench
tools:
  - name: add
    handler: bench_tools:add
    description: {description}
"""
PYPROJECT = (
    '[project]\nname = "serve-load-bench"\n\n[tool.tooldeck]\nallow_handlers = ["bench_tools"]\n'
)


# ------------------------------------------------------------------ project
@dataclass
class Project:
    """The temporary project, the signing key and the tokens."""

    root: Path
    private_key: rsa.RSAPrivateKey
    public_pem: Path

    @classmethod
    def create(cls, root: Path) -> Project:
        (root / "manifests").mkdir()
        (root / "bench_tools.py").write_text(HANDLER_MODULE)
        (root / "pyproject.toml").write_text(PYPROJECT)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = root / "jwt-public.pem"
        pem.write_bytes(
            key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        project = cls(root, key, pem)
        project.write_manifest(0)
        return project

    @property
    def manifest(self) -> Path:
        return self.root / "manifests" / "bench.yaml"

    def write_manifest(self, version: int) -> None:
        """One of the two valid versions, written in place (as an editor saves)."""
        self.manifest.write_text(MANIFEST.format(description=DESCRIPTIONS[version % 2]))

    def token(self, subject: str, audience: str, *, lifetime: float = 3600.0) -> str:
        now = int(time.time())
        claims = {
            "iss": ISSUER,
            "sub": subject,
            "aud": audience,
            "scope": SCOPE,
            "iat": now,
            "exp": now + int(lifetime),
        }
        return jwt.encode(claims, self.private_key, algorithm="RS256", headers={"kid": "bench"})


# ------------------------------------------------------------------ servers
def tooldeck_flags() -> set[str]:
    """The ``tooldeck serve`` flags this tooldeck knows (``--auth``, ``--rate-limit``...)."""
    done = subprocess.run(
        [sys.executable, "-m", "tooldeck", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return {word.rstrip(",") for word in done.stdout.split() if word.startswith("--")}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A server child process on a port of 127.0.0.1, with its log in a temporary file."""

    name: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Any

    @classmethod
    def start(cls, name: str, argv: list[str], port: int, cwd: Path) -> Server:
        log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        proc = subprocess.Popen(argv, stdout=log, stderr=log, cwd=cwd)
        return cls(name, port, proc, log)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def wait_ready(self, deadline: float) -> None:
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"serve_load: the {self.name} server exited:\n{self.tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"serve_load: the {self.name} server did not start") from None
                time.sleep(0.05)

    def check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise SystemExit(f"serve_load: the {self.name} server died:\n{self.tail()}")

    def tail(self, size: int = 3000) -> str:
        self.log.seek(0)
        return str(self.log.read()[-size:].decode(errors="replace"))

    def cpu(self) -> float:
        """User + system CPU seconds, all threads (Linux /proc)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory(self) -> dict[str, int]:
        """``VmRSS`` and ``VmHWM`` (the peak RSS) in KiB, from ``/proc/PID/status``."""
        found = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
        return found

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def tooldeck_argv(
    port: int, project: Project, *, auth: bool, flags: set[str], clients: int
) -> list[str]:
    argv = [sys.executable, "-m", "tooldeck", "serve", "-m", str(project.root / "manifests")]
    argv += ["--transport", "http", "--port", str(port), "--reload"]
    if auth:
        argv += ["--auth", "jwt", "--jwt-public-key", str(project.public_pem)]
        argv += ["--issuer", ISSUER, "--audience", f"http://127.0.0.1:{port}/mcp"]
    argv += limit_flags(auth=auth, flags=flags, clients=clients)
    return argv


def limit_flags(*, auth: bool, flags: set[str], clients: int) -> list[str]:
    """The per-client limits, raised just enough that they never refuse a benchmark request.

    Each client has a token of its own (``sub`` = its name), so the limits are
    per client as in production, and the defaults stay but one: the rate
    limit (20/s a client by default; a client here makes hundreds of calls a
    second) is raised far out of reach rather than turned off, so its
    bookkeeping stays in the figures. Each client has one request and one GET
    stream open, under the default ``--max-concurrent 8``; one session, under
    ``--max-sessions-per-client 32``; two connections, under
    ``--max-connections-per-client 128``. Without authentication every client
    is the same one (the address 127.0.0.1), so those are raised too.
    """
    wanted = {"--rate-limit": "100000/s"}
    if not auth:
        wanted["--max-concurrent"] = str(max(8, 4 * clients))
        wanted["--max-sessions-per-client"] = str(max(32, 2 * clients))
        wanted["--max-connections-per-client"] = str(max(128, 4 * clients))
    found = []
    for flag, value in wanted.items():
        if flag in flags:  # a tooldeck from before the limits has none of them
            found += [flag, value]
    return found


def mcpserver_argv(script: Path, port: int, project: Project, *, auth: bool) -> list[str]:
    """The MCPServer child: ``script`` (serve_load.py) re-run with ``--serve-mcpserver``."""
    argv = [sys.executable, str(script), "--serve-mcpserver", "--port", str(port)]
    argv += ["--project", str(project.root)]
    if auth:
        argv += ["--jwt-public-key", str(project.public_pem)]
    return argv


class PyJwtVerifier:
    """The MCPServer side's ``TokenVerifier``: the checks tooldeck's ``--auth jwt`` makes.

    The signature with the PEM public key (loaded once), an asymmetric
    algorithm, ``iss``, ``aud`` (the server's resource URL), ``exp`` and
    ``nbf`` with 30 s of leeway; the scopes from the ``scope`` claim.
    """

    ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA")

    def __init__(self, public_pem: Path, issuer: str, audience: str) -> None:
        self.key = serialization.load_pem_public_key(public_pem.read_bytes())
        self.issuer = issuer
        self.audience = audience

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        try:
            claims = jwt.decode(
                token,
                self.key,  # type: ignore[arg-type]
                algorithms=list(self.ALGORITHMS),
                audience=self.audience,
                issuer=self.issuer,
                leeway=LEEWAY,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.InvalidTokenError:
            return None
        subject = claims.get("sub")
        scope = claims.get("scope", "")
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id", subject)),
            scopes=scope.split() if isinstance(scope, str) else [],
            # the SDK's bearer middleware refuses a token past expires_at with no leeway
            expires_at=int(exp) + LEEWAY if isinstance(exp := claims.get("exp"), int) else None,
            resource=self.audience,
            subject=subject,
            claims=claims,
        )


async def serve_mcpserver(port: int, project: Path, public_pem: Path | None) -> None:
    """The MCPServer child: the project's ``add`` as a tool, JWT-protected unless told not."""
    import uvicorn
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.mcpserver import MCPServer

    sys.path.insert(0, str(project))
    from bench_tools import add  # type: ignore[import-not-found]

    url = f"http://127.0.0.1:{port}/mcp"
    auth: dict[str, Any] = {}
    if public_pem is not None:
        auth["token_verifier"] = PyJwtVerifier(public_pem, ISSUER, url)
        auth["auth"] = AuthSettings(
            issuer_url=ISSUER,  # type: ignore[arg-type]
            resource_server_url=url,  # type: ignore[arg-type]
            validate_token_resource=False,  # the verifier checks `aud` itself
        )
    server = MCPServer("bench", log_level="WARNING", **auth)
    server.tool(name="add", description=DESCRIPTIONS[0])(add)
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", http="h11"
    )
    await uvicorn.Server(config).serve()
