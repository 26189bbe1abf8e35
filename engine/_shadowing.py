"""Who gets a tool name that several want: local tools, ``use:`` entries, attached servers' tools.

One rule, asked wherever the question comes up, so the answers cannot differ:
the attachment (:class:`tooldeck.mcp.McpAttachment`) registers what it says,
so ``list``, ``call``, ``export``, ``serve`` and the model loop all see the
same tools, and reports the rest in ``health()``; lint's TD414 reports the
same shadowing from its own listing of the servers.

The rule, in order:

1. A local tool (registered outside the attached servers' groups: by a
   manifest or by code) keeps its name.
2. A ``use:`` entry's name is the entry's from the moment its manifest
   loads: before any server is listed, while its own server is slow to
   answer, lazy (``initialize_on_startup: false``) or down, and whether or
   not the entry resolves. No server's tool ever takes it, so the model's
   calls to that name can only reach the entry's own server, with its
   hidden values.
3. A remote tool registered as it is takes ``prefix + name`` only if no
   local tool, no ``use:`` entry and no server declared before its own holds
   that name. Between servers the declaration order decides (see
   :func:`declaration_order`), never the order in which they answer
   ``tools/list``; a server that has not been listed holds nothing, nor
   does a tool whose name is refused (:func:`~tooldeck._names.remote_name_problem`).

What loses is *shadowed*: left out, and reported with what holds its name.
A local tool and a ``use:`` entry of the same name in manifests are a load
error (TD112 in one file, TD220 across files); a tool registered in code
keeps its name over a ``use:`` entry, which is then shadowed.

Pure: plain values in, plain values out; no I/O and no ``mcp``.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from types import MappingProxyType
from typing import Literal

from ._model import McpServerSpec, McpToolUse
from ._names import remote_name_problem

__all__ = ["NameHolder", "Names", "Shadowed", "assign_names", "declaration_order"]

HolderKind = Literal["tool", "use", "server"]


@dataclass(frozen=True, kw_only=True, slots=True)
class NameHolder:
    """What holds a name that something else wanted."""

    kind: HolderKind
    """``tool``: a local tool; ``use``: a ``use:`` entry; ``server``: a server's tool as it is."""
    name: str
    """The name held."""
    server: str | None = None
    """The ``use:`` entry's server, or the server whose raw tool holds the name."""
    tool: str | None = None
    """The remote tool behind the name (the entry's ``tool``, or the raw tool's own name)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Shadowed:
    """A server's tool, or a ``use:`` entry, left out because another holds its name."""

    server: str
    """The server whose tool is left out."""
    tool: str
    """That remote tool's own name."""
    name: str
    """The registry name it would have had (``prefix + tool``, or the entry's name)."""
    use: bool
    """Whether what is left out is a ``use:`` entry (else the raw tool)."""
    holder: NameHolder


@dataclass(frozen=True, kw_only=True)
class Names:
    """The rule's answer: per server, which raw tools and ``use:`` entries keep their names."""

    raw: Mapping[str, Mapping[str, str]]
    """Server -> registry name -> remote tool, for the raw tools that register (listed servers)."""
    uses: Mapping[str, tuple[McpToolUse, ...]]
    """Server -> its ``use:`` entries that keep their name (tools once a fitting listing comes)."""
    shadowed: Mapping[str, tuple[Shadowed, ...]]
    """Server -> what of it is left out, in declaration and listing order."""

    def shadowed_of(self, server: str) -> tuple[Shadowed, ...]:
        return self.shadowed.get(server, ())


def declaration_order(servers: Iterable[McpServerSpec]) -> list[McpServerSpec]:
    """``servers`` from the first declared to the last: the order that breaks ties.

    Servers declared in code come first, in the order given; manifest servers
    follow by file path (as the loader finds them: component by component)
    and then by line. Sorting by where each is written, rather than by the
    registry's order, keeps the winner when an unrelated edit reloads a file.
    """

    def key(item: tuple[int, McpServerSpec]) -> tuple[int, tuple[str, ...], int, int, int]:
        index, spec = item
        origin = spec.origin
        if origin is None:
            return (0, (), 0, 0, index)
        return (1, PurePath(origin.file).parts, origin.line, origin.column, index)

    return [spec for _, spec in sorted(enumerate(servers), key=key)]


def assign_names(
    servers: Iterable[McpServerSpec],
    listed: Mapping[str, Iterable[str]],
    uses: Iterable[McpToolUse],
    local: Container[str],
) -> Names:
    """Apply the module's rule.

    Args:
        servers: the attached (``via: client``) servers, in any order.
        listed: each listed server's remote tool names, in listing order; a
            server missing here (not listed yet, down, lazy) holds no raw name.
        uses: every ``use:`` entry the manifests declare, attached or not.
        local: the names held outside the servers' groups (``in`` is all it needs).
    """
    ordered = declaration_order(servers)
    uses = tuple(uses)
    held: dict[str, NameHolder] = {}
    owned: dict[str, list[McpToolUse]] = {spec.name: [] for spec in ordered}
    lost: dict[str, list[Shadowed]] = {spec.name: [] for spec in ordered}
    for use in uses:
        if use.name in local:
            lost.setdefault(use.server, []).append(
                Shadowed(
                    server=use.server,
                    tool=use.tool,
                    name=use.name,
                    use=True,
                    holder=NameHolder(kind="tool", name=use.name),
                )
            )
            continue
        held[use.name] = NameHolder(kind="use", name=use.name, server=use.server, tool=use.tool)
        owned.setdefault(use.server, []).append(use)
    raw: dict[str, dict[str, str]] = {}
    for spec in ordered:
        remote = listed.get(spec.name)
        if remote is None:
            continue
        reshaped = {use.tool for use in uses if use.server == spec.name}
        mine = raw[spec.name] = {}
        for tool in dict.fromkeys(remote):
            if not spec.registers_as_is(tool, reshaped) or remote_name_problem(tool) is not None:
                continue  # never registered as it is (a bad name is skipped, with the reason)
            name = spec.prefix + tool
            holder = NameHolder(kind="tool", name=name) if name in local else held.get(name)
            if holder is not None:
                lost[spec.name].append(
                    Shadowed(server=spec.name, tool=tool, name=name, use=False, holder=holder)
                )
                continue
            held[name] = NameHolder(kind="server", name=name, server=spec.name, tool=tool)
            mine[name] = tool
    return Names(
        raw=MappingProxyType({s: MappingProxyType(m) for s, m in raw.items()}),
        uses=MappingProxyType({s: tuple(u) for s, u in owned.items()}),
        shadowed=MappingProxyType({s: tuple(x) for s, x in lost.items() if x}),
    )
