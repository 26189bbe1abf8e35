"""``tooldeck serve`` under the MCP Inspector CLI, a TypeScript client (opt-in).

The Inspector converts each ``--tool-arg key=value`` with our ``inputSchema``
(``integer``/``number`` -> Number, ``boolean`` -> true/false, ``object``/
``array`` -> JSON.parse) and its TypeScript SDK client checks every
``structuredContent`` against our ``outputSchema`` with ajv, formats asserted.
It needs Node and the npm registry, so it runs only when asked::

    npm install --prefix /tmp/inspector @modelcontextprotocol/inspector
    TOOLDECK_INSPECTOR=/tmp/inspector/node_modules/.bin/mcp-inspector \\
        .venv/bin/python -m pytest tests/integration/test_mcp_inspector.py

``TOOLDECK_INSPECTOR`` is the Inspector's entry: its ``mcp-inspector``
executable, or a ``.js`` entry file (run with ``node``). Checked with 0.15.0
(what npm picks on Node 20) and 2.12.0.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tooldeck.mcp._serving.approval import NO_ELICITATION, STATELESS

ENTRY = os.environ.get("TOOLDECK_INSPECTOR", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ENTRY, reason="set TOOLDECK_INSPECTOR to the MCP Inspector's CLI"),
]

TOOLDECK = Path(sys.executable).parent / "tooldeck"
MODULE = "inspector_handlers"
DEADLINE = 120.0

HANDLERS = '''
from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Optional, TypedDict

from pydantic import BaseModel


class Point(TypedDict):
    x: int
    y: int


@dataclasses.dataclass
class Shout:
    text: str
    times: int


class Owner(BaseModel):
    name: str


class Repo(BaseModel):
    owner: Owner
    stars: int = 0


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def shout(text: str, loud: bool = False, times: Optional[int] = None) -> Shout:
    """Repeat a text, upper-cased when loud."""
    return Shout(text.upper() if loud else text, times or 1)


def stats(values: list[float]) -> dict[str, float]:
    """Count and total a list of numbers."""
    return {"count": len(values), "total": sum(values)}


def move(point: Point, by: int = 1) -> Point:
    """Move a point diagonally."""
    return {"x": point["x"] + by, "y": point["y"] + by}


def evens(n: int) -> list[int]:
    """The even numbers below n."""
    return list(range(0, n, 2))


def repo(name: str) -> Repo:
    """A repository owned by name."""
    return Repo(owner=Owner(name=name), stars=3)


def stamp() -> dict[str, datetime]:
    """A naive datetime, as many handlers return them."""
    return {"at": datetime(2024, 5, 1, 12, 30, 0)}


def chart() -> list:
    """A caption and a 1x1 PNG."""
    from tooldeck import Image

    return ["A tiny chart:", Image(bytes.fromhex(PNG_HEX))]


def order(order_id: int) -> dict[str, int]:
    """One order as JSON."""
    return {"id": order_id}


PNG_HEX = (
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


def write_note(text: str) -> str:
    """Write note.txt."""
    with open("note.txt", "w", encoding="utf-8") as f:
        f.write(text)
    return "written"
'''

# `shout` is lenient: Inspector 0.15 converts only a single `type`, so it sends
# times=3 (type ["integer", "null"]) as the string "3"; 2.x converts it itself.
MANIFEST = f"""\
version: 1
bundle: inspect
tools:
  - handler: {MODULE}:add
  - handler: {MODULE}:shout
    lenient: true
  - handler: {MODULE}:stats
  - handler: {MODULE}:move
  - handler: {MODULE}:evens
  - handler: {MODULE}:repo
  - handler: {MODULE}:stamp
  - handler: {MODULE}:write_note
    side_effects: true
    effect: writes note.txt in the project directory
  - handler: {MODULE}:chart
resources:
  - {{uri: "docs://readme", name: readme, description: The README., file: README.md}}
  - uri_template: "orders://{{order_id}}"
    name: order
    description: One order as JSON.
    mime_type: application/json
    handler: {MODULE}:order
    params: [{{name: order_id, type: integer, description: The order id.}}]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / f"{MODULE}.py").write_text(HANDLERS, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "README.md").write_text("# Inspected\n", encoding="utf-8")
    return tmp_path


def serve(*extra: str) -> list[str]:
    return [str(TOOLDECK), "serve", "-m", "tools.yaml", "--allow-handlers", MODULE, *extra]


