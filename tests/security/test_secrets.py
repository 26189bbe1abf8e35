"""A value read through ``${env:...}`` never reaches any output, in any form.

Every check runs the ``tooldeck`` command with the secret in its environment
(``lint`` in every format, ``list``, ``export`` for every provider, ``call``
results and errors) in-process, through the ``run_line`` fixture; one test per
secret runs the real console script in a subprocess, for the way the value
crosses a process environment and the bytes a process writes. The TD304 table,
the reporter and :class:`tooldeck._secrets.Secrets` unit tests call the code
directly.

"Appears" is strict: besides the secret itself, its JSON-escaped forms (with
and without ``ensure_ascii``), its ``repr()`` forms, its whitespace folded onto
one line and its GitHub-escaped forms count, and so does any piece of 8 or
more characters of one of those, which is what a truncated quote
(``"abcdefgh...``) or a cut result leaves.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.conftest import SCRIPTS, RunLine
from tooldeck import ToolRegistry, load_manifests
from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation
from tooldeck._secrets import Secrets
from tooldeck.cli._reporters import (
    REPORTER_BY_NAME,
    escape_github_data,
    escape_github_property,
    get_reporter,
)
from tooldeck.manifest._interpolate import IDENTIFIER_FIELDS
from tooldeck.providers import PROVIDERS, export_tools

ENV = "TD_SECRET"
PIECE = 8
"""The shortest piece of a secret that must not be visible anywhere."""

SECRETS = {
    "quotes": "Qz7\"kW'pX9\"mB'tV4",
    "backslashes": "Bs\\Jm3\\\\Hq8\\nKd",
    "newlines": "Nl4Wq\nZx8Rp\r\nYt6",
    "unicode": "Üñï©ødé-Sëcrét-ẞ42",
    "github": "Gh%25:pct,cm%0A:Cl9",
    "long": ("L0ng\"Se'cr\\et,é%:" * 7)[:100],
}
"""Secrets with every character some output format escapes, and one 100 characters long."""


def quoted_forms(secret: str) -> set[str]:
    """``secret`` as a message can quote it: as is, JSON-escaped, inside ``repr()``, folded."""
    return {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        repr(secret + '"')[1:-2],
        repr(secret + "'")[1:-2],
        " ".join(secret.split()),
    }


def forms(secret: str) -> set[str]:
    """Every way an output format could write ``secret`` (quoted, or escaped for GitHub)."""
    return {*quoted_forms(secret), escape_github_data(secret), escape_github_property(secret)}


def pieces(secret: str) -> set[str]:
    """Every piece of ``PIECE`` characters of every form: any longer leak contains one."""
    return {form[i : i + PIECE] for form in forms(secret) for i in range(len(form) - PIECE + 1)}


def assert_hidden(secret: str, *outputs: str) -> None:
    leaked = sorted({p for p in pieces(secret) for out in outputs if p in out})
    assert not leaked, f"secret pieces in the output: {leaked}\n---\n" + "\n---\n".join(outputs)


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return f"{self.stdout}\n{self.stderr}"


def tooldeck(*args: str, cwd: Path, secret: str) -> Run:
    """Run the console script in a subprocess with the secret in its environment.

    Output is decoded by hand: text mode would turn ``\\r\\n`` into ``\\n`` and
    hide a leaked secret that contains one.
    """
    done = subprocess.run(
        [str(SCRIPTS / "tooldeck"), *args],
        cwd=cwd,
        capture_output=True,
        env={**os.environ, ENV: secret},
        timeout=60,
        check=False,
    )
    return Run(done.returncode, _decode(done.stdout), _decode(done.stderr))


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="backslashreplace")


@pytest.fixture(params=sorted(SECRETS), ids=sorted(SECRETS))
def secret(request: pytest.FixtureRequest) -> str:
    return SECRETS[request.param]


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- fixtures
HANDLERS = '''
def echo(text: str) -> str:
    """Return the text as is."""
    return text


def fail(token: str) -> str:
    """Always fail, quoting the argument."""
    raise ValueError(f"upstream refused the token {token!r}")


def copy(source: str, target: str) -> str:
    """Pretend to copy."""
    return target
'''

GOOD = """\
version: 1
bundle: secrets
description: "Bundle for ${env:TD_SECRET}"
tools:
  - name: echo
    handler: sec_tools:echo
    description: "Echo text back; the upstream token is ${env:TD_SECRET}."
    params:
      - {name: text, default: "${env:TD_SECRET}", description: "Text, else ${env:TD_SECRET}"}
  - name: pick
    handler: sec_tools:echo
    description: Pick one of the modes the upstream allows.
    params:
      - {name: text, enum: [plain, "${env:TD_SECRET}"], description: "A mode to pick"}
  - name: level
    handler: sec_tools:echo
    description: An enum of mixed types, which Gemini moves into the description.
    params:
      - {name: text, type: any, enum: [1, "${env:TD_SECRET}"], description: "A level"}
  - name: copy
    handler: sec_tools:copy
    description: Copy a file to a target derived from the source path.
    params:
      - {name: source, description: "Source file path in the project"}
      - name: target
        default: "${source}-${env:TD_SECRET}"
        pattern: "^[a-z]+$"
        description: "Target path of the copy"
  - name: need
    handler: sec_tools:echo
    description: A tool whose required argument is described with the secret.
    params:
      - {name: text, description: "Required; the upstream token is ${env:TD_SECRET}"}
  - name: fail
    handler: sec_tools:fail
    description: Always fails with an error that quotes its token argument.
    params:
      - {name: token, default: "${env:TD_SECRET}", description: "Token for the upstream"}
  - name: cut
    handler: sec_tools:echo
    description: Echo text back, cut to a short window in the middle of the secret.
    result: {max_chars: 30}
    params:
      - {name: text, default: "0123456789012345678901${env:TD_SECRET}", description: "Text"}
