"""Approval of side effects over MCP: the client that made the call is asked, by elicitation.

The registry asks its approver before every call of a ``side_effects`` tool
(:class:`~tooldeck.ApprovalRequest`: the tool and its validated arguments).
:func:`elicit_approval` is such an approver for a registry served over MCP:
:class:`~tooldeck.mcp.RegistryServer` marks each ``tools/call`` it runs
(:func:`calling`, a context variable, since the registry's approver sees the
tool and the arguments but not the connection), and the approver sends that
connection's client a form-mode ``elicitation/create`` request tied to the
call (``related_request_id``, so over Streamable HTTP it rides the call's own
response stream) with one boolean field, ``approve``.

Only an accepted answer with ``approve: true`` runs the tool. Decline, cancel,
no answer within the timeout, an error from the client, or a client that
cannot be asked (no elicitation capability, stateless HTTP, a connection with
no way back to the client) deny it, with the reason in the words the model
reads: the call is a tool result with ``isError``, never a protocol error.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..._calling import ApprovalRequest, Decision
from ..._words import plural

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

__all__ = [
    "APPROVE_FIELD",
    "DEFAULT_APPROVAL_TIMEOUT",
    "NOT_OVER_MCP",
    "NO_BACK_CHANNEL",
    "NO_ELICITATION",
    "STATELESS",
    "McpCall",
    "approval_message",
    "approval_schema",
    "calling",
    "elicit_approval",
    "mark_call",
    "unmark_call",
]

APPROVE_FIELD = "approve"
"""The one field of the approval form: a boolean, ``true`` runs the call."""

DEFAULT_APPROVAL_TIMEOUT = 300.0
"""Seconds to wait for the client's answer before the call is denied."""

_ALLOW_HINT = (
    "start `tooldeck serve` with --allow-side-effects to run tools with side effects without asking"
)
NO_ELICITATION = (
    "this MCP client cannot be asked for approval (it did not declare the elicitation "
    f"capability); {_ALLOW_HINT}"
)
"""Why a side effect was denied for a client without form elicitation."""
STATELESS = (
    "a stateless HTTP server (--stateless) cannot ask the client for approval (no session "
    "carries the question back); serve without --stateless so that clients with elicitation "
    f"are asked, or {_ALLOW_HINT}"
)
"""Why a side effect was denied on ``--stateless`` HTTP, whatever the client supports."""
NO_BACK_CHANNEL = (
    "this connection cannot carry a request from the server to the client (a JSON-only "
    "HTTP response, or a protocol version without server-to-client requests), so approval "
    f"cannot be asked; {_ALLOW_HINT}"
)
"""Why a side effect was denied when the client has elicitation but no way to receive it."""
NOT_OVER_MCP = (
    "approval is asked of the MCP client that made the call, and this call did not come "
    "through an MCP server"
)
"""Why :func:`elicit_approval` denied a call made directly on the registry."""

_ARGUMENTS_LIMIT = 4000
"""Longer argument listings are cut in the approval message (and say so)."""


@dataclass(frozen=True)
class McpCall:
    """The ``tools/call`` being served: whom to ask, and how long to wait."""

    session: ServerSession
    request_id: Any
    """The id of the ``tools/call`` request; the elicitation is related to it."""
    stateless: bool = False
    timeout: float = DEFAULT_APPROVAL_TIMEOUT
    redact: Callable[[str], str] = str
    """Masks secrets in the approval message (the registry's ``secrets.redact``)."""

    def obstacle(self) -> str | None:
        """Why this client cannot be asked, or ``None`` when it can."""
        if self.stateless:
            return STATELESS
        if not supports_form_elicitation(self.session):
            return NO_ELICITATION
        if not self.session.can_send_request:
            return NO_BACK_CHANNEL
        return None

    async def ask(self, request: ApprovalRequest) -> Decision:
        """Send the approval form to the client and read its answer as a Decision."""
        import mcp_types as types
        from mcp.shared.exceptions import MCPError, NoBackChannelError
        from mcp.shared.message import ServerMessageMetadata
        from pydantic import ValidationError

        elicit = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=self.redact(approval_message(request)),
                requested_schema=approval_schema(request),
            )
        )
        try:
            answer = await self.session.send_request(
                elicit,
                types.ElicitResult,
                request_read_timeout_seconds=self.timeout,
                metadata=ServerMessageMetadata(related_request_id=self.request_id),
            )
        except NoBackChannelError:
            return Decision.deny(NO_BACK_CHANNEL)
        except MCPError as exc:
            if exc.code == types.REQUEST_TIMEOUT:
                return Decision.deny(
                    f"nobody answered the approval request within {self.timeout:g} s"
                )
            return Decision.deny(f"the client could not ask for approval: {exc.message}")
        except ValidationError:
            return Decision.deny("the client's answer to the approval request was malformed")
        return decision_of(answer.action, answer.content)


