"""``tooldeck import`` through its own argparse parser and ``run(args)``.

The command is not wired into ``tooldeck``'s parser yet, so these tests build a
parser the way the CLI will (``add_parser`` on the top-level subparsers) and
call ``run``; what it writes is then checked with the real ``tooldeck lint``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooldeck.cli import _import_cmd

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city, in the unit the user prefers.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, e.g. Prague"},
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "default": "celsius",
                    "description": "Temperature unit",
                },
            },
            "required": ["city"],
        },
    },
}
DOTTED = {
    "name": "weather.forecast",
    "description": "Forecast the weather for the next days in a city.",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string", "description": "The city, e.g. Prague"},
            "days": {"type": "integer", "description": "How many days ahead", "default": 3},
        },
        "required": ["city"],
    },
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="tooldeck")
    commands = top.add_subparsers(dest="command", required=True)
    _import_cmd.add_parser(commands)
    return top


@pytest.fixture
def tooldeck_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Any]:
    """``tooldeck_import(*argv, stdin=None)`` in tmp_path -> (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    modules = set(sys.modules)

    def run(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", _Stdin(stdin))
        code = _import_cmd.run(parser().parse_args(["import", *argv]))
        out = capsys.readouterr()
        return code, out.out, out.err

    yield run
    for name in set(sys.modules) - modules:  # modules imported from tmp_path
        if str(tmp_path) in (getattr(sys.modules[name], "__file__", None) or ""):
            del sys.modules[name]


class _Stdin:
    def __init__(self, text: str) -> None:
        self.buffer = _Bytes(text.encode("utf-8"))


class _Bytes:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        return self.data if size < 0 else self.data[:size]


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_without_a_handler_option_it_says_which_exist(tmp_path: Path, tooldeck_import: Any) -> None:
    write(tmp_path / "tools.json", [WEATHER])
    code, out, err = tooldeck_import("openai", "tools.json", "-o", "tools.yaml")
    assert code == 2
    assert out == ""
    assert "--handler MODULE:FUNCTION" in err
    assert "--handler-module MODULE" in err
    assert "--stubs FILE.py" in err
    assert not (tmp_path / "tools.yaml").exists()


def test_stubs_and_manifest_pass_tooldeck_lint(
    tmp_path: Path, tooldeck_import: Any, run_line: Any
) -> None:
    write(tmp_path / "tools.json", {"tools": [WEATHER, DOTTED]})
    code, out, err = tooldeck_import(
        "openai", "tools.json", "--stubs", "myapp/tools.py", "-o", "manifests/tools.yaml"
    )
    assert code == 0, err
    assert out == ""
    assert "imported 2 of 2 definitions into manifests/tools.yaml" in err
    assert "added myapp.tools to allow_handlers in pyproject.toml" in err
    assert "check it with: tooldeck lint manifests/tools.yaml\n" in err
    assert "1 note about renames" in err  # weather.forecast -> weather_forecast
    stubs = (tmp_path / "myapp" / "tools.py").read_text(encoding="utf-8")
    assert "def weather_forecast(*, city: str, days: int = 3) -> Any:" in stubs
    manifest = yaml.safe_load((tmp_path / "manifests" / "tools.yaml").read_text(encoding="utf-8"))
    assert [t["handler"] for t in manifest["tools"]] == [
        "myapp.tools:get_weather",
        "myapp.tools:weather_forecast",
    ]
    done = run_line("lint", cwd=tmp_path)  # the import allowed myapp.tools in the settings
    assert done.exit_code == 0, done.output
    assert "0 errors" in done.stdout  # a warning: 'weather.forecast' is renamed for providers


def test_standard_output_is_the_default(tmp_path: Path, tooldeck_import: Any) -> None:
    write(tmp_path / "tools.json", [WEATHER])
    code, out, err = tooldeck_import("openai", "tools.json", "--handler", "myapp.tools:dispatch")
    assert code == 0
    data = yaml.safe_load(out)
    assert data["version"] == 1
    assert data["tools"][0]["handler"] == "myapp.tools:dispatch"
    assert "into standard output" in err


def test_standard_input_with_a_dash(tooldeck_import: Any) -> None:
    lines = json.dumps(WEATHER["function"]) + "\n" + json.dumps(DOTTED) + "\n"
    code, out, _ = tooldeck_import("openai", "-", "--handler-module", "myapp.tools", stdin=lines)
    assert code == 0
    assert "# Imported by `tooldeck import openai` from <stdin>: 2 tools." in out


def test_skipped_definitions_exit_1_and_the_rest_is_written(
    tmp_path: Path, tooldeck_import: Any
) -> None:
    broken = {
        "name": "broken",
        "parameters": {"type": "object", "properties": {"p": {"pattern": "(?=x)"}}},
    }
    write(tmp_path / "tools.json", [WEATHER, broken, {"type": "web_search"}])
    code, _, err = tooldeck_import(
        "openai", "tools.json", "--handler-module", "myapp.tools", "-o", "out.yaml"
    )
    assert code == 1
    assert "tools.json: definition 2 (broken): TD504 " in err
    assert (
        "tools.json: definition 3: TD503 [warning] a 'web_search' tool is run by the provider"
        in err
    )
    assert "imported 1 of 3 definitions into out.yaml; 1 skipped (see above)" in err
    written = yaml.safe_load((tmp_path / "out.yaml").read_text(encoding="utf-8"))
    assert [t["name"] for t in written["tools"]] == ["get_weather"]


def test_unreadable_input_exits_2_with_its_position_and_writes_nothing(
    tmp_path: Path, tooldeck_import: Any
) -> None:
    (tmp_path / "bad.json").write_text('[\n  {"name": "a",}\n]', encoding="utf-8")
    code, out, err = tooldeck_import("openai", "bad.json", "--handler-module", "m", "-o", "o.yaml")
    assert code == 2
    assert out == ""
    assert err.startswith("bad.json:2:16: TD500 invalid JSON: Expecting property name")
    assert not (tmp_path / "o.yaml").exists()
    code, _, err = tooldeck_import("openai", "missing.json", "--handler-module", "m")
    assert code == 2
    assert "missing.json: TD500 cannot read the input" in err
    (tmp_path / "latin1.json").write_bytes(b'[{"name": "caf\xe9"}]')
    code, _, err = tooldeck_import("openai", "latin1.json", "--handler-module", "m")
    assert code == 2
    assert "not UTF-8 (byte 14)" in err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--handler", "myapp.tools"], "is not MODULE:FUNCTION"),
        (["--handler", "m:f", "--stubs", "s.py"], "use it without --handler-module and --stubs"),
        (["--stubs", "stubs.txt"], "must name a .py file"),
        (["--stubs", "_private/x.py"], "(name it with --handler-module)"),
        (["--handler-module", "my-app.tools"], "is not a module name handlers can live in"),
    ],
)
def test_bad_handler_options_are_usage_errors(
    tmp_path: Path, tooldeck_import: Any, options: list[str], message: str
) -> None:
    write(tmp_path / "tools.json", [WEATHER])
    code, out, err = tooldeck_import("openai", "tools.json", *options)
    assert (code, out) == (2, "")
    assert message in err