mcp_servers:
  - name: upstream
    url: https://mcp.example.org/mcp
    authorization: "Bearer ${env:TD_SECRET}"
    headers: {X-Token: "${env:TD_SECRET}"}
    description: "Upstream with ${env:TD_SECRET}"
"""

BROKEN = {
    "timeout.yaml": """\
        version: 1
        defaults: {timeout: "${env:TD_SECRET}"}
        """,
    "version.yaml": 'version: "${env:TD_SECRET}"\n',
    "default.yaml": """\
        version: 1
        tools:
          - name: lines
            handler: tooldeck.handlers.files:read_file
            description: Read part of a text file in the project as plain lines.
            params:
              - {name: path, description: "File path relative to the project"}
              - {name: max_lines, type: integer, default: "${env:TD_SECRET}", description: "n"}
        """,
    "enabled.yaml": """\
        version: 1
        enabled_when: "config.x == '${env:TD_SECRET}' ["
        """,
    "select.yaml": """\
        version: 1
        tools:
          - name: shaped
            handler: tooldeck.handlers.files:file_info
            description: Describe a file of the project with its size and time.
            result: {select: "[${env:TD_SECRET}"}
        """,
    "tags.yaml": """\
        version: 1
        defaults: {tags: ["${env:TD_SECRET}", "${env:TD_SECRET}"]}
        """,
    "url.yaml": """\
        version: 1
        mcp_servers:
          - {name: remote, url: "${env:TD_SECRET}"}
        """,
    "name.yaml": """\
        version: 1
        tools:
          - name: "tool_${env:TD_SECRET}"
            handler: tooldeck.handlers.files:read_file
            description: Read part of a text file in the project as plain lines.
        """,
    "short.yaml": """\
        version: 1
        tools:
          - name: short
            handler: tooldeck.handlers.files:file_info
            description: "${env:TD_SECRET}"
            params:
              - {name: path, description: "${env:TD_SECRET}"}
        """,
}
"""One file per kind of message that quotes a value: schema checks, build errors, lint rules."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "sec_tools.py").write_text(HANDLERS, encoding="utf-8")
    write(tmp_path / "good", "tools.yaml", GOOD)
    for name, text in BROKEN.items():
        write(tmp_path / "broken", name, text)
    return tmp_path


Cli = Callable[..., Run]


@pytest.fixture
def cli(run_line: RunLine, project: Path) -> Cli:
    """``cli(secret, *args)``: ``tooldeck`` in-process in the project, the secret in its env.

    The output is kept exactly as written (a ``\\r\\n`` stays one), as :func:`tooldeck`
    decodes a process's bytes by hand.
    """

    def run(secret: str, *args: str) -> Run:
        done = run_line(*args, "--allow-handlers", "sec_tools", cwd=project, env={ENV: secret})
        return Run(done.exit_code, done.stdout, done.stderr)

    return run


