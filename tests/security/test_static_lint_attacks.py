"""Attacks on ``tooldeck lint --static`` found by red-teaming it, one regression test each.

Every test builds a pull-request-shaped project (its own ``pyproject.toml``
allow-listing its own modules) and runs the real CLI in it as a CI job does.
Modules that must never run write a marker file; ``_lint`` returns the
markers next to the command's result.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import SCRIPTS

MARK = (
    "__import__('pathlib').Path(__import__('os').environ['MARKER_DIR'], {name!r})"
    ".write_text('ran')\n"
)
GOOD = '''
def go(x: int) -> int:
    """Return the number it is given, unchanged."""
    return x
'''


def _project(tmp_path: Path, files: dict[str, str], handlers: list[str] = ()) -> Path:
    """A repository whose ``pyproject.toml`` allows its ``prmod``, ``prpkg`` and ``prhelp``.

    Parameters need no description (TD403 is off): the tests are about handlers.
    """
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (tmp_path / "markers").mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.tooldeck]\nallow_handlers = ["prmod", "prpkg", "prhelp"]\n'
        '[tool.tooldeck.lint.severity]\nTD403 = "off"\n'
    )
    tools = "".join(
        f"  - name: t{index}\n    handler: {handler}\n"
        "    description: A tool of the pull request, pointed at its own module.\n"
        for index, handler in enumerate(handlers)
    )
    (project / "manifests" / "tools.yaml").write_text(f"version: 1\ntools:\n{tools}")
    for name, text in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return project


def _lint(project: Path, *args: str, python_m: bool = False, cwd: Path | None = None):
    """``tooldeck lint --static --format github --strict`` in ``project``, as a CI job runs it.

    Returns the finished process and the markers that modules left. A real
    process, not the in-process runner: what a fresh interpreter imports
    lazily (and from where) is part of what is tested.
    """
    markers = project.parent / "markers"
    program = [sys.executable, "-m", "tooldeck"] if python_m else [str(SCRIPTS / "tooldeck")]
    done = subprocess.run(
        [*program, "lint", "--static", "--format", "github", "--strict", *args],
        cwd=cwd or project,
        env={**os.environ, "MARKER_DIR": str(markers), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done, sorted(os.listdir(markers))


# ---------------------------------------------------------------- code execution
FORMATS = """
version: 1
tools:
  - name: go
    handler: prmod:go
    description: A tool whose parameters have formats the checker knows.
    params:
      - {name: x, type: integer, description: The number to hand back unchanged.}
      - {name: mail, type: string, format: email, required: false, description: A mail address.}
      - name: link
        required: false
        description: A link, checked by a raw schema with a format.
        schema: {type: string, format: uri}
"""
OPTIONAL_IMPORTS = ("webcolors", "rfc3987", "fqdn", "jsonpointer", "uri_template", "isoduration")
"""Modules jsonschema imports if they exist: a pull request's files of these names must not."""


@pytest.mark.parametrize("python_m", [False, True], ids=["tooldeck", "python -m tooldeck"])
def test_files_named_like_optional_imports_do_not_run(tmp_path, python_m):
    """``copy`` tries ``org.python.core`` (Jython), jsonschema its format checkers' modules.

    The project's folder used to be on ``sys.meta_path`` as a last resort,
    so these failed optional imports of tooldeck's own dependencies found
    the pull request's files of those names and ran them.
    """
    files = {f"{name}.py": MARK.format(name=name) for name in OPTIONAL_IMPORTS}
    files["org/__init__.py"] = MARK.format(name="org")
    files["org/python/core.py"] = MARK.format(name="org.python.core")
    files["prmod.py"] = 'def go(x: int, mail: str = "", link: str = "") -> int:\n    return x\n'
    project = _project(tmp_path, files)
    (project / "manifests" / "tools.yaml").write_text(FORMATS)
    done, markers = _lint(project, python_m=python_m)
    assert markers == []
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_project_is_still_found_from_a_subfolder_and_by_flags(tmp_path):
    """What the import-system finder did for static lint, its own search still does."""
    project = _project(tmp_path, {"prmod.py": GOOD, "prpkg/__init__.py": "", "prpkg/x.py": GOOD})
    (project / "manifests" / "tools.yaml").write_text(
        "version: 1\ntools:\n"
        + "".join(
            f"  - name: t{i}\n    handler: {h}\n    description: A tool found in the project.\n"
            for i, h in enumerate(["prmod:go", "prpkg.x:go"])
        )
    )
    (project / "sub").mkdir()
    done, _ = _lint(project, "-m", str(project / "manifests"), cwd=project / "sub")
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------- source encodings
def test_a_module_in_punycode_is_refused_before_decoding_it(tmp_path):
    """Python's punycode decoder is quadratic: 300 KB took minutes, 4 MiB hours."""
    project = _project(tmp_path, {}, ["prmod:go"])
    (project / "prmod.py").write_bytes(b"# coding: punycode\n" + b"a" * 10 + b"-" + b"9" * 300_000)
    started = time.monotonic()
    done, _ = _lint(project)
    assert time.monotonic() - started < 20
    assert done.returncode == 1
    assert "title=TD311::" in done.stdout
    assert "is written in the encoding 'punycode'" in done.stdout