def test_existing_files_are_kept_unless_forced(tmp_path: Path, tooldeck_import: Any) -> None:
    write(tmp_path / "tools.json", [WEATHER])
    (tmp_path / "tools.yaml").write_text("mine\n", encoding="utf-8")
    (tmp_path / "stubs.py").write_text("# my handlers\n", encoding="utf-8")
    for options in (["-o", "tools.yaml"], ["-o", "new.yaml"]):
        code, _, err = tooldeck_import("openai", "tools.json", "--stubs", "stubs.py", *options)
        assert code == 2
        assert "exists; pass --force to overwrite it" in err
    assert (tmp_path / "tools.yaml").read_text(encoding="utf-8") == "mine\n"
    assert (tmp_path / "stubs.py").read_text(encoding="utf-8") == "# my handlers\n"
    code, _, _ = tooldeck_import(
        "openai", "tools.json", "--stubs", "stubs.py", "-o", "tools.yaml", "--force"
    )
    assert code == 0
    assert "def get_weather" in (tmp_path / "stubs.py").read_text(encoding="utf-8")
    assert list(tmp_path.glob(".*partial")) == []


def test_verbose_prints_the_notes(tmp_path: Path, tooldeck_import: Any) -> None:
    write(tmp_path / "tools.json", [DOTTED])
    _, _, err = tooldeck_import("openai", "tools.json", "--handler-module", "m", "-v")
    assert "definition 1 (weather.forecast): TD509 [info] the tool name is not a Python" in err
    assert "notes about renames" not in err


def test_python_module_from_the_current_directory(
    tmp_path: Path, tooldeck_import: Any, run_line: Any
) -> None:
    (tmp_path / "shop_tools.py").write_text(
        '"""Shop tools."""\n\n\n'
        "def find_product(query: str, limit: int = 10) -> list[str]:\n"
        '    """Find products whose name contains the query text.\n\n'
        "    Args:\n"
        "        query: Text to look for in product names.\n"
        "        limit: How many products to return at most.\n"
        '    """\n'
        "    return []\n",
        encoding="utf-8",
    )
    code, _, err = tooldeck_import("python", "shop_tools", "-o", "manifests/shop.yaml")
    assert code == 0, err
    assert "check it with: tooldeck lint manifests/shop.yaml\n" in err
    assert not any(type(f).__name__ == "ProjectFinder" for f in sys.meta_path)
    done = run_line("lint", "manifests/shop.yaml", cwd=tmp_path)
    assert done.exit_code == 0, done.output
    assert done.stdout == "no problems in 1 file\n"