# ------------------------------------------------------------------------------ lint
@pytest.mark.parametrize("fmt", sorted(REPORTER_BY_NAME))
def test_lint_never_shows_the_secret(cli: Cli, secret: str, fmt: str) -> None:
    run = cli(secret, "lint", "--format", fmt, "broken", "good")
    assert run.code == 1
    for expected in ("TD108", "TD109", "TD213", "TD215", "TD304"):
        assert expected in run.stdout
    assert "***" in run.stdout
    assert_hidden(secret, run.output)


@pytest.mark.parametrize("fmt", sorted(REPORTER_BY_NAME))
def test_lint_rules_quoting_free_text_are_redacted_by_the_reporter(
    project: Path, fmt: str, monkeypatch: pytest.MonkeyPatch, run_line: RunLine
) -> None:
    """No rule quotes a description yet; the reporter must mask one that does."""
    from tooldeck._lint import runner as lint

    def quoting(ctx: lint.LintContext) -> Iterator[Diagnostic]:
        for bundle, spec, path, _ in ctx.tools():
            yield ctx.at(bundle, path, "TD401", f"description {spec.description!r}", spec.name)

    rule = lint.Rule("TD401", "quoting", Severity.WARNING, quoting, "")
    monkeypatch.setattr(lint, "RULES", [rule])
    captured = run_line(
        "lint",
        "--format",
        fmt,
        "--allow-handlers",
        "sec_tools",
        "good",
        cwd=project,
        env={ENV: SECRETS["long"]},
    )
    assert "***" in captured.stdout
    assert_hidden(SECRETS["long"], captured.stdout + captured.stderr)


def test_lint_json_stays_valid_json(cli: Cli, secret: str) -> None:
    run = cli(secret, "lint", "--format", "json", "broken")
    document = json.loads(run.stdout)
    assert any("***" in d["message"] for d in document["diagnostics"])


# ------------------------------------------------------------------------ list, export
@pytest.mark.parametrize("flags", [(), ("--json",)], ids=["text", "json"])
def test_list_never_shows_the_secret(cli: Cli, secret: str, flags: tuple[str, ...]) -> None:
    run = cli(secret, "list", "-m", "good", *flags)
    assert run.code == 0, run.output
    assert "***" in run.stdout
    assert_hidden(secret, run.output)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_export_never_shows_the_secret(cli: Cli, secret: str, provider: str) -> None:
    run = cli(secret, "export", "--provider", provider, "-m", "good")
    assert run.code == 0, run.output
    assert "***" in run.stdout
    assert_hidden(secret, run.output)


# ------------------------------------------------------------------------------ call
CALLS = {
    "success": ("echo", "{}", 0),
    "cut result": ("cut", "{}", 0),
    "enum error": ("pick", '{"text": "nope"}', 1),
    "default became invalid": ("copy", '{"source": "abc"}', 1),
    "missing argument hint": ("need", "{}", 1),
    "handler error": ("fail", "{}", 1),
}


@pytest.mark.parametrize(("tool", "arguments", "exit_code"), CALLS.values(), ids=list(CALLS))
def test_call_never_shows_the_secret(
    cli: Cli, secret: str, tool: str, arguments: str, exit_code: int
) -> None:
    run = cli(secret, "call", tool, "--args", arguments, "-m", "good")
    assert run.code == exit_code, run.output
    assert "***" in run.output
    assert_hidden(secret, run.output)


def test_a_real_process_never_shows_the_secret(project: Path, secret: str) -> None:
    """The secret through a real process environment; the bytes it writes, decoded by hand."""
    allow = ("--allow-handlers", "sec_tools")
    linted = tooldeck("lint", "broken", "good", *allow, cwd=project, secret=secret)
    assert linted.code == 1, linted.output
    assert "***" in linted.stdout
    assert_hidden(secret, linted.output)
    failed = tooldeck(
        "call", "fail", "--args", "{}", "-m", "good", *allow, cwd=project, secret=secret
    )
    assert failed.code == 1, failed.output
    assert "***" in failed.stderr
    assert_hidden(secret, failed.output)


# ----------------------------------------------------------------------------- TD304
TOOL = "tools:\n  - handler: tooldeck.handlers.files:read_file\n"
PARAM = TOOL + "    params:\n      - "
SERVER = "mcp_servers:\n  - {name: m, url: 'https://a.example/mcp', "
REF = "${env:TD_SECRET}"

