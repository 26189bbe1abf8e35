"""An attached server's prompts as registry prompts: which, under which names, rendered how.

Prompts follow the tools' rules (:mod:`tooldeck._shadowing`) with the
prompt namespace in place of the tool one, and with their own lists:

* a remote prompt registers as ``prefix + name`` when ``allowed_prompts``
  (if set) names it and ``denied_prompts`` does not (the tool lists never
  apply to prompts: a name in ``allowed_tools`` says nothing of a prompt);
* a local prompt keeps its name; a ``use: SERVER/PROMPT`` prompt entry
  reserves its name from the moment it loads, and presents the remote
  prompt (which then does not register as it is); between servers the
  one declared first keeps a name;
* a remote prompt whose name is refused (:func:`~tooldeck._names.remote_name_problem`)
  registers only through a ``use:`` entry.

Each prompt's arguments are the remote ones (strings, as MCP says, required
as the server says), so a client of ``tooldeck serve`` sees what the
server declared and wrong arguments are refused before a round trip. Its
renderer sends ``prompts/get``; the messages come back whole
(:func:`prompt_messages`): every message, in its role, and a block that is
not text kept as the server sent it beside a line saying what it is.

Pure apart from compiling (:func:`~tooldeck._prompts.prepare_prompt`): the
attachment owns connections and renderers, and publishes the result with
its tools (:mod:`tooldeck.mcp._attaching.publish`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..._errors import RegistrationError
from ..._model import McpPromptUse, McpServerSpec, PromptSpec
from ..._names import remote_name_problem
from ..._params import ParamDescriptor
from ..._prompts import PreparedPrompt, PromptMessage, prepare_prompt
from ..._shadowing import declaration_order

if TYPE_CHECKING:
    from mcp_types import GetPromptResult, Prompt

__all__ = [
    "PromptNames",
    "ServerPrompts",
    "assign_prompt_names",
    "prompt_messages",
    "server_prompts",
]

log = logging.getLogger("tooldeck.mcp")

Renderer = Callable[[dict[str, Any]], Any]
RendererFactory = Callable[[str, str], Renderer]
"""``factory(registered name, remote name)``: the renderer of one prompt (kept across listings)."""


@dataclass
class ServerPrompts:
    """What the server's group should hold of prompts, and what was left out and why."""

    prepared: list[PreparedPrompt] = field(default_factory=list)
    remote_names: dict[str, str] = field(default_factory=dict)
    """Registered name -> the remote prompt it renders."""
    left_out: dict[str, str] = field(default_factory=dict)
    """Prompt names (or ``use:`` entries) left out -> why."""
    compiled: dict[str, tuple[Any, PreparedPrompt]] = field(default_factory=dict)
    """Registered name -> (what it was built from, the prompt): equal sources reuse it."""


@dataclass(frozen=True)
class PromptNames:
    """Per server: registry name -> remote prompt, its kept ``use:`` entries, what lost."""

    raw: Mapping[str, Mapping[str, str]]
    uses: Mapping[str, tuple[McpPromptUse, ...]]
    lost: Mapping[str, Mapping[str, str]]


def assign_prompt_names(
    servers: Iterable[McpServerSpec],
    listed: Mapping[str, Iterable[str]],
    uses: Iterable[McpPromptUse],
    local: Container[str],
) -> PromptNames:
    """The tools' rule (:func:`tooldeck._shadowing.assign_names`) for prompt names."""
    held: dict[str, str] = {}
    owned: dict[str, list[McpPromptUse]] = {}
    lost: dict[str, dict[str, str]] = {}
    for use in uses:
        if use.name in local:
            lost.setdefault(use.server, {})[use.name] = "a local prompt holds the name"
            continue
        held[use.name] = f"the use: entry {use.name!r} ({use.server}/{use.prompt})"
        owned.setdefault(use.server, []).append(use)
    raw: dict[str, dict[str, str]] = {}
    for spec in declaration_order(servers):
        remote = listed.get(spec.name)
        if remote is None:
            continue
        used = {use.prompt for use in owned.get(spec.name, ())}
        mine = raw[spec.name] = {}
        for prompt in dict.fromkeys(remote):
            if not spec.offers_prompt(prompt, used) or remote_name_problem(prompt) is not None:
                continue
            name = spec.prefix + prompt
            holder = "a local prompt" if name in local else held.get(name)
            if holder is not None:
                lost.setdefault(spec.name, {})[name] = f"{holder} holds the name"
                continue
            held[name] = f"MCP server {spec.name!r}'s prompt {prompt!r}"
            mine[name] = prompt
    return PromptNames(raw=raw, uses={s: tuple(u) for s, u in owned.items()}, lost=lost)


