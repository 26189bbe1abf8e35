"""The model tool-call loop, written once for both OpenAI APIs and both kinds of client.

``loop``: the loop itself; ``chat`` and ``responses``: each API's messages and items;
``conversation``: ``run`` and ``arun``, a conversation that calls the tools; ``streaming``:
``stream`` and ``astream``, the same conversation as ``events`` while it happens, each streamed
reply read by ``assembly``; ``logs``: the client's logs hide the registry's secrets while a loop
runs.
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
    from .loop import LoopCall, LoopResult, MaxTurnsExceeded, Usage
    from .streaming import astream, stream

__all__ = [
    "Finished",
    "LoopCall",
    "LoopEvent",
    "LoopResult",
    "MaxTurnsExceeded",
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
    "LoopCall": ".loop",
    "LoopEvent": ".events",
    "LoopResult": ".loop",
    "MaxTurnsExceeded": ".loop",
    "TextDelta": ".events",
    "ToolCallDelta": ".events",
    "ToolCallFinished": ".events",
    "ToolCallStarted": ".events",
    "TurnFinished": ".events",
    "Usage": ".loop",
    "arun": ".conversation",
    "astream": ".streaming",
    "run": ".conversation",
    "stream": ".streaming",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