IDENTIFIERS = {
    "bundle": f"bundle: '{REF}'\n",
    "supported_for": f"supported_for: ['a.b:{REF}']\n",
    "tool name": f"tools:\n  - name: '{REF}'\n    handler: tooldeck.handlers.files:read_file\n",
    "tool handler": f"tools:\n  - handler: 'tooldeck.handlers.files:{REF}'\n",
    "param name": PARAM + f"{{name: 'p{REF}'}}\n",
    "param type": PARAM + f"{{name: path, type: '{REF}'}}\n",
    "param type list": PARAM + f"{{name: path, type: [string, '{REF}']}}\n",
    "param format": PARAM + f"{{name: path, format: '{REF}'}}\n",
    "param inject": PARAM + f"{{name: path, inject: '{REF}'}}\n",
    "items type": PARAM + f"{{name: path, type: array, items: '{REF}'}}\n",
    "items element type": PARAM + f"{{name: path, type: array, items: {{type: '{REF}'}}}}\n",
    "nested field name": PARAM + f"{{name: o, type: object, properties: [{{name: '{REF}'}}]}}\n",
    "raw schema type": PARAM + f"{{name: o, schema: {{type: '{REF}'}}}}\n",
    "raw schema $ref": PARAM + f"{{name: o, schema: {{$ref: '#/$defs/{REF}'}}}}\n",
    "result format": TOOL + f"    result: {{format: '{REF}'}}\n",
    "retry on": f"defaults:\n  retry: {{on: ['{REF}']}}\n",
    "prompt name": f"prompts:\n  - {{name: '{REF}', template: hi}}\n",
    "prompt handler": f"prompts:\n  - {{name: p, handler: 'tooldeck.handlers.files:{REF}'}}\n",
    "prompt role": f"prompts:\n  - {{name: p, template: hi, role: '{REF}'}}\n",
    "prompt param name": f"prompts:\n  - {{name: p, template: hi, params: [{{name: '{REF}'}}]}}\n",
    "resource name": f"resources:\n  - {{name: '{REF}', uri: 'docs://a', file: a.md}}\n",
    "resource uri": f"resources:\n  - {{name: r, uri: 'docs://{REF}', file: a.md}}\n",
    "resource template": f"resources:\n  - {{name: r, uri_template: 'docs://{REF}/{{p}}', "
    "handler: tooldeck.handlers.files:read_file}\n",
    "resource file": f"resources:\n  - {{name: r, uri: 'docs://a', file: '{REF}.md'}}\n",
    "resource mime type": f"resources:\n  - {{name: r, uri: 'docs://a', file: a.md, "
    f"mime_type: 'text/{REF}'}}\n",
    "resource handler": f"resources:\n  - {{name: r, uri: 'docs://a', "
    f"handler: 'tooldeck.handlers.files:{REF}'}}\n",
    "resource param name": f"resources:\n  - {{name: r, uri_template: 'docs://{{p}}', "
    f"handler: tooldeck.handlers.files:read_file, params: [{{name: '{REF}'}}]}}\n",
    "web search type": f"web_search: {{type: '{REF}'}}\n",
    "mcp server name": f"mcp_servers:\n  - {{name: '{REF}', url: 'https://a.example/mcp'}}\n",
    "mcp via": SERVER + f"via: '{REF}'}}\n",
    "mcp prefix": SERVER + f"prefix: '{REF}'}}\n",
    "mcp allowed tools": SERVER + f"allowed_tools: ['{REF}']}}\n",
}
"""Field -> manifest body after ``version: 1``, with one ``${env:...}`` in that field."""


def quoted_reference(text: str) -> tuple[int, int]:
    """Line and column of the quoted YAML scalar that holds the ``${env:`` reference."""
    for number, line in enumerate(text.splitlines(), start=1):
        at = line.find("${env:")
        if at != -1:
            return number, line.rfind("'", 0, at) + 1
    raise AssertionError("no reference")


@pytest.mark.parametrize("body", IDENTIFIERS.values(), ids=list(IDENTIFIERS))
def test_env_in_an_identifier_is_td304_and_blocks_the_file(tmp_path: Path, body: str) -> None:
    text = "version: 1\n" + body
    path = write(tmp_path, "m.yaml", text)
    secret = SECRETS["long"]
    registry, result = load_manifests([path], environ={ENV: secret})
    found = [d for d in result.diagnostics if d.code == "TD304"]
    assert [(d.location.line, d.location.column) for d in found if d.location] == [
        quoted_reference(text)
    ]
    assert ENV in found[0].message
    assert result.registered == []
    assert len(registry) == 0
    assert not registry.prompts()
    assert not registry.mcp_servers()
    assert registry.web_search() is None
    text = "\n".join(d.format() for d in result.diagnostics)
    assert_hidden(secret, text)