def test_a_codec_an_installed_package_registers_is_not_run(tmp_path, monkeypatch):
    """A ``.pth`` file can register a codec; ``# coding:`` would run it on the PR's text."""
    import codecs

    from tooldeck.manifest._static.source import ModuleIndex, StaticProblem

    ran = []

    def decode(data: bytes, errors: str = "strict") -> tuple[str, int]:
        ran.append(True)
        return bytes(data).decode("utf-8"), len(data)

    class Decoder(codecs.BufferedIncrementalDecoder):
        def _buffer_decode(self, data, errors, final):
            return decode(data, errors)

    def search(name: str) -> codecs.CodecInfo | None:
        if name != "redteam_codec":
            return None
        return codecs.CodecInfo(
            codecs.utf_8_encode, decode, name="redteam_codec", incrementaldecoder=Decoder
        )

    codecs.register(search)
    try:
        (tmp_path / "prcodec.py").write_bytes(b"# coding: redteam_codec\ndef go(): pass\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        with pytest.raises(StaticProblem) as caught:
            ModuleIndex().module("prcodec")
    finally:
        codecs.unregister(search)
    assert ran == []
    assert caught.value.code == "TD311"
    assert "is not the standard library's" in caught.value.message


def test_finding_distutils_imports_nothing(tmp_path):
    """setuptools' finder for ``distutils`` imports setuptools to answer where it is."""
    project = _project(
        tmp_path,
        {"prmod.py": "from distutils import core\ndef go(x: core.Thing) -> int:\n    return 1\n"},
        ["prmod:go"],
    )
    script = (
        "import sys\n"
        "from tooldeck.cli import main\n"
        "hooked = any(type(f).__module__ == '_distutils_hack' for f in sys.meta_path)\n"
        "code = main(['lint', '--static'])\n"
        "print(code, hooked, sorted(m for m in sys.modules if m.startswith('setuptools'))[:3])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    code, hooked, imported = done.stdout.splitlines()[-1].split(" ", 2)
    if hooked != "True":
        pytest.skip("setuptools' distutils finder is not installed here")
    assert (code, imported.strip()) == ("0", "[]"), done.stdout + done.stderr


# ------------------------------------------------------------ files outside the repository
SECRET_PY = 'API_TOKEN = "hunter2-very-secret!"\nOTHER = ghp_hunter2secret\n'


@pytest.mark.parametrize("link", ["module", "package folder", "module an annotation names"])
def test_a_module_linked_from_outside_the_repository_is_not_read(tmp_path, link):
    """Its text came back in diagnostics: TD317 quotes what an annotation's name is bound to."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.py").write_text(SECRET_PY)
    uses = "from prhelp import API_TOKEN, OTHER\ndef go(x: API_TOKEN, y: OTHER) -> int: ...\n"
    handler = {"module": "prmod:API_TOKE", "package folder": "prpkg.secret:API_TOKE"}
    project = _project(tmp_path, {"prmod.py": uses}, [handler.get(link, "prmod:go")])
    if link == "module":
        (project / "prmod.py").unlink()
        (project / "prmod.py").symlink_to(tmp_path / "outside" / "secret.py")
    elif link == "package folder":
        (project / "prpkg").symlink_to(tmp_path / "outside")
    else:
        (project / "prhelp.py").symlink_to(tmp_path / "outside" / "secret.py")
    done, _ = _lint(project)
    assert "hunter2" not in done.stdout + done.stderr
    assert "did you mean" not in done.stdout  # the names bound there are not suggested
    assert "is a link to" in done.stdout
    if link != "module an annotation names":
        assert done.returncode == 1
        assert done.stdout.startswith(
            "::error file=manifests/tools.yaml,line=4,col=14,title=TD311::"
        )


def test_a_link_that_stays_inside_the_repository_is_read(tmp_path):
    project = _project(tmp_path, {"real/prmod.py": GOOD}, ["prmod:go"])
    (project / "prmod.py").symlink_to(project / "real" / "prmod.py")
    done, _ = _lint(project)
    assert done.returncode == 0, done.stdout


def test_a_default_manifests_folder_linked_outside_is_not_read(run_line, tmp_path):
    """``./manifests`` as a link to a folder of YAML files on the CI machine."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "creds.yaml").write_text("aws_secret_access_key: hunter2-very-secret\n")
    project = tmp_path / "repo"
    project.mkdir()
    (project / "manifests").symlink_to(elsewhere)
    done = run_line("lint", "--static", cwd=project)
    assert done.exit_code == 2
    assert "manifests is a link to" in done.stderr
    assert "aws_secret_access_key" not in done.output
    assert "hunter2" not in done.output
    assert run_line("lint", "--static", "-m", "manifests", cwd=project).exit_code == 1  # asked


@pytest.mark.parametrize("name", ["pyproject.toml", "tooldeck.yaml"])
def test_a_settings_file_linked_outside_is_not_read(run_line, tmp_path, name):
    """Its keys came back in TD240 ("unknown setting(s) api_token"), some values in others."""
    secret = tmp_path / "secret"
    secret.write_text(
        '[tool.tooldeck]\napi_token = "hunter2"\n'
        if name == "pyproject.toml"
        else "api_token: hunter2\nlint: {min_description_length: hunter2}\n"
    )
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "manifests" / "tools.yaml").write_text("version: 1\n")
    (project / name).symlink_to(secret)
    done = run_line("lint", "--static", cwd=project)
    assert done.exit_code == 2
    assert f"TD240 {name} is a link to" in done.stderr
    assert "api_token" not in done.output
    assert "hunter2" not in done.output
    inside = project / "settings" / name
    inside.parent.mkdir()
    inside.write_text("[tool.tooldeck]\n" if name == "pyproject.toml" else "{}\n")
    (project / name).unlink()
    (project / name).symlink_to(inside)
    assert run_line("lint", "--static", cwd=project).exit_code == 0


# --------------------------------------------------------------- crashes and tracebacks
ODD_ANNOTATIONS = """
import enum
from typing import Annotated, Final, List, Literal
class Color(enum.Enum):
    RED = 1
def empty(a: List[()], b: Annotated[()], c: Literal[()]) -> None: ...
def enum_subscript(a: Color[int]) -> None: ...
def refused_union(a: Final | int) -> None: ...
def unhashable_literal(a: Literal[[1], {1: 2}]) -> None: ...
def member(a: Color.RED) -> None: ...
"""


@pytest.mark.parametrize(
    "handler", ["empty", "enum_subscript", "refused_union", "unhashable_literal", "member"]
)
def test_an_annotation_typing_refuses_is_not_a_crash(tmp_path, handler):
    """typing and enum refuse odd arguments with IndexError, KeyError, TypeError: TD299 before.

    TD299 skipped the whole file, so its other tools were not checked either.
    """
    project = _project(tmp_path, {"prmod.py": ODD_ANNOTATIONS}, [f"prmod:{handler}", "prmod:nope"])
    done, _ = _lint(project)
    assert "TD299" not in done.stdout
    assert "line=7,col=14,title=TD312::'prmod' has no attribute 'nope'" in done.stdout


UNSUPPORTED = """
import enum
from typing import Literal
class Color(enum.Enum):
    RED = 1
class Bag(list):
    pass
def bare_enum(a: enum.Enum) -> None: ...
def plain_class(a: Bag) -> None: ...
def member_literal(a: Literal[Color.RED]) -> None: ...
"""


@pytest.mark.parametrize("handler", ["bare_enum", "plain_class", "member_literal"])
@pytest.mark.parametrize("mode", ["--static", "--offline"])
def test_an_annotation_with_no_json_form_is_td116_at_the_handler(run_line, tmp_path, handler, mode):
    """Inference's refusal escaped the builder (TD299, file skipped) or the reporter (a crash)."""
    project = _project(tmp_path, {"prmod.py": UNSUPPORTED}, [f"prmod:{handler}"])
    done = run_line("lint", mode, cwd=project)
    assert done.exit_code == 1
    assert done.stdout.startswith("manifests/tools.yaml:4:14: TD1"), done.stdout
    assert "TD299" not in done.stdout


# -------------------------------------------------------------- unbounded work
def test_a_module_dense_with_syntax_is_refused_before_parsing(tmp_path):
    """600 KB of ``0,0,0,...`` is 300,000 nodes: parsing 2.6 MB of it took 20 s and 1.3 GB."""
    project = _project(tmp_path, {"prhelp.py": GOOD}, ["prmod:go", "prhelp:go"])
    (project / "prmod.py").write_text("A = [" + "0," * 300_000 + "]\n" + GOOD)
    started = time.monotonic()
    done, _ = _lint(project)
    assert time.monotonic() - started < 15
    assert "line=4,col=14,title=TD311::" in done.stdout
    assert "syntax elements, more than the 250,000 static lint reads in one module" in done.stdout
    assert "line=7" not in done.stdout  # prhelp:go is fine


def test_a_run_reads_a_bounded_amount_of_source(tmp_path, monkeypatch):
    from tooldeck.manifest._static import file as _staticfile
    from tooldeck.manifest._static import source as _staticsource
    from tooldeck.manifest._static.source import ModuleIndex, StaticProblem

    for index in range(3):
        (tmp_path / f"prbig{index}.py").write_text("A = [" + "0," * 20_000 + "]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(_staticsource, "MAX_RUN_ELEMENTS", 50_000)
    monkeypatch.setattr(_staticfile, "MAX_RUN_ELEMENTS", 50_000)  # as the message says it
    modules = ModuleIndex()
    modules.module("prbig0")
    modules.module("prbig1")
    with pytest.raises(StaticProblem, match="at most 50,000 syntax elements of source in one run"):
        modules.module("prbig2")


def test_a_module_parses_the_same_however_deep_the_lookup_that_asks_for_it(tmp_path, monkeypatch):
    """Building the tree counts against the caller's recursion depth; a failure is remembered."""
    import sys

    from tooldeck.manifest._static.source import ModuleIndex

    (tmp_path / "prsum.py").write_text("x = " + "+".join(["1"] * 2000) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def deep(levels: int):
        return ModuleIndex().module("prsum") if levels == 0 else deep(levels - 1)

    assert deep(sys.getrecursionlimit() - 100).bindings["x"].kind == "value"


def test_misspelt_names_in_a_module_of_many_names_cost_no_minutes(tmp_path):
    """difflib is linear in the names to choose from, for every miss: 400 misses took minutes."""
    project = _project(
        tmp_path,
        {
            "prmod.py": "".join(f"zz{i} = 0\n" for i in range(40_000)),
            "prhelp.py": "class C:\n" + "".join(f"    zz{i} = 0\n" for i in range(40_000)),
        },
        [f"prmod:zz{i}q" for i in range(200)] + [f"prhelp:C.zz{i}q" for i in range(200)],
    )
    started = time.monotonic()
    done, _ = _lint(project)
    assert time.monotonic() - started < 30
    assert done.stdout.count("title=TD312::") == 400
    assert "did you mean" not in done.stdout


def test_a_huge_expression_named_in_every_parameter_costs_its_size_once(tmp_path):
    """Each annotation and default re-evaluated and re-printed 200,000 elements (minutes)."""
    params = ", ".join(f"a{j}: A = A" for j in range(30))
    functions = "".join(f"def go{i}({params}): ...\n" for i in range(20))
    project = _project(
        tmp_path,
        {"prmod.py": "A = [" + "0," * 110_000 + "]\n" + functions},
        [f"prmod:go{i}" for i in range(20)],
    )
    started = time.monotonic()
    done, _ = _lint(project)
    assert time.monotonic() - started < 20
    assert done.returncode == 0, done.stdout
    assert "a large List expression, line 1" in done.stdout  # named, not printed


def test_an_alias_is_worked_out_once_per_run(tmp_path, monkeypatch):
    """A Literal of 3,000 values in 50 parameters of 20 tools was evaluated 3 million times."""
    from tooldeck.manifest._static import types as _statictypes
    from tooldeck.manifest._static.resolve import StaticResolver

    values = ", ".join(f"'v{i}'" for i in range(3000))
    params = ", ".join(f"a{j}: L = 'v1'" for j in range(50))
    (tmp_path / "prlit.py").write_text(
        f"from typing import Literal\nL = Literal[{values}]\ndef go({params}): ...\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    evaluated = []
    literal = _statictypes._literal
    monkeypatch.setattr(_statictypes, "_literal", lambda node: evaluated.append(1) or literal(node))
    resolve = StaticResolver()
    for _ in range(20):
        resolve("prlit:go", ["prlit"])
    assert len(evaluated) < 3000 + 20 * 50 * 2


def test_star_imports_that_fan_out_end_promptly(tmp_path):
    """Each module star-imports two of the next layer: 2^30 paths to look for a name."""
    files = {
        f"prhelp{i}.py": f"from prhelp{2 * (i // 2) + 2} import *\n"
        f"from prhelp{2 * (i // 2) + 3} import *\n"
        for i in range(60)
    }
    files["prmod.py"] = (
        "from prhelp0 import *\nfrom prhelp1 import *\ndef go(x: Nope) -> int: ...\n"
    )
    project = _project(tmp_path, files, ["prmod:go"])
    started = time.monotonic()
    done, _ = _lint(project)
    assert time.monotonic() - started < 20
    assert "title=TD317::" in done.stdout


# --------------------------------------------- references importing refuses, read from source
def _codes(output: str) -> list[tuple[str, str]]:
    """(line, code) of every text diagnostic of manifests/tools.yaml."""
    found = []
    for line in output.splitlines():
        where, _, rest = line.partition(": ")
        if where.startswith("manifests/tools.yaml:") and rest[:2] == "TD":
            found.append((where.split(":")[1], rest.split()[0]))
    return sorted(found)


REFUSED = {
    "a descriptor in a class body": (
        """
        class Desc:
            def __get__(self, obj, owner):
                return self
            def __call__(self, x: int) -> int: ...
        class Holder:
            run = Desc()
        holder = Holder()
        """,
        ["prmod:Holder.run", "prmod:holder.run"],
        ["TD315", "TD315"],
    ),
    "functools.wraps of an outside function": (
        """
        import functools, json
        @functools.wraps(json.dumps)
        def go(x: int) -> int: ...
        """,
        ["prmod:go"],
        ["TD315"],
    ),
    "classmethod and staticmethod objects at module level": (
        """
        @classmethod
        def go(cls, x: int) -> int: ...
        @staticmethod
        def go2(x: int) -> int: ...
        """,
        ["prmod:go", "prmod:go2"],
        ["TD313", "TD315"],
    ),
    "a name a star import's __all__ leaves out": (
        "from prhelp import *\n",
        ["prmod:hidden", "prmod:shown"],
        ["TD312", None],
    ),
    "a class attribute C3 finds before breadth-first order does": (
        """
        import json
        class D:
            run = json.dumps
        class B(D):
            pass
        class C:
            def run(self, x: int) -> int: ...
        class A(B, C):
            pass
        """,
        ["prmod:A.run"],
        ["TD315"],
    ),
    "a method an outside base may define first": (
        """
        import json
        class Mixin:
            def encode(self, o: int) -> str: ...
        class Enc(json.JSONEncoder, Mixin):
            pass
        """,
        ["prmod:Enc.encode"],
        ["TD316"],
    ),
    "a class a decorator replaces": (
        """
        import json
        def swap(cls):
            return json.dumps
        @swap
        class Tool:
            def __init__(self, x: int) -> None: ...
        """,
        ["prmod:Tool"],
        ["TD316"],
    ),
    "a function rebound by a function that declares it global": (
        """
        import json
        def go(x: int) -> int: ...
        def _setup():
            global go
            go = json.dumps
        _setup()
        """,
        ["prmod:go"],
        ["TD316"],
    ),
    "attributes set at module level": (
        """
        import json
        class Tool:
            def run(self, x: int) -> int: ...
        Tool.run = json.dumps
        def go(x: int) -> int: ...
        go.__module__ = "json"
        """,
        ["prmod:Tool.run", "prmod:go"],
        ["TD316", "TD316"],
    ),
    "setattr and globals() at module level": (
        """
        import json
        class Tool:
            def run(self, x: int) -> int: ...
        setattr(Tool, "run", json.dumps)
        def go(x: int) -> int: ...
        globals()["go"] = json.dumps
        """,
        ["prmod:Tool.run", "prmod:go"],
        ["TD316", "TD316"],
    ),
    "a module that replaces itself in sys.modules": (
        """
        import sys, json
        def go(x: int) -> int: ...
        sys.modules[__name__] = json
        """,
        ["prmod:go"],
        ["TD316"],
    ),
    "a class body that rebinds its names": (
        """
        class Tool:
            def run(self, x: int) -> int: ...
            from json import dumps as run
            def gone(self, x: int) -> int: ...
            del gone
            def loop(self, x: int) -> int: ...
            for loop in [print]:
                pass
        """,
        ["prmod:Tool.run", "prmod:Tool.gone", "prmod:Tool.loop"],
        ["TD315", "TD312", "TD316"],
    ),
    "an instance a __new__ makes": (
        """
        import json
        class Tool:
            def __new__(cls):
                return json.dumps
            def __call__(self, x: int) -> int: ...
        tool = Tool()
        """,
        ["prmod:tool"],
        ["TD316"],
    ),
    "an attribute a method sets on the instance": (
        """
        import json
        class Tool:
            def __init__(self):
                self.run = json.dumps
            def run(self, x: int) -> int: ...
        tool = Tool()
        """,
        ["prmod:tool.run"],
        ["TD316"],
    ),
}
PACKAGES = {
    "a package that imports its own submodule": (
        {"prpkg/__init__.py": "from . import tools\n", "prmod.py": "from prpkg import tools\n"},
        ["prpkg:tools", "prpkg:tools.go", "prmod:tools.go"],
        ["TD315", "TD315", "TD315"],
    ),
    "a package that rewrites __path__": (
        {
            "prpkg/__init__.py": "__path__ = [__path__[0] + '/real']\n",
            "prpkg/real/tools.py": "import json\ngo = json.dumps\n",
        },
        ["prpkg.tools:go"],
        ["TD316"],
    ),
    "a package that puts another module in sys.modules": (
        {"prpkg/__init__.py": "import sys, json\nsys.modules['prpkg.tools'] = json\n"},
        ["prpkg.tools:go"],
        ["TD316"],
    ),
}


@pytest.mark.parametrize("case", [*REFUSED, *PACKAGES])
def test_what_importing_refuses_static_lint_does_not_pass(run_line, tmp_path, case):
    """Each of these passed ``--static --strict`` silently; importing refuses them (TD31x).

    Static lint refuses them the same way where the source says it, and
    otherwise says only an import could tell (TD316, a warning that fails
    ``--strict``): never a green CI for what fails when the tools load.
    """
    if case in REFUSED:
        source, handlers, expected = REFUSED[case]
        files = {"prmod.py": source, "prhelp.py": ""}
    else:
        files, handlers, expected = PACKAGES[case]
        files = {"prpkg/tools.py": GOOD, **files}
    files["prhelp.py"] = files.get("prhelp.py") or (
        "__all__ = ['shown']\ndef shown(x: int) -> int: ...\ndef hidden(x: int) -> int: ...\n"
    )
    project = _project(tmp_path, files, handlers)
    static = run_line("lint", "--static", "--strict", cwd=project)
    lines = [str(4 + 3 * index) for index in range(len(handlers))]
    wanted = sorted((line, code) for line, code in zip(lines, expected, strict=True) if code)
    assert _codes(static.stdout) == wanted, static.stdout
    assert static.exit_code == 1
    imported = run_line("lint", "--offline", cwd=project)
    assert imported.exit_code == 1, imported.stdout  # importing refuses each one too


def test_a_conditional_del_is_a_warning_not_a_missing_name(run_line, tmp_path):
    """``if flag: del go`` left go undefined for static lint (TD312) though it usually is not."""
    source = "def go(x: int) -> int: ...\nif False:\n    del go\n"
    project = _project(tmp_path, {"prmod.py": source}, ["prmod:go"])
    done = run_line("lint", "--static", cwd=project)
    assert _codes(done.stdout) == [("4", "TD316")], done.stdout


HIERARCHIES = """
class O: pass
class A(O): pass
class B(O): pass
class C(O): pass
class D(O): pass
class E(O): pass
class K1(A, B, C): pass
class K2(D, B, E): pass
class K3(D, A): pass
class Z(K1, K2, K3): pass
class X: pass
class Y(X): pass
class W(Y, X): pass
class Left(A): pass
class Right(A, B): pass
class Both(Left, Right): pass
"""


@pytest.mark.parametrize("name", ["Z", "W", "Both", "K2"])
def test_the_static_mro_is_pythons(tmp_path, monkeypatch, name):
    """C3 linearization: the order lookups follow, which breadth-first order got wrong."""
    import importlib

    from tooldeck.manifest._static.source import ModuleIndex
    from tooldeck.manifest._static.values import ClassDef
    from tooldeck.manifest._static.walker import Walker

    (tmp_path / "prclasses.py").write_text(HIERARCHIES)
    monkeypatch.syspath_prepend(str(tmp_path))
    walker = Walker(ModuleIndex(), lambda module: module == "prclasses")
    cls = walker.module_attr(walker.module("prclasses"), name)
    assert isinstance(cls, ClassDef)
    static = [entry.qualname for entry in walker.mro(cls) if isinstance(entry, ClassDef)]
    real = importlib.import_module("prclasses")
    assert static == [k.__name__ for k in getattr(real, name).__mro__ if k is not object]


def test_a_tower_of_classes_is_read_promptly(tmp_path):
    """120 classes, each with all the previous as bases: C3's merge was cubic (minutes)."""
    tower = "class C0:\n    pass\n" + "".join(
        f"class C{i}({', '.join(f'C{j}' for j in range(i - 1, -1, -1))}):\n    pass\n"
        for i in range(1, 120)
    )
    project = _project(tmp_path, {"prmod.py": tower}, [f"prmod:C{i}.run" for i in range(100, 120)])
    plain = _project(tmp_path / "plain", {"prmod.py": "class C0:\n    pass\n"}, ["prmod:C0.run"])
    started = time.monotonic()
    _lint(plain)  # the unit: a process start and a lint of one class, on this machine now
    unit = time.monotonic() - started
    started = time.monotonic()
    done, _ = _lint(project)
    took = time.monotonic() - started
    # ~5 s idle (10x the unit), 8 s seen on a loaded machine; the cubic merge took minutes
    assert took < 20 * unit + 30, f"the tower took {took:.1f}s, one class {unit:.1f}s"
    assert done.returncode == 1, done.stdout


def test_ordinary_module_level_code_is_not_taken_for_rebinding(run_line, tmp_path):
    """Reading globals(), sys.modules or a registry, and setting os.environ, rebind nothing."""
    source = """
    import logging, os, sys
    __all__ = [name for name in globals() if not name.startswith("_")]
    logging.getLogger(__name__).setLevel(logging.INFO)
    os.environ.setdefault("X", "1")
    sys.path[0:0] = []
    REGISTRY = {}
    def registry():
        return REGISTRY
    registry()["x"] = 1
    CONFIG = vars()
    if "json" in sys.modules:
        pass
    def go(x: int) -> int: ...
    """
    project = _project(tmp_path, {"prmod.py": source}, ["prmod:go"])
    done = run_line("lint", "--static", "--strict", cwd=project)
    assert done.exit_code == 0, done.stdout


@pytest.mark.parametrize("output", ["text", "github"])
def test_a_file_name_cannot_write_lines_or_escapes_into_the_log(tmp_path, output):
    """A manifest named ``a\\n::error file=x::injected\\x1b[31m.yaml`` wrote a workflow command."""
    project = _project(tmp_path, {"prmod.py": GOOD})
    name = "a\n::error file=x::injected\x1b[31mred.yaml"
    (project / "manifests" / name).write_text(
        "version: 1\ntools:\n  - name: bad\n    handler: prmod:nope\n"
        "    description: A tool in a file whose name has control characters.\n"
    )
    done = subprocess.run(
        [str(SCRIPTS / "tooldeck"), "lint", "--static", "--format", output],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert not any(line.startswith("::error file=x") for line in done.stdout.splitlines())
    assert "\x1b" not in done.stdout
    assert "a\\u000a" in done.stdout or "a%0A" in done.stdout
