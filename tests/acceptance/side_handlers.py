"""Handlers with side effects for the CLI approval tests (allow-listed with --allow-handlers)."""

from pathlib import Path


def touch(name: str, project_dir: Path) -> str:
    """Create an empty file in the project directory."""
    (project_dir / name).touch()
    return f"created {name}"