def server_prompts(
    spec: McpServerSpec,
    remote: Iterable[Prompt] | None,
    names: PromptNames,
    renderer: RendererFactory,
    compiled: Mapping[str, tuple[Any, PreparedPrompt]] | None = None,
) -> ServerPrompts:
    """The prompts ``spec``'s group should hold, given its prompt listing and the names.

    ``remote`` None: not listed (or the server offers no prompts, or the
    listing failed): nothing registers; ``use:`` entries naming it wait.
    """
    previous = compiled or {}
    out = ServerPrompts(left_out=dict(names.lost.get(spec.name, {})))
    if remote is None:
        return out
    by_name = {prompt.name: prompt for prompt in remote}
    for name, remote_name in names.raw.get(spec.name, {}).items():
        _add(out, previous, spec, name, by_name[remote_name], None, renderer)
    for use in names.uses.get(spec.name, ()):
        prompt = by_name.get(use.prompt)
        if prompt is None:
            why = f"MCP server {spec.name!r} has no prompt {use.prompt!r}"
            out.left_out[use.name] = why
            log.warning("prompt %r (use: %s/%s) left out: %s", use.name, spec.name, use.prompt, why)
            continue
        _add(out, previous, spec, use.name, prompt, use, renderer)
    return out


def _add(  # noqa: PLR0917 (one call site, all positional)
    out: ServerPrompts,
    previous: Mapping[str, tuple[Any, PreparedPrompt]],
    spec: McpServerSpec,
    name: str,
    prompt: Prompt,
    use: McpPromptUse | None,
    renderer: RendererFactory,
) -> None:
    source = (prompt, use)
    known = previous.get(name)
    if known is not None and known[0] == source:
        out.compiled[name] = known
        out.prepared.append(known[1])
        out.remote_names[name] = prompt.name
        return
    try:
        prepared = prepare_prompt(
            _prompt_spec(spec, name, prompt, use, renderer(name, prompt.name))
        )
    except RegistrationError as exc:
        out.left_out[name] = f"it cannot be registered: {exc}"
        log.warning("MCP server %r: prompt %r left out: %s", spec.name, name, exc)
        return
    out.compiled[name] = (source, prepared)
    out.prepared.append(prepared)
    out.remote_names[name] = prompt.name


def _prompt_spec(
    spec: McpServerSpec,
    name: str,
    prompt: Prompt,
    use: McpPromptUse | None,
    renderer: Renderer,
) -> PromptSpec:
    from .listing import MCP_TAG, group_name

    description = (use.description if use is not None else None) or prompt.description
    params = tuple(
        ParamDescriptor(
            name=argument.name,
            type="string",
            description=argument.description or "",
            required=bool(argument.required),
        )
        for argument in prompt.arguments or ()
    )
    tags = (*(use.tags if use is not None else ()), MCP_TAG, group_name(spec.name))
    return PromptSpec(
        name=name,
        description=description or prompt.title or f"{prompt.name} (MCP server {spec.name})",
        params=params,
        renderer=renderer,
        tags=tuple(dict.fromkeys(tags)),
        bundle=use.bundle if use is not None else None,
        origin=use.origin if use is not None else None,
    )


def prompt_messages(result: GetPromptResult) -> tuple[PromptMessage, ...]:
    """A ``prompts/get`` result as prompt messages: all of them, nothing flattened away.

    A text block becomes the message's text; any other block (image, audio,
    embedded resource, resource link) is kept whole in ``content``, with a
    line of text saying what it is for readers that show only text.
    """
    from mcp_types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents

    messages: list[PromptMessage] = []
    for message in result.messages:
        block = message.content
        if isinstance(block, TextContent):
            messages.append(PromptMessage(message.role, block.text))
            continue
        if isinstance(block, EmbeddedResource):
            inner = block.resource
            text = (
                inner.text if isinstance(inner, TextResourceContents) else f"[resource {inner.uri}]"
            )
        elif isinstance(block, ResourceLink):
            text = f"[resource link {block.uri}]"
        else:
            mime = getattr(block, "mime_type", None)
            text = f"[{block.type}{f' ({mime})' if mime else ''}]"
        messages.append(PromptMessage(message.role, text, content=block))
    return tuple(messages)
