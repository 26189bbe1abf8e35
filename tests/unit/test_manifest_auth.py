"""``auth: {scopes}`` and ``from_auth:`` in manifests on disk, and lint's TD415 about them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tooldeck import AuthIdentity, load_manifests
from tooldeck._lint import settings_from
from tooldeck._lint.runner import LintSettings, lint, load_settings

MODULE = __name__
WRITER = AuthIdentity(scopes={"orders:read", "orders:write"}, claims={"email": "a@x"})
READER = AuthIdentity(scopes={"orders:read"}, claims={"email": "a@x"})


def list_orders(email: str, status: str = "open") -> str:
    return f"{email}:{status}"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


ORDERS = f"""
    version: 1
    auth: {{scopes: ["orders:read"]}}
    tools:
      - name: my_orders
        handler: {MODULE}:list_orders
        description: The signed-in customer's orders, newest first.
        auth:
          scopes: ["orders:write", "orders:read"]
        params:
          - name: email
            description: The customer, from their token.
            from_auth: email
          - name: status
            description: Which orders to list.
            enum: [open, shipped]
            default: open
      - name: open_orders
        handler: {MODULE}:list_orders
        description: The open orders of a customer, newest first.
    """


def load(path: Path):  # type: ignore[no-untyped-def]
    return load_manifests([path], allow_handlers=["tests.unit"], environ={})


def test_scopes_merge_the_files_and_the_tools_and_from_auth_is_hidden(tmp_path: Path) -> None:
    registry, result = load(write(tmp_path, "orders.yaml", ORDERS))
    assert result.diagnostics == []
    assert registry.get_tool("my_orders").scopes == ("orders:read", "orders:write")  # type: ignore[union-attr]
    assert registry.get_tool("open_orders").scopes == ("orders:read",)  # type: ignore[union-attr]
    assert list(registry.input_schema("my_orders")["properties"]) == ["status"]
    assert registry.call("my_orders", {}, auth=WRITER).text == "a@x:open"
    refused = registry.call("my_orders", {}, auth=READER)
    assert refused.error is not None
    assert refused.error.kind == "not_permitted"
    assert "orders:write" in refused.text
    nobody = registry.call("my_orders", {})
    assert nobody.error is not None
    assert nobody.error.kind == "not_permitted"
    assert "email" in nobody.text


def diagnostics(tmp_path: Path, text: str) -> list[tuple[str, int, int, str]]:
    _, result = load(write(tmp_path, "m.yaml", text))
    return [(d.code, d.location.line, d.location.column, d.message) for d in result.diagnostics]


@pytest.mark.parametrize(
    ("scopes", "code", "column", "words"),
    [
        ('["orders write"]', "TD213", 21, 'does not have the expected form (e.g. "orders:write")'),
        ('[""]', "TD213", 21, "expected form"),
        ("[3]", "TD212", 21, "expected string, got integer 3"),
        ('"orders:write"', "TD212", 20, "expected array"),
        ('["a", "a"]', "TD213", 20, "listed more than once"),
    ],
)
def test_a_bad_scope_is_located(tmp_path: Path, scopes: str, code: str, column: int, words: str):
    text = f"""
        version: 1
        tools:
          - handler: tooldeck.handlers.files:read_file
            auth: {{scopes: {scopes}}}
        """
    [(found, line, col, message)] = diagnostics(tmp_path, text)
    assert (found, line, col) == (code, 4, column)
    assert words in message


def test_a_bad_file_scope_and_unknown_auth_key_are_located(tmp_path: Path) -> None:
    text = """
        version: 1
        auth: {scopes: ["a b"], roles: [admin]}
        tools:
          - handler: tooldeck.handlers.files:read_file
        """
    found = sorted(
        (code, line, message.split(";")[0])
        for code, line, _, message in diagnostics(tmp_path, text)
    )
    assert found == [
        ("TD210", 2, "unknown key 'roles'"),
        ("TD213", 2, '"a b" does not have the expected form (e.g. "orders:write")'),
    ]


def test_bad_from_auth_declarations_are_located(tmp_path: Path) -> None:
    spaced = f"""
        version: 1
        tools:
          - handler: {MODULE}:list_orders
            params:
              - {{name: email, from_auth: "e mail"}}
        """
    [(code, line, column, message)] = diagnostics(tmp_path, spaced)
    assert (code, line, column) == ("TD213", 5, 34)
    assert 'expected form (e.g. "email")' in message
    unaccepted = f"""
        version: 1
        tools:
          - handler: {MODULE}:list_orders
            params:
              - {{name: email, from_auth: email}}
              - {{name: owner, from_auth: subject}}
        """
    [(code, line, _, message)] = diagnostics(tmp_path, unaccepted)
    assert (code, line) == ("TD110", 6)
    assert "'owner' is not accepted by the handler" in message


def test_from_auth_on_a_use_argument_is_an_unknown_key(tmp_path: Path) -> None:
    text = """
        version: 1
        mcp_servers:
          - {name: time, command: [python, -m, time_server], via: client}
        tools:
          - use: time/get_current_time
            args:
              timezone: {from_auth: tz}
        """
    [(code, line, _, message)] = diagnostics(tmp_path, text)
    assert (code, line) == ("TD210", 7)
    assert "from_auth" in message
    assert "allowed: name, description, default, value" in message


def test_a_use_entry_carries_its_scopes(tmp_path: Path) -> None:
    text = """
        version: 1
        auth: {scopes: [clock]}
        mcp_servers:
          - {name: time, command: [python, -m, time_server], via: client}
        tools:
          - use: time/get_current_time
            auth: {scopes: [clock:read]}
        """
    _, result = load(write(tmp_path, "m.yaml", text))
    assert result.diagnostics == []
    [use] = next(iter(result.bundles.values())).uses
    assert use.template.scopes == ("clock", "clock:read")


# ------------------------------------------------------------------------------ TD415
def lint_codes(tmp_path: Path, settings: LintSettings) -> list[tuple[str, int]]:
    path = write(tmp_path, "orders.yaml", ORDERS)
    registry, result = load(path)
    return [
        (d.code, d.location.line) for d in lint(result, registry, settings) if d.code == "TD415"
    ]


def test_td415_warns_at_each_key_that_asks_for_an_identity(tmp_path: Path) -> None:
    assert lint_codes(tmp_path, LintSettings()) == [("TD415", 2), ("TD415", 7), ("TD415", 12)]
    path = tmp_path / "orders.yaml"
    registry, result = load(path)
    words = [d.message for d in lint(result, registry, LintSettings()) if d.code == "TD415"]
    assert "every caller may call" in words[1]
    assert "every call of the tool is refused" in words[2]
    assert all("[tool.tooldeck.serve] auth" in w for w in words)


def test_td415_warns_about_scopes_on_a_use_entry(tmp_path: Path) -> None:
    text = """
        version: 1
        mcp_servers:
          - {name: time, command: [python, -m, time_server], via: client}
        tools:
          - use: time/get_current_time
            auth: {scopes: [clock:read]}
          - use: time/convert_time
        """
    path = write(tmp_path, "uses.yaml", text)
    registry, result = load(path)
    found = [d for d in lint(result, registry, LintSettings()) if d.code == "TD415"]
    assert [(d.location.line, d.tool_name) for d in found] == [(6, "get_current_time")]
    assert "use: time/get_current_time" in found[0].message
    file_wide = write(tmp_path, "uses.yaml", "auth: {scopes: [clock]}\n" + textwrap.dedent(text))
    registry, result = load(file_wide)
    found = [d for d in lint(result, registry, LintSettings()) if d.code == "TD415"]
    assert [d.location.line for d in found] == [1, 8]
    assert lint_codes_of(result, registry, LintSettings(serve_auth="bearer")) == []


def lint_codes_of(result, registry, settings):  # type: ignore[no-untyped-def]
    return [d.code for d in lint(result, registry, settings) if d.code == "TD415"]


def test_td415_is_quiet_when_serving_with_authentication(tmp_path: Path) -> None:
    assert lint_codes(tmp_path, LintSettings(serve_auth="jwt")) == []


@pytest.mark.parametrize(
    ("serve", "mode"),
    [
        ("", "none"),
        ("[tool.tooldeck.serve]\n", "none"),
        ('[tool.tooldeck.serve]\nauth = "none"\n', "none"),
        ('[tool.tooldeck.serve]\nauth = "JWT"\n', "jwt"),
        ("[tool.tooldeck.serve.auth]\nissuer = 'https://id.example'\n", "on"),
        ("[tool.tooldeck.serve]\nauth = 3\n", "on"),
    ],
)
def test_the_serve_auth_setting_is_read_leniently(tmp_path: Path, serve: str, mode: str) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.tooldeck.lint]\ntoken_budget = 100\n{serve}", encoding="utf-8"
    )
    settings, problems = load_settings(tmp_path)
    assert problems == []
    assert (settings.serve_auth, settings.token_budget) == (mode, 100)
    read, _ = settings_from({}, tmp_path / "pyproject.toml")  # how the CLI reads it
    assert read.serve_auth == mode


def test_an_unreadable_settings_file_means_no_authentication(tmp_path: Path) -> None:
    settings, _ = settings_from({}, tmp_path / "missing.toml")
    assert settings.serve_auth == "none"
    yaml_settings = write(tmp_path, "tooldeck.yaml", "serve: {auth: jwt}\n")
    assert settings_from({}, yaml_settings)[0].serve_auth == "jwt"