def test_td304_also_when_the_variable_is_unset_or_has_a_default(tmp_path: Path) -> None:
    """The outcome must not depend on the environment: CI lints without the secret."""
    body = "tools:\n  - {name: '${env:TD_SECRET:-x}', handler: tooldeck.handlers.files:read_file}\n"
    path = write(tmp_path, "m.yaml", "version: 1\n" + body)
    for environ in ({}, {ENV: "value-of-the-secret"}):
        _, result = load_manifests([path], environ=environ)
        assert [d.code for d in result.diagnostics if d.code.startswith("TD30")] == ["TD304"]
        assert result.registered == []


def test_config_references_stay_allowed_in_identifiers(tmp_path: Path) -> None:
    body = "tools:\n  - {name: '${config:tool}', handler: tooldeck.handlers.files:read_file}\n"
    path = write(tmp_path, "m.yaml", "version: 1\n" + body)
    registry, result = load_manifests([path], config={"tool": "read_it"}, environ={})
    assert result.diagnostics == []
    assert "read_it" in registry


def test_every_identifier_field_has_a_case_here(tmp_path: Path) -> None:
    """A new entry in IDENTIFIER_FIELDS needs a case in IDENTIFIERS above."""
    named: set[str] = set()
    for index, body in enumerate(IDENTIFIERS.values()):
        path = write(tmp_path, f"m{index}.yaml", "version: 1\n" + body)
        _, result = load_manifests([path], environ={})
        for diagnostic in result.diagnostics:
            if diagnostic.code == "TD304":
                named.add(diagnostic.message.split(" in ", 1)[1].split(":", 1)[0])
    assert named == {what for _, what in IDENTIFIER_FIELDS}


def test_td304_through_the_cli(cli: Cli, secret: str) -> None:
    run = cli(secret, "lint", "--format", "github", "broken/name.yaml")
    assert run.code == 1
    assert "line=3,col=11,title=TD304::${env:TD_SECRET} in a tool name" in run.stdout
    assert_hidden(secret, run.output)


# ------------------------------------------------------------------- reporters, unit
def _diagnostics(secret: str) -> list[Diagnostic]:
    where = SourceLocation(file="m.yaml", line=2, column=3, json_path="$.tools[0].name")
    return [
        Diagnostic(code="TD401", message=f"tool {secret!r} has no description", location=where),
        Diagnostic(code="TD402", message=json.dumps({"d": secret}), tool_name=secret),
        Diagnostic(code="TD403", message=f"cut: {json.dumps(secret)[:20]}..."),
    ]


@pytest.mark.parametrize("fmt", sorted(REPORTER_BY_NAME))
def test_reporters_redact_before_formatting(secret: str, fmt: str) -> None:
    secrets = Secrets()
    secrets.add(secret)
    output = get_reporter(fmt, secrets=secrets).render(_diagnostics(secret), files_checked=1)
    assert "***" in output
    assert_hidden(secret, output)


def test_a_reporter_without_secrets_prints_messages_as_they_are() -> None:
    output = get_reporter("text").render(_diagnostics("plain-words"), files_checked=1)
    assert "'plain-words'" in output


# --------------------------------------------------------------------- Secrets, unit
def redactor(*values: str) -> Secrets:
    secrets = Secrets()
    for value in values:
        secrets.add(value)
    return secrets


def quoted(secret: str) -> Iterator[str]:
    """Text that quotes ``secret`` the ways tooldeck's messages do."""
    yield f"value {secret} here"
    yield f"value {secret!r} here"
    yield f"value {[secret]!r} here"
    yield f"value {json.dumps(secret)} here"
    yield f"value {json.dumps({'k': secret}, ensure_ascii=False)} here"
    yield f'he said "{secret!r}"'
    yield " ".join(f"value {secret} folded onto one line".split())


def test_redact_catches_every_quoting(secret: str) -> None:
    secrets = redactor(secret)
    for text in quoted(secret):
        redacted = secrets.redact(text)
        assert "***" in redacted
        assert_hidden(secret, redacted)


@pytest.mark.parametrize("limit", [5, 9, 30, 57])
def test_redact_catches_a_secret_cut_before_a_marker(secret: str, limit: int) -> None:
    secrets = redactor(secret)
    for form in quoted_forms(secret):
        for marker in ("...", "…", "\n[... truncated 40 characters; ask for less]"):
            text = f'"{form}'[:limit] + marker
            redacted = secrets.redact(text)
            visible = min(limit - 1, len(form))
            if visible >= 4:
                assert redacted == '"***' + marker, (form, text)
            assert_hidden(secret, redacted)


