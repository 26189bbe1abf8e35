"""The model tool-call loop, written once for both OpenAI APIs and both kinds of client.

``loop``: the turns; ``records``: what the loop hands back and reads; ``pause``: a
conversation paused for approvals and the state that resumes it; ``chat`` and
``responses``: each API's messages and items; ``conversation``: ``run`` and ``arun``,
a conversation that calls the tools; ``logs``: the client's logs hide the registry's
secrets while a loop runs.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .conversation import arun, run
    from .pause import ResumeError
    from .records import Interruption, LoopCall, LoopResult, MaxTurnsExceeded, Usage

__all__ = [
    "Interruption",
    "LoopCall",
    "LoopResult",
    "MaxTurnsExceeded",
    "ResumeError",
    "Usage",
    "arun",
    "run",
]

_EXPORTS: dict[str, str] = {
    "Interruption": ".records",
    "LoopCall": ".records",
    "LoopResult": ".records",
    "MaxTurnsExceeded": ".records",
    "ResumeError": ".pause",
    "Usage": ".records",
    "arun": ".conversation",
    "run": ".conversation",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
