"""Handler references cannot walk out of the allow-list.

A reference resolves only to a callable that an allowed module defines. Each
attack below was a working route before: the module part is allowed, and the
attribute path then steps into something the module merely imports. Every one
must be refused with TD315 (or TD312/TD311) at the handler's line, by lint, by
``tooldeck call`` and by every loading path, before anything runs.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tooldeck import ToolRegistry, load_manifests
from tooldeck.manifest._live import LiveManifests
from tooldeck.manifest._resolve import ResolveError, resolve_handler

PACKAGE = "tdsec_handlers"

TOOLS_PY = '''
"""Handlers for the resolution tests: legitimate forms and things merely imported."""
import collections
import functools
import os
import subprocess
import sys
from os import system
from pathlib import Path

from tdsec_handlers.helpers import helper

from outside_helpers import passthrough, wrap_elsewhere

LIMIT = 5
counter = collections.Counter()
open_file = open


def plain(text: str) -> str:
    """Echo the text back."""
    return text


async def coro(text: str) -> str:
    """Echo the text back, asynchronously."""
    return text


@functools.cache
def cached(text: str) -> str:
    """Echo the text back, cached."""
    return text


@wrap_elsewhere
def decorated(text: str) -> str:
    """Echo the text back, through a decorator defined outside the allow-list."""
    return text


class Greeter:
    """Methods of a class defined here are handlers."""

    def greet(self, text: str) -> str:
        return f"hello {text}"

    @staticmethod
    def static(text: str) -> str:
        return f"static {text}"

    @classmethod
    def klass(cls, text: str) -> str:
        return f"class {text}"

    def __call__(self, text: str) -> str:
        return f"called {text}"

    @property
    def shell(self):
        raise AssertionError("a property getter must never run during resolution")


greeter = Greeter()
echo_partial = functools.partial(plain)
system_partial = functools.partial(os.system)


class Shell(subprocess.Popen):
    """Subclass of an outside class: its inherited methods are defined outside."""


class Mapping(dict):
    """Subclass of a builtin: its inherited methods are C code."""


def __getattr__(name):
    raise AssertionError("module __getattr__ must never run during resolution")
'''

HELPERS_PY = '''
def helper(text: str) -> str:
    """A function defined in a sibling allowed module and re-exported."""
    return text
'''

OUTSIDE_PY = """
import functools


def passthrough(text: str) -> str:
    return text


