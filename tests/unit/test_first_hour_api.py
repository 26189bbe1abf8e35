"""Small API corners a first hour runs into: unsupported types, str(Diagnostic), project_dir."""

from __future__ import annotations

import socket
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import pytest

from tooldeck import Diagnostic, RegistrationError, SourceLocation, ToolRegistry, load_manifests


class Blob:
    """A plain class: no JSON form."""


@dataclass
class Inner:
    blob: Blob


@dataclass
class Outer:
    inner: Inner


class Row(TypedDict):
    sock: socket.socket


def takes_bytes(data: bytes) -> str:
    return ""


def takes_nested(x: Outer) -> str:
    return ""


def takes_row(row: Row) -> str:
    return ""


@pytest.mark.parametrize(
    ("handler", "words"),
    [
        (takes_bytes, "parameter 'data': type builtins.bytes has no JSON form"),
        (takes_nested, "parameter 'x': field inner.blob: type "),
        (takes_row, "parameter 'row': field sock: type socket.socket"),
    ],
)
def test_an_unsupported_type_is_a_registration_error_naming_the_parameter(handler, words):
    with pytest.raises(RegistrationError) as raised:
        ToolRegistry().add_tool(None, None, handler)
    assert raised.value.code == "TD116"
    assert words in str(raised.value)
    assert "dataclass, TypedDict or pydantic model" in str(raised.value)


def test_supported_annotations_still_infer():
    @dataclass
    class Point:
        x: int
        y: int

    def plot(points: list[Point], where: Path, label: str | None = None) -> str:
        return ""

    registry = ToolRegistry()
    registry.add_tool(None, None, plot)
    assert set(registry.input_schema("plot")["properties"]) == {"points", "where", "label"}


def test_str_of_a_diagnostic_is_the_line_the_cli_prints():
    located = Diagnostic(
        code="TD201", message="too big", location=SourceLocation(file="m.yaml", line=3, column=5)
    )
    assert str(located) == "m.yaml:3:5: TD201 too big"
    assert str(Diagnostic(code="TD120", message="name")) == "TD120 name"


def test_load_manifests_takes_project_dir(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            version: 1
            tools:
              - name: read
                description: Read one file of the project, as text.
                handler: tooldeck.handlers.files:read_file
                params:
                  - {name: path, type: string, required: true, description: Which file}
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    registry, result = load_manifests([path], project_dir=tmp_path)
    assert result.ok, [str(d) for d in result.diagnostics]
    assert registry.project_dir == tmp_path.resolve()
    assert "hello" in registry.call("read", {"path": "notes.txt"}).text
    with pytest.raises(ValueError, match="differs from the registry"):
        load_manifests([path], registry=ToolRegistry(project_dir="/"), project_dir=tmp_path)
