"""The dependency range pyproject.toml declares, and what the code imports.

Used by ``tests/test_dependencies.py`` and by ``.ci/run``: after installing
with ``.ci/lowest.txt`` as constraints, ``python -m tests.dependencies
--check-lowest .ci/lowest.txt`` fails unless every pinned package really is at
its lowest version (a constraint pip could not honour would otherwise leave a
newer release and a green run that proved nothing).
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "engine", ROOT / "handlers")

__all__ = ["declared_bounds", "imported_distributions", "lowest_pins", "main"]


def declared_bounds() -> dict[str, Version]:
    """Each runtime dependency's ``>=`` bound, by canonical name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds: dict[str, Version] = {}
    for line in project["dependencies"]:
        requirement = Requirement(line)
        lower = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert len(lower) == 1, f"{line!r} must declare one >= lower bound"
        assert all(spec.operator in (">=", "!=") for spec in requirement.specifier), (
            f"{line!r}: pin nothing in the package's own requirements"
        )
        bounds[canonicalize_name(requirement.name)] = Version(lower[0])
    return bounds


def lowest_pins(path: Path) -> dict[str, Version]:
    """``name==version`` lines of a constraints file, by canonical name."""
    pins: dict[str, Version] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, version = line.partition("==")
        assert version, f"{raw!r}: the lowest pass pins exact versions"
        pins[canonicalize_name(name)] = Version(version)
    return pins


def imported_distributions() -> dict[str, tuple[set[str], set[str]]]:
    """Top-level modules the package imports: the distributions providing each, and the files.

    A namespace package (``opentelemetry``) is provided by several
    distributions; declaring one of them declares it.
    """
    provides = metadata.packages_distributions()
    found: dict[str, tuple[set[str], set[str]]] = {}
    for source in SOURCES:
        for path in source.rglob("*.py"):
            for top in _top_level_imports(path):
                if top in sys.stdlib_module_names or top in ("tooldeck", "_typeshed"):
                    continue
                dists = {canonicalize_name(d) for d in provides.get(top, [])}
                entry = found.setdefault(top, (dists, set()))
                entry[1].add(str(path.relative_to(ROOT)))
    return found


def _top_level_imports(path: Path) -> set[str]:
    tops: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            tops.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.partition(".")[0])
    return tops


def _check_installed(pins: dict[str, Version]) -> list[str]:
    wrong = []
    for name, wanted in sorted(pins.items()):
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            wrong.append(f"{name}: not installed (wanted {wanted})")
            continue
        if installed != wanted:
            wrong.append(f"{name}: {installed} installed, the lowest pass wants {wanted}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.dependencies")
    parser.add_argument("--check-lowest", type=Path, required=True, metavar="CONSTRAINTS")
    args = parser.parse_args(argv)
    pins = lowest_pins(args.check_lowest)
    wrong = _check_installed(pins)
    for line in wrong:
        print(line, file=sys.stderr)
    if not wrong:
        listed = ", ".join(f"{name} {version}" for name, version in sorted(pins.items()))
        print(f"lowest declared versions installed: {listed}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
