"""Small manifest builders shared by the live-reload unit and integration tests."""

from pathlib import Path

from tooldeck import ToolRegistry

INFO = "Describe a file or directory in the project, with its size and lines."


def payload() -> dict[str, str]:
    """Both versions' answers; a manifest's result select picks one of them."""
    return {"old": "v1", "new": "v2"}


def tools_yaml(
    *names: str, description: str = INFO, handler: str = "tooldeck.handlers.files:file_info"
):
    """A manifest declaring one tool per name (the first tool's name is on line 3)."""
    lines = ["version: 1", "tools:"]
    for name in names:
        lines += [
            f"  - name: {name}",
            f"    handler: {handler}",
            f"    description: {description}",
        ]
    return "\n".join(lines) + "\n"


def save(path: Path, text: str) -> Path:
    """Save in place, as ``echo > file`` or an editor without atomic saves does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def names(registry: ToolRegistry) -> set[str]:
    return {spec.name for spec in registry.tools()}
