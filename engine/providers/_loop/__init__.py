"""The model tool-call loop, written once for both OpenAI APIs and both kinds of client.

``loop``: the turns; ``records``: what the loop hands back and reads; ``pause``: a
conversation paused for approvals and the state that resumes it; ``hosted``: hosted MCP
approval requests; ``chat`` and ``responses``: each API's messages and items;
``conversation``: ``run`` and ``arun``, a conversation that calls the tools (``runner``:
what performs its effects); ``streaming``:
``stream`` and ``astream``, the same conversation as ``events`` while it happens, each
streamed reply read by ``assembly``; ``logs``: the client's logs hide the registry's secrets
while a loop runs.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .conversation import arun, run
    from .events import (
        Finished,
        LoopEvent,
        TextDelta,
        ToolCallDelta,
        ToolCallFinished,
        ToolCallStarted,
        TurnFinished,
    )
    from .pause import ResumeError
    from .records import Interruption, LoopCall, LoopResult, MaxTurnsExceeded, Usage
    from .streaming import astream, stream

__all__ = [
    "Finished",
    "Interruption",
    "LoopCall",
    "LoopEvent",
    "LoopResult",
    "MaxTurnsExceeded",
    "ResumeError",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "TurnFinished",
    "Usage",
    "arun",
    "astream",
    "run",
    "stream",
]

_EXPORTS: dict[str, str] = {
    "Finished": ".events",
    "Interruption": ".records",
    "LoopCall": ".records",
    "LoopEvent": ".events",
    "LoopResult": ".records",
    "MaxTurnsExceeded": ".records",
    "ResumeError": ".pause",
    "TextDelta": ".events",
    "ToolCallDelta": ".events",
    "ToolCallFinished": ".events",
    "ToolCallStarted": ".events",
    "TurnFinished": ".events",
    "Usage": ".records",
    "arun": ".conversation",
    "astream": ".streaming",
    "run": ".conversation",
    "stream": ".streaming",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
