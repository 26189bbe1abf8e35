"""The HTTP pack over https, and through a real ToolRegistry with a manifest.

https: the connection goes to the checked IP while the TLS server name (SNI) is the original host,
and the certificate must be valid for that name. The test CA is trusted by replacing the handler's
``_tls_verify`` (the trust boundary), names are answered by a patched ``socket.getaddrinfo``.
"""

from __future__ import annotations

import datetime
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.packs import ctx
from tooldeck import ToolRegistry, load_manifests
from tooldeck.handlers import _httpfetch as http_mod
from tooldeck.handlers.http import http_get

from .http_pack_server import FakeDns, LocalServer, cfg, refused


def _certificates(name: str) -> tuple[bytes, bytes, bytes]:
    """A CA certificate, and a certificate + key for ``name`` it signed (PEM)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tooldeck test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .add_extension(
            x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    key_pem = key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return ca.public_bytes(pem), leaf.public_bytes(pem), key_pem


@pytest.mark.parametrize("cert_name", ["api.example.test", "other.example.test"])
def test_https_sends_the_name_and_verifies_the_certificate_for_it(cert_name, tmp_path, monkeypatch):
    ca_pem, cert_pem, key_pem = _certificates(cert_name)
    (tmp_path / "cert.pem").write_bytes(cert_pem + key_pem)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(tmp_path / "cert.pem")
    names: list[str | None] = []
    tls.sni_callback = lambda sock, name, ctx: names.append(name)  # type: ignore[assignment,return-value]
    trust = ssl.create_default_context(cadata=ca_pem.decode())
    monkeypatch.setattr(http_mod, "_tls_verify", lambda: trust)
    monkeypatch.setattr(socket, "getaddrinfo", FakeDns(api_example_test=["127.0.0.1"]))
    with LocalServer(tls) as server:
        url = f"https://api.example.test:{server.port}/json"
        if cert_name == "api.example.test":
            got = http_get(url, context=ctx(cfg("api.example.test")))
            assert got["body"]["headers"]["Host"] == f"api.example.test:{server.port}"
        else:
            message = refused(
                "connection_failed", http_get, url, context=ctx(cfg("api.example.test"))
            )
            assert "certificate" in message.lower()
            assert server.seen == []
    assert names
    assert set(names) == {"api.example.test"}


# --- through a registry ---------------------------------------------------------------------

MANIFEST = """\
version: 1
tools:
  - name: http_get
    handler: tooldeck.handlers.http:http_get
    description: Fetch a URL on a host the operator allowed.
    params:
      - {name: url, type: string}
      - name: headers
        required: false
        schema: {type: object, additionalProperties: {type: string}}
  - name: http_request
    handler: tooldeck.handlers.http:http_request
    description: Send an HTTP request to a host the operator allowed.
    side_effects: true
    params:
      - {name: method, type: string, enum: [GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS]}
      - {name: url, type: string}
      - name: headers
        required: false
        schema: {type: object, additionalProperties: {type: string}}
      - {name: body, type: [string, "null"], required: false}
"""


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


def registry(tmp_path: Path, config: dict[str, object], **options: object) -> ToolRegistry:
    (tmp_path / "http.yaml").write_text(MANIFEST, encoding="utf-8")
    reg = ToolRegistry(project_dir=tmp_path, config=config, **options)  # type: ignore[arg-type]
    _, result = load_manifests([tmp_path / "http.yaml"], registry=reg)
    assert result.diagnostics == []
    return reg


def test_the_tools_through_a_registry(server: LocalServer, tmp_path: Path):
    reg = registry(tmp_path, cfg("127.0.0.1"), allow_side_effects=True)
    url = f"http://127.0.0.1:{server.port}/json"
    got = reg.call("http_get", {"url": url, "headers": {"X-A": "1"}})
    assert got.ok, got.text
    assert got.value["body"]["headers"]["X-A"] == "1"
    posted = reg.call("http_request", {"method": "PUT", "url": url, "body": "hi"})
    assert posted.ok, posted.text
    assert (posted.value["body"]["method"], posted.value["body"]["body"]) == ("PUT", "hi")
    bad = reg.call("http_get", {"url": url, "headers": {"X-A": "1\r\nX-B: 2"}})
    assert bad.error is not None
    assert bad.error.kind == "invalid_arguments"


def test_http_request_has_side_effects(server: LocalServer, tmp_path: Path):
    reg = registry(tmp_path, cfg("127.0.0.1"))
    result = reg.call(
        "http_request", {"method": "POST", "url": f"http://127.0.0.1:{server.port}/json"}
    )
    assert result.error is not None
    assert result.error.kind == "denied"
    assert server.seen == []


def test_an_empty_config_refuses_through_the_registry(server: LocalServer, tmp_path: Path):
    reg = registry(tmp_path, {})
    result = reg.call("http_get", {"url": f"http://127.0.0.1:{server.port}/json"})
    assert result.error is not None
    assert result.error.kind == "not_enabled"
    assert "tooldeck.http.allow_hosts" in result.text
    assert server.seen == []