def test_python_module_that_cannot_be_imported(tooldeck_import: Any) -> None:
    code, out, err = tooldeck_import("python", "no_such_module_anywhere")
    assert (code, out) == (2, "")
    assert "no_such_module_anywhere: TD510 cannot import no_such_module_anywhere" in err


def test_add_arguments_is_the_cli_command_protocol() -> None:
    """``add_arguments(parser)`` + ``run(args)``: what tooldeck's command table calls."""
    command = argparse.ArgumentParser(prog="tooldeck import")
    _import_cmd.add_arguments(command)
    args = command.parse_args(["openai", "x.json", "--handler-module", "m", "-o", "out.yaml"])
    assert (args.source, args.file, args.handler_module) == ("openai", "x.json", "m")
    assert str(args.output) == "out.yaml"
    assert callable(_import_cmd.run)
    assert _import_cmd.HELP


def test_a_manifest_too_large_to_load_is_written_with_a_warning(
    tmp_path: Path, tooldeck_import: Any
) -> None:
    huge = {**DOTTED, "name": "huge", "description": "word " * 500_000}
    write(tmp_path / "tools.json", [huge])
    code, _, err = tooldeck_import("openai", "tools.json", "--handler", "m:f", "-o", "big.yaml")
    assert code == 0
    assert "TD512 [warning] the manifest is 2," in err
    assert "per file (TD201); split the input" in err
    assert (tmp_path / "big.yaml").stat().st_size > 2 * 1024 * 1024


def test_the_import_guide_example_through_the_wired_cli(tmp_path, run_line):
    """`tooldeck import openai` as the import guide runs it, then `tooldeck lint` and `call`."""
    import json as _json
    import re

    from tests.acceptance.doc_pages import example, page

    section = page("guides/import.md")
    definitions = re.search(r"cat > tools.json <<'EOF'\n(.*?)\nEOF", section, re.S).group(1)
    (tmp_path / "tools.json").write_text(definitions, encoding="utf-8")
    done = run_line(
        "import",
        "openai",
        "tools.json",
        "--stubs",
        "myapp/tools.py",
        "-o",
        "manifests/tools.yaml",
        cwd=tmp_path,
    )
    assert done.exit_code == 0, done.output
    assert "TD503" in done.stderr  # the hosted web_search entry, reported not dropped
    # The stub the guide shows is the one the command wrote.
    stub = example("guides/import.md", "def get_weather")
    assert stub in (tmp_path / "myapp" / "tools.py").read_text(encoding="utf-8")
    lint = run_line("lint", "manifests/tools.yaml", "--allow-handlers", "myapp.tools", cwd=tmp_path)
    assert lint.exit_code == 0, lint.output
    exported = run_line(
        "export",
        "-m",
        "manifests/tools.yaml",
        "--allow-handlers",
        "myapp.tools",
        "--provider",
        "openai-chat",
        "--strict",
        "false",  # strict mode (auto by default) would make the optional unit nullable
        cwd=tmp_path,
    )
    original = _json.loads(definitions)[0]["function"]["parameters"]
    parameters = _json.loads(exported.stdout)[0]["function"]["parameters"]
    assert parameters["properties"]["unit"]["enum"] == original["properties"]["unit"]["enum"]
    assert parameters["required"] == original["required"]


def test_import_never_writes_through_a_planted_symlink(tmp_path, run_line):
    (tmp_path / "t.json").write_text(
        '[{"name": "f", "description": "F does things.", "parameters": {"type": "object",'
        ' "properties": {"a": {"type": "string"}}}}]',
        encoding="utf-8",
    )
    outside = tmp_path / "outside.yaml"
    (tmp_path / "out.yaml").symlink_to(outside)  # dangling
    done = run_line(
        "import", "openai", "t.json", "--handler-module", "m", "-o", "out.yaml", cwd=tmp_path
    )
    assert done.exit_code == 2
    assert "exists; pass --force" in done.stderr
    assert not outside.exists()
    forced = run_line(
        "import",
        "openai",
        "t.json",
        "--handler-module",
        "m",
        "-o",
        "out.yaml",
        "--force",
        cwd=tmp_path,
    )
    assert forced.exit_code == 0, forced.output
    assert not outside.exists()  # the link itself was replaced, never written through
    assert not (tmp_path / "out.yaml").is_symlink()
