"""A ``use: SERVER/TOOL`` manifest entry -> :class:`~tooldeck._model.McpToolUse`
(and a prompt's ``use: SERVER/PROMPT`` -> :class:`~tooldeck._model.McpPromptUse`).

Such a tool has no handler and no schema until its server is listed, so the
loader checks everything it can without the server (the options, the
argument reshaping, names) and hands on a declaration; the MCP attachment
completes it from the live schema (:mod:`tooldeck._reshape`), and lint
checks it against that schema when it can connect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..._diagnostics import Severity, SourceLocation
from ..._errors import RegistrationError, ToolFailed
from ..._model import ArgumentReshape, McpPromptUse, McpToolUse, ToolSpec
from ..._params import MISSING

__all__ = ["build_prompt_use", "build_use", "not_attached"]

Path_ = tuple[str | int, ...]


class _Builder(Protocol):
    """What this module needs of :class:`tooldeck.manifest._build._Builder`."""

    bundle: Any

    def report(
        self,
        path: Path_,
        code: str,
        message: str,
        *,
        severity: Severity = ...,
        tool: str | None = None,
    ) -> None: ...

    def locate(self, path: Path_) -> SourceLocation: ...

    def duplicate(self, kind: str, name: str, path: Path_, seen: Mapping[str, Path_]) -> bool: ...

    def options(
        self, entry: Mapping[str, Any], path: Path_, defaults: Mapping[str, Any], name: str
    ) -> dict[str, Any] | None: ...


def not_attached(arguments: Mapping[str, Any]) -> Any:
    """The handler a use entry carries until its server's tool replaces it."""
    raise ToolFailed("this tool's MCP server is not attached", kind="execution_error")


def build_use(
    builder: _Builder, entry: Mapping[str, Any], path: Path_, defaults: Mapping[str, Any]
) -> None:
    """Check one ``use:`` entry and add its declaration to the builder's bundle."""
    server, _, tool = str(entry["use"]).partition("/")
    name = entry.get("name") or tool
    for key, why in (
        ("handler", "a tool has either a handler or use:, not both"),
        ("params", "with use:, the server's schema gives the parameters; reshape them with args"),
        (
            "additional_properties",
            "with use:, the server's schema says whether undeclared arguments are accepted",
        ),
    ):
        if key in entry:
            builder.report((*path, key), "TD117", why, tool=name)
            return
    arguments = _arguments(builder, entry.get("args") or {}, (*path, "args"), name)
    if arguments is None:
        return
    if builder.duplicate("tool", name, path, builder.bundle.tool_paths):
        return
    try:
        options = builder.options(entry, path, defaults, name)
        if options is None:
            return
        template = ToolSpec(
            name=name,
            description=entry.get("description") or f"{tool} (MCP server {server})",
            handler=not_attached,
            input_schema={"type": "object"},
            bundle=builder.bundle.name,
            origin=builder.locate(path),
            **options,
        )
    except RegistrationError as exc:
        builder.report(path, exc.code, exc.message, tool=name)
        return
    builder.bundle.uses.append(
        McpToolUse(
            server=server,
            tool=tool,
            template=template,
            description=entry.get("description"),
            arguments=arguments,
            side_effects=options.get("side_effects"),
        )
    )
    builder.bundle.tool_paths[name] = path


def build_prompt_use(builder: _Builder, entry: Mapping[str, Any], path: Path_) -> None:
    """Check one prompt ``use:`` entry and add its declaration to the builder's bundle.

    The remote prompt gives the arguments, the messages and their roles;
    the entry gives the name, and may give a description and tags.
    """
    server, _, prompt = str(entry["use"]).partition("/")
    name = entry["name"]
    for key in ("params", "role"):
        if key in entry:
            why = (
                "with use:, the server's prompt declares the arguments"
                if key == "params"
                else "with use:, the server's prompt gives each message its role"
            )
            builder.report((*path, key), "TD117", why, tool=name)
            return
    try:
        use = McpPromptUse(
            server=server,
            prompt=prompt,
            name=name,
            description=entry.get("description"),
            tags=tuple(entry.get("tags", ())),
            bundle=builder.bundle.name,
            origin=builder.locate(path),
        )
    except RegistrationError as exc:
        builder.report((*path, *exc.path), exc.code, exc.message, tool=name)
        return
    builder.bundle.prompt_uses.append(use)
    builder.bundle.prompt_paths[name] = path


def _arguments(
    builder: _Builder, declared: Mapping[str, Any], path: Path_, tool: str
) -> dict[str, ArgumentReshape] | None:
    arguments: dict[str, ArgumentReshape] = {}
    shown: dict[str, str] = {}
    ok = True
    for remote, options in declared.items():
        reshape = ArgumentReshape(
            name=options.get("name"),
            description=options.get("description"),
            default=options.get("default", MISSING),
            value=options.get("value", MISSING),
        )
        if reshape.hidden and (
            reshape.name is not None
            or reshape.description is not None
            or reshape.default is not MISSING
        ):
            builder.report(
                (*path, remote, "value"),
                "TD117",
                f"argument {remote!r} has a fixed value, so the model never sees it: "
                "name, description and default do not apply",
                tool=tool,
            )
            ok = False
            continue
        if not reshape.hidden:
            seen = reshape.name or remote
            if seen in shown:
                builder.report(
                    (*path, remote, "name" if reshape.name else "value"),
                    "TD103",
                    f"argument name {seen!r} is used twice (also for {shown[seen]!r})",
                    tool=tool,
                )
                ok = False
                continue
            shown[seen] = remote
        arguments[remote] = reshape
    return arguments if ok else None