def wrap_elsewhere(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("resolution")
    pkg = root / PACKAGE
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from tdsec_handlers.helpers import helper\n")
    (pkg / "tools.py").write_text(TOOLS_PY)
    (pkg / "helpers.py").write_text(HELPERS_PY)
    (root / "outside_helpers.py").write_text(OUTSIDE_PY)
    sys.path.insert(0, str(root))
    import subprocess

    sys.modules[f"{PACKAGE}.shell"] = subprocess  # an alias planted in sys.modules
    yield root
    sys.path.remove(str(root))
    for name in [n for n in sys.modules if n.startswith(PACKAGE) or n == "outside_helpers"]:
        del sys.modules[name]


ALLOWED = ("tooldeck.handlers", PACKAGE)

LEGITIMATE = [
    ("tools:plain", "x"),
    ("tools:coro", None),
    ("tools:cached", "x"),
    ("tools:decorated", "x"),
    ("tools:Greeter", None),
    ("tools:Greeter.static", "static x"),
    ("tools:Greeter.klass", "class x"),
    ("tools:greeter", "called x"),
    ("tools:greeter.greet", "hello x"),
    ("tools:greeter.static", "static x"),
    ("tools:helper", "x"),
    (":helper", "x"),
    ("tools:echo_partial", "x"),
]

ATTACKS = [
    "tools:os.system",
    "tools:system",
    "tools:subprocess.run",
    "tools:sys.modules",
    "tools:Path.cwd",
    "tools:Path.read_text",
    "tools:passthrough",
    "tools:open_file",
    "tools:counter.update",
    "tools:LIMIT.bit_length",
    "tools:Shell.communicate",
    "tools:Mapping.fromkeys",
    "tools:Mapping.get",
    "tools:system_partial",
    "tools:greeter.shell",
    "tools:Greeter.shell",
    "tools:functools.partial",
    "tools:collections.Counter",
    "shell:run",
    ":tools.os.system",
]

BUNDLED_ATTACKS = [
    "tooldeck.handlers.files:os.system",
    "tooldeck.handlers.files:os.popen",
    "tooldeck.handlers.files:os.open",
    "tooldeck.handlers.files:Path.cwd",
    "tooldeck.handlers.files:Path.read_text",
    "tooldeck.handlers.files:fnmatchcase",
    "tooldeck.handlers.files:datetime.now",
    "tooldeck.handlers.files:UTC.utcoffset",
    "tooldeck.handlers.files:BinaryIO",
    "tooldeck.handlers.files:SKIP_NAMES.copy",
    "tooldeck.handlers.files:MAX_WINDOW_CHARS.bit_length",
]

DUNDER_ATTACKS = [
    "tooldeck.handlers.files:__loader__.get_data",
    "tooldeck.handlers.files:__builtins__",
    "tooldeck.handlers.files:read_file.__globals__",
    "tooldeck.handlers.files:read_file.__call__",
    "tooldeck.handlers.files:__spec__.loader.get_data",
    "tooldeck.handlers.files:__import__",
    "tooldeck.handlers.files:_check_positive",
    "tooldeck.handlers._confined:Project",
    "tooldeck.handlers.files:_confined.Project",
]

MALFORMED = [
    "tooldeck.handlers.files:read_file:extra",
    "handlers..files:read_file",
    "tooldeck.handlers.files: read_file",
    "tooldeck.handlers.files:read_file.",
    "tooldeck.handlers.files:read-file",
    ".handlers.files:read_file",
    "tooldeck.handlers.files:" + "a." * 400 + "b",
    "tooldeck.handlers.files:read_file\n",
    "tooldeck.handlers.files\n:read_file",
]


def ref(short: str) -> str:
    module, _, attribute = short.partition(":")
    return f"{PACKAGE}{'.' + module if module else ''}:{attribute}"


@pytest.mark.parametrize(("reference", "expected"), LEGITIMATE)
def test_legitimate_forms_resolve_and_run(package: Path, reference: str, expected: str | None):
    handler = resolve_handler(ref(reference), ALLOWED)
    assert callable(handler)
    if expected is not None:
        assert handler("x") == expected


@pytest.mark.parametrize("reference", ATTACKS)
def test_steps_outside_the_module_are_refused(package: Path, reference: str):
    with pytest.raises(ResolveError) as caught:
        resolve_handler(ref(reference), ALLOWED)
    assert caught.value.code == "TD315", caught.value.message


@pytest.mark.parametrize("reference", BUNDLED_ATTACKS + DUNDER_ATTACKS)
def test_bundled_module_cannot_be_walked_out_of(reference: str):
    with pytest.raises(ResolveError) as caught:
        resolve_handler(reference, ("tooldeck.handlers",))
    assert caught.value.code == "TD315", caught.value.message


@pytest.mark.parametrize("reference", MALFORMED)
def test_malformed_references_are_refused_before_import(reference: str):
    with pytest.raises(ResolveError) as caught:
        resolve_handler(reference, ("tooldeck.handlers",))
    assert caught.value.code in {"TD311", "TD315"}


def test_module_getattr_never_runs(package: Path):
    with pytest.raises(ResolveError) as caught:
        resolve_handler(ref("tools:anything_at_all"), ALLOWED)
    assert caught.value.code == "TD312"


def test_a_prefix_is_a_whole_package_name():
    with pytest.raises(ResolveError) as caught:
        resolve_handler("handlers_evil:run", ("tooldeck.handlers",))
    assert caught.value.code == "TD310"
    with pytest.raises(ResolveError) as caught:
        resolve_handler("os:system", ("",))
    assert caught.value.code == "TD310"


# ------------------------------------------------------------- through the loading paths
def manifest(handler: str) -> str:
    return textwrap.dedent(
        f"""\
        version: 1
        tools:
          - name: pwn
            handler: "{handler}"
            description: Run the given text for the attack tests only.
        """
    )


@pytest.mark.parametrize("reference", ["tooldeck.handlers.files:os.system", *DUNDER_ATTACKS[:2]])
def test_load_reports_td315_at_the_handler_line(tmp_path: Path, reference: str):
    path = tmp_path / "evil.yaml"
    path.write_text(manifest(reference))
    registry, result = load_manifests([path])
    assert [(d.code, d.location.line, d.location.column) for d in result.errors] == [
        ("TD315", 4, 14)
    ]
    assert registry.get_tool("pwn") is None


def test_lint_reports_td315(tmp_path: Path, run_line):
    path = tmp_path / "evil.yaml"
    path.write_text(manifest("tooldeck.handlers.files:os.system"))
    done = run_line("lint", str(path))
    assert done.exit_code == 1
    assert f"{path}:4:14: TD315 " in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_call_refuses_and_runs_nothing(tmp_path: Path, run_line):
    path = tmp_path / "evil.yaml"
    path.write_text(manifest("tooldeck.handlers.files:os.system").replace("name: pwn", "name: sh"))
    marker = tmp_path / "pwned"
    done = run_line(
        "call", "-m", str(path), "sh", "--yes", "--args", f'{{"command": "touch {marker}"}}'
    )
    assert done.exit_code != 0
    assert "TD315" in done.stderr
    assert not marker.exists()


def test_an_edit_to_a_foreign_reference_keeps_the_last_good_version(tmp_path: Path):
    path = tmp_path / "tools.yaml"
    path.write_text(manifest("tooldeck.handlers.files:file_info"))
    registry = ToolRegistry()
    live = LiveManifests(registry, [path])
    live.load()
    good = registry.get_tool("pwn")
    assert good is not None
    path.write_text(manifest("tooldeck.handlers.files:os.system"))
    event = live.apply([path])
    assert [d.code for d in event.diagnostics] == ["TD315"]
    assert registry.get_tool("pwn") is good
    assert registry.reload_status.ok is False


def test_reloaded_handler_module_is_checked_again(tmp_path: Path, monkeypatch):
    pkg = tmp_path / "tdsec_reloaded"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    module = pkg / "mod.py"
    module.write_text("def run(text: str) -> str:\n    return text\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "tools.yaml"
    path.write_text(manifest("tdsec_reloaded.mod:run"))
    registry = ToolRegistry()
    live = LiveManifests(registry, [path], allow_handlers=["tdsec_reloaded"], reload_handlers=True)
    try:
        live.load()
        assert registry.call("pwn", {"text": "hi"}).text == "hi"
        module.write_text("from os import system as run\n")
        event = live.apply([module])
        assert [d.code for d in event.diagnostics] == ["TD315"]
        assert registry.call("pwn", {"text": "hi"}).text == "hi"  # still the old function
    finally:
        for name in [n for n in sys.modules if n.startswith("tdsec_reloaded")]:
            del sys.modules[name]


def test_a_trailing_newline_is_not_a_provider_safe_name():
    from tooldeck._names import is_provider_safe

    assert is_provider_safe("read_file")
    assert not is_provider_safe("read_file\n")