def test_short_values_and_short_cuts_are_left_alone() -> None:
    secrets = redactor("abc", "abcdefgh")
    assert "abc" not in secrets
    assert secrets.redact("abc abc...") == "abc abc..."
    assert secrets.redact("x abcd...") == "x ***..."
    assert secrets.redact("x abcdefgh y") == "x *** y"
    assert secrets.redact("no marker: abcdefg") == "no marker: abcdefg"


def test_a_secret_inside_another_is_replaced_whole() -> None:
    secrets = redactor("token", "token-with-more")
    assert secrets.redact("a token-with-more b token c") == "a *** b *** c"


def test_redact_data_walks_lists_tuples_and_dict_values() -> None:
    secrets = redactor("s3cr3t-value")
    data = {"s3cr3t-value": ["x s3cr3t-value", ("s3cr3t-value",), 3, None]}
    assert secrets.redact_data(data) == {"s3cr3t-value": ["x ***", ["***"], 3, None]}


def test_redact_diagnostic_keeps_clean_ones_identical() -> None:
    secrets = redactor("s3cr3t-value")
    clean = Diagnostic(code="TD100", message="nothing here")
    assert secrets.redact_diagnostic(clean) is clean
    dirty = Diagnostic(code="TD100", message="x s3cr3t-value", tool_name="s3cr3t-value")
    redacted = secrets.redact_diagnostic(dirty)
    assert (redacted.message, redacted.tool_name) == ("x ***", "***")


def test_export_errors_and_warnings_are_redacted(secret: str) -> None:
    """A schema that cannot be exported is a ValueError quoting it, one that cannot be strict
    a warning quoting it: both redacted like the output."""
    registry = ToolRegistry()
    registry.secrets.add(secret)
    schema = {"type": "object", "properties": {"x": {"$ref": f"urn:{secret}"}}}
    registry.add_external_tool("ext", "An external tool.", schema, lambda arguments: "")
    with pytest.raises(ValueError, match="only local") as raised:
        export_tools(registry, "gemini", redact=registry.secrets.redact)
    assert "***" in str(raised.value)
    assert_hidden(secret, str(raised.value))
    warnings: list = []
    export_tools(
        registry, "openai-chat", strict=True, redact=registry.secrets.redact, warnings=warnings
    )
    (warning,) = warnings
    assert "only local" in warning.message
    assert "***" in str(warning)
    assert_hidden(secret, str(warning))


# ------------------------------------------------- spans, prompts, raised errors
SPAN_SECRET = "span-secret-value-0042"


def test_traced_arguments_and_results_are_masked_on_spans():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    registry = ToolRegistry(trace_arguments=True, tracer_provider=provider)
    registry.secrets.add(SPAN_SECRET)
    registry.add_tool("echo", "Echo.", lambda text: f"you said {text}")
    assert registry.call("echo", json.dumps({"text": SPAN_SECRET})).ok
    registry.call("echo", {"text": SPAN_SECRET * 300})  # cut at 4096 after masking
    provider.shutdown()
    recorded = json.dumps([dict(span.attributes) for span in exporter.get_finished_spans()])
    assert exporter.get_finished_spans()
    assert SPAN_SECRET[:8] not in recorded


def test_rendered_prompts_and_their_errors_are_masked():
    from tooldeck import ToolCallError

    registry = ToolRegistry()
    registry.secrets.add(SPAN_SECRET)
    from tooldeck import Param

    registry.add_prompt("greet", "Greet.", "Hello {name}, token " + SPAN_SECRET, Param("name"))
    assert SPAN_SECRET not in registry.render_prompt("greet", {"name": "Ada"}).text
    with pytest.raises(ToolCallError) as caught:
        registry.render_prompt("greet", {"name": 3, "extra": SPAN_SECRET})
    assert SPAN_SECRET not in str(caught.value)


def test_raised_tool_errors_do_not_chain_an_exception_holding_a_secret():
    from tooldeck import ToolCallError

    def leak() -> str:
        raise RuntimeError(f"auth failed with {SPAN_SECRET}")

    registry = ToolRegistry(raise_errors=True)
    registry.secrets.add(SPAN_SECRET)
    registry.add_tool(None, None, leak)
    with pytest.raises(ToolCallError) as caught:
        registry.call("leak")
    assert SPAN_SECRET not in str(caught.value)
    assert caught.value.__cause__ is None
