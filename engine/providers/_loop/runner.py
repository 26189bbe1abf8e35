"""What performs a conversation's effects: the client's create method and the batch strategy.

:class:`Runner` is made once per conversation by ``_start`` (:mod:`.conversation`);
:func:`execute` and :func:`aexecute` run one reply's batch of calls the same way for
every driver (``run``/``arun`` and ``stream``/``astream``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..._calling import Decision, Deferral

if TYPE_CHECKING:
    from ..._calltypes import ToolCall, ToolResult
    from ..._identity import AuthIdentity
    from ..._registry import ToolRegistry
    from .loop import Api

__all__ = ["Runner", "aexecute", "execute"]


@dataclass(frozen=True)
class Runner:
    """What performs the effects: the client's create method and the batch strategy."""

    create: Callable[..., Any]
    registry: ToolRegistry
    parallel: bool
    limit: int | None
    auth: AuthIdentity | None = None
    context: Mapping[str, Any] | None = None
    api: Api | None = None
    """The API adapter the conversation speaks (for drivers that read replies themselves)."""
    turns_done: int = 0
    """Requests already made: 0, or the paused turn of a resumed conversation."""


def execute(
    runner: Runner, batch: list[ToolCall], decided: Mapping[str, Decision]
) -> list[ToolResult]:
    """Run one reply's calls with ``call_many`` (one call alone: no event loop to start).

    ``decided``: the decisions already made for calls of this batch (a resumed
    turn); a call whose approval cannot be had now answers ``approval_pending``.
    """
    registry, auth, context = runner.registry, runner.auth, runner.context
    deferral = Deferral(decided)
    if len(batch) == 1:
        one = batch[0]
        return [
            registry.call(
                one.name,
                one.arguments,
                call_id=one.call_id,
                auth=auth,
                context=context,
                deferral=deferral,
            )
        ]
    strategy: Literal["parallel", "sequential"] = "parallel" if runner.parallel else "sequential"
    return registry.call_many(
        batch, strategy=strategy, limit=runner.limit, auth=auth, context=context, deferral=deferral
    )


async def aexecute(
    runner: Runner, batch: list[ToolCall], decided: Mapping[str, Decision]
) -> list[ToolResult]:
    """Run one reply's calls with ``acall_many``; cancelling the caller cancels them."""
    strategy: Literal["parallel", "sequential"] = "parallel" if runner.parallel else "sequential"
    return await runner.registry.acall_many(
        batch,
        strategy=strategy,
        limit=runner.limit,
        auth=runner.auth,
        context=runner.context,
        deferral=Deferral(decided),
    )