def inspector(project: Path, target: list[str], *args: str) -> tuple[int, Any]:
    """Run the Inspector CLI; its exit code and the first JSON value it printed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    entry = [node, ENTRY] if ENTRY.endswith(".js") else [ENTRY]
    done = subprocess.run(
        [*entry, "--cli", *target, *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
    )
    text = done.stdout.lstrip()
    assert text, f"no output (exit {done.returncode}): {done.stderr}"
    value, _ = json.JSONDecoder().raw_decode(text)
    return done.returncode, value


def call(project: Path, target: list[str], tool: str, **arguments: str) -> dict[str, Any]:
    args = [f"{key}={value}" for key, value in arguments.items()]
    pairs = [item for arg in args for item in ("--tool-arg", arg)]
    _, result = inspector(project, target, "--method", "tools/call", "--tool-name", tool, *pairs)
    assert isinstance(result, dict)
    assert "content" in result, result  # a tool result, not the CLI's own error
    return result


def text_of(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result["content"])


def has_format(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "format" in schema or any(has_format(v) for v in schema.values())
    if isinstance(schema, list):
        return any(has_format(v) for v in schema)
    return False


def check_calls(project: Path, target: list[str]) -> None:
    """Integer, boolean, array and object arguments; every kind of structured result."""
    added = call(project, target, "add", a="2", b="40")
    assert text_of(added) == "42"
    assert not added.get("isError")
    assert "structuredContent" not in added

    loud = call(project, target, "shout", text="hey", loud="true", times="3")
    assert loud["structuredContent"] == {"text": "HEY", "times": 3}
    quiet = call(project, target, "shout", text="hey", loud="false")
    assert quiet["structuredContent"] == {"text": "hey", "times": 1}

    stats = call(project, target, "stats", values="[1, 2, 3.5]")
    assert stats["structuredContent"] == {"count": 3, "total": 6.5}

    moved = call(project, target, "move", point='{"x": 1, "y": 2}', by="5")
    assert moved["structuredContent"] == {"x": 6, "y": 7}

    evens = call(project, target, "evens", n="7")
    assert evens["structuredContent"] == {"result": [0, 2, 4, 6]}

    repo = call(project, target, "repo", name="ada")  # outputSchema with $defs/$ref
    assert repo["structuredContent"] == {"owner": {"name": "ada"}, "stars": 3}

    stamp = call(project, target, "stamp")  # ajv-formats would refuse it as a date-time
    assert stamp["structuredContent"] == {"at": "2024-05-01T12:30:00"}

    invalid = call(project, target, "add", a="2")
    assert invalid["isError"] is True
    assert "b" in text_of(invalid)

    chart = call(project, target, "chart")
    assert [block["type"] for block in chart["content"]] == ["text", "image"]
    assert chart["content"][1]["mimeType"] == "image/png"


def check_resources(project: Path, target: list[str]) -> None:
    """Resources and templates listed, a file and a template instance read."""
    code, listed = inspector(project, target, "--method", "resources/list")
    assert code == 0
    assert [(r["uri"], r["name"], r.get("mimeType")) for r in listed["resources"]] == [
        ("docs://readme", "readme", "text/markdown")
    ]
    _, templates = inspector(project, target, "--method", "resources/templates/list")
    assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == ["orders://{order_id}"]
    _, readme = inspector(project, target, "--method", "resources/read", "--uri", "docs://readme")
    assert readme["contents"][0]["text"] == "# Inspected\n"
    _, order = inspector(project, target, "--method", "resources/read", "--uri", "orders://7")
    assert json.loads(order["contents"][0]["text"]) == {"id": 7}


def test_stdio_lists_our_schemas(project: Path):
    code, listed = inspector(project, serve(), "--method", "tools/list")
    assert code == 0
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert list(tools) == [
        "add",
        "shout",
        "stats",
        "move",
        "evens",
        "repo",
        "stamp",
        "write_note",
        "chart",
    ]
    assert tools["add"]["inputSchema"]["properties"]["a"] == {"type": "integer"}
    assert "outputSchema" not in tools["add"]
    assert "outputSchema" not in tools["write_note"]
    for name in ("shout", "stats", "move", "evens", "repo", "stamp"):
        schema = tools[name]["outputSchema"]
        assert schema["type"] == "object", name
        assert not has_format(schema), name
    assert tools["write_note"]["annotations"]["destructiveHint"] is True


def test_stdio_calls_with_converted_arguments(project: Path):
    check_calls(project, serve())


def test_stdio_resources(project: Path):
    check_resources(project, serve())


def test_stdio_side_effects_without_elicitation(project: Path):
    denied = call(project, serve(), "write_note", text="hi")
    assert denied["isError"] is True
    assert NO_ELICITATION in text_of(denied)
    assert not (project / "note.txt").exists()
    allowed = call(project, serve("--allow-side-effects"), "write_note", text="hi")
    assert text_of(allowed) == "written"
    assert (project / "note.txt").read_text(encoding="utf-8") == "hi"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_server(project: Path, *extra: str) -> Iterator[str]:
    port = free_port()
    argv = serve("--transport", "http", "--port", str(port), *extra)
    log = (project / "http.log").open("w")
    process = subprocess.Popen(argv, cwd=project, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, (project / "http.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "server never listened"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture
def http(project: Path) -> Iterator[str]:
    yield from http_server(project)


@pytest.fixture
def stateless(project: Path) -> Iterator[str]:
    yield from http_server(project, "--stateless")


def test_http_lists_and_calls(project: Path, http: str):
    code, listed = inspector(project, [http], "--method", "tools/list")
    assert code == 0
    assert len(listed["tools"]) == 9
    check_calls(project, [http])
    check_resources(project, [http])
    denied = call(project, [http], "write_note", text="hi")
    assert NO_ELICITATION in text_of(denied)


def test_http_stateless_calls_and_denies_side_effects(project: Path, stateless: str):
    check_calls(project, [stateless])
    denied = call(project, [stateless], "write_note", text="hi")
    assert denied["isError"] is True
    assert STATELESS in text_of(denied)
    assert not (project / "note.txt").exists()
