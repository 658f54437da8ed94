"""The agent loop's commands: next, start, complete, block, unblock, cancel (commands/domain/claiming.py,
finishing.py and blocking.py do the work)."""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import blocking, claiming, finishing
from leafwise.commands.registry import ACTING, Ctx, Param, command

ID = Param("node_id", "node id", positional=True, required=True)
AGENT = ACTING
FORCE = Param("force", "a person overrides another agent's lease (journaled with who)", type=bool)
WAIT = Param("wait", "seconds (max 600) to block until a task is free, instead of polling", type=float)


@command("next", "The task to work on now (one plan state, one answer).", mutating=False,
         tool="get_next_task", idempotent=True,
         params=(AGENT, Param("explain", "say why the nearest other nodes were passed over", type=bool), WAIT))
def next_task(ctx: Ctx, agent: str | None = None, explain: bool = False, wait: float | None = None) -> Result:
    return claiming.next_task(ctx, agent, explain, wait)


# --next comes before --agent so a hint spells it `start --next --agent A`, as the docs do
@command("start", "Claim a task for an agent and mark it (and its draft ancestors) in progress; "
         "--next picks and claims in one step.",
         mutating=True, tool="start_task", idempotent=True,
         params=(Param("node_id", "node id (or --next)", positional=True),
                 Param("next", "pick the next task and claim it under one lock", type=bool),
                 Param("agent", "the agent's name", required=True),
                 Param("ttl", "lease length in minutes (default 60)", type=float), WAIT,
                 Param("offline", "team mode, remote unreachable: claim here; team sync pushes it", type=bool)))
def start(ctx: Ctx, node_id: str | None = None, agent: str = "", ttl: float | None = None,
          next: bool = False, wait: float | None = None, offline: bool = False) -> Result:  # noqa: A002
    return claiming.start(ctx, node_id, agent, ttl, next, wait, offline)


@command("complete", "Mark a task done with a summary; closed ancestors cascade; answers the next task.",
         mutating=True, tool="complete_task",
         params=(ID, Param("summary", "what was done (one or two sentences)", required=True), AGENT, FORCE))
def complete(ctx: Ctx, node_id: str, summary: str, agent: str | None = None, force: bool = False) -> Result:
    return finishing.complete(ctx, node_id, summary, agent, force)


@command("block", "Block a task with a reason (shown wherever the task is).", mutating=True,
         tool="block_task", idempotent=True,
         params=(ID, Param("reason", "why it cannot go on", required=True), AGENT, FORCE))
def block(ctx: Ctx, node_id: str, reason: str, agent: str | None = None, force: bool = False) -> Result:
    return blocking.block(ctx, node_id, reason, agent, force)


@command("unblock", "Unblock a task, restoring the status it had before; --note tells the agent why.",
         mutating=True, tool="unblock_task", idempotent=True,
         params=(ID, Param("note", "a word for the agent who takes the task next (shown until it is done)"),
                 AGENT))
def unblock(ctx: Ctx, node_id: str, note: str | None = None, agent: str | None = None) -> Result:
    return blocking.unblock(ctx, node_id, note, agent)


@command("cancel", "Cancel a node (and its open descendants) with a reason.", mutating=True,
         tool="cancel_node", destructive=True, idempotent=True,
         params=(ID, Param("reason", "why the work is dropped", required=True), AGENT))
def cancel(ctx: Ctx, node_id: str, reason: str, agent: str | None = None) -> Result:
    return blocking.cancel(ctx, node_id, reason)
