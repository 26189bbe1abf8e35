"""The model tool-call loop, written once for both OpenAI APIs and both kinds of client.

``loop``: the loop itself; ``chat`` and ``responses``: each API's messages and items;
``conversation``: ``run`` and ``arun``, a conversation that calls the tools; ``logs``: the client's
logs hide the registry's secrets while a loop runs.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .conversation import arun, run
    from .loop import LoopCall, LoopResult, MaxTurnsExceeded, Usage

__all__ = [
    "LoopCall",
    "LoopResult",
    "MaxTurnsExceeded",
    "Usage",
    "arun",
    "run",
]

_EXPORTS: dict[str, str] = {
    "LoopCall": ".loop",
    "LoopResult": ".loop",
    "MaxTurnsExceeded": ".loop",
    "Usage": ".loop",
    "arun": ".conversation",
    "run": ".conversation",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