def supports_form_elicitation(session: ServerSession) -> bool:
    """Whether the client declared form-mode elicitation (``{}`` means form, per the spec)."""
    capabilities = session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return False
    return elicitation.form is not None or elicitation.url is None


def decision_of(action: str, content: Mapping[str, Any] | None) -> Decision:
    """The client's elicitation answer as an approval: only accept with approve=true runs."""
    if action == "decline":
        return Decision.deny("the user declined it")
    if action != "accept":
        return Decision.deny("the user dismissed the approval request without answering")
    value = (content or {}).get(APPROVE_FIELD)
    if value is True:
        return Decision.approve()
    if value is False:
        return Decision.deny("the user did not approve it")
    return Decision.deny(
        f"the client's answer had no boolean {APPROVE_FIELD!r} field, so nothing was approved"
    )


def approval_message(request: ApprovalRequest) -> str:
    """What the user reads: the tool, its side effect, the exact arguments."""
    spec = request.tool
    effect = spec.effect or "it changes something outside the conversation"
    try:
        arguments = json.dumps(dict(request.arguments), indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        arguments = repr(dict(request.arguments))
    if len(arguments) > _ARGUMENTS_LIMIT:
        cut = len(arguments) - _ARGUMENTS_LIMIT
        more = plural(cut, "more character", "more characters")
        arguments = f"{arguments[:_ARGUMENTS_LIMIT]}\n[... {more} not shown]"
    return f"Allow the tool {spec.name!r} to run?\nSide effect: {effect}\nArguments:\n{arguments}"


def approval_schema(request: ApprovalRequest) -> dict[str, Any]:
    """The form: one required boolean, ``approve`` (a spec PrimitiveSchemaDefinition)."""
    return {
        "type": "object",
        "properties": {
            APPROVE_FIELD: {
                "type": "boolean",
                "title": "Approve",
                "description": f"Run {request.tool.name!r} with these arguments",
                "default": False,
            }
        },
        "required": [APPROVE_FIELD],
    }


_CALL: contextvars.ContextVar[McpCall | None] = contextvars.ContextVar(
    "tooldeck_mcp_call", default=None
)


@contextlib.contextmanager
def calling(call: McpCall) -> Iterator[None]:
    """Mark the code inside (a registry call) as serving ``call``, for :func:`elicit_approval`."""
    token = _CALL.set(call)
    try:
        yield
    finally:
        _CALL.reset(token)


def mark_call(call: McpCall) -> contextvars.Token[McpCall | None]:
    """:func:`calling` without a generator, for the serving path: undo with :func:`unmark_call`."""
    return _CALL.set(call)


def unmark_call(token: contextvars.Token[McpCall | None]) -> None:
    _CALL.reset(token)


def elicit_approval(request: ApprovalRequest) -> Decision | Awaitable[Decision]:
    """An :data:`~tooldeck.ApprovalCallback` that asks the MCP client that made the call.

    Pass it as a registry's ``approve=`` when the registry is served over MCP
    (``tooldeck serve`` does): a client that supports elicitation is asked
    each time; any other call with side effects is denied, saying why.
    """
    call = _CALL.get()
    if call is None:
        return Decision.deny(NOT_OVER_MCP)
    obstacle = call.obstacle()
    if obstacle is not None:
        return Decision.deny(obstacle)
    return call.ask(request)
