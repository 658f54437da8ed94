"""Many agents on one plan: heartbeat and unclaim a lease (commands/domain/holds.py does the work).

`start` (agent_loop.py) takes a lease; `heartbeat` extends it; `unclaim` gives it up
and hands the task back to the picker. Every step re-reads the claim and the
node file under the node's lock, so racing agents see one order of events.

Ids across worktrees: `add` numbers new nodes from a counter that every
worktree of a clone shares (store/writer.py `create_numbered`), so parallel
branches of one clone never reuse an id. Clones on different machines still
can: git then reports an add/add conflict in `nodes/<ID>.yaml`; `validate`
reports it (`with_merge_conflicts`) and `renumber ID` splits the file, the
incoming node taking a fresh id. See docs/concurrency.md.
"""

from __future__ import annotations

from leafwise.commands.contract import Result
from leafwise.commands.domain import holds
from leafwise.commands.registry import ACTING, Ctx, Param, command

ID = Param("node_id", "node id", positional=True, required=True)
TTL = Param("ttl", "lease length in minutes (default: the plan's claim_ttl_minutes, else 60)", type=float)


@command("heartbeat", "Extend an agent's lease on the task it works on (it is still alive).",
         mutating=True, tool="heartbeat_task", idempotent=True,
         params=(ID, Param("agent", "the agent's name", required=True), TTL))
def heartbeat(ctx: Ctx, node_id: str, agent: str, ttl: float | None = None) -> Result:
    return holds.heartbeat(ctx, node_id, agent, ttl)


@command("unclaim", "Give up the lease on a task; it goes back to draft for the picker.",
         mutating=True, tool="unclaim_task", idempotent=True,
         params=(ID, ACTING,
                 Param("force", "take away another agent's live lease (a person's decision)", type=bool)))
def unclaim(ctx: Ctx, node_id: str, agent: str | None = None, force: bool = False) -> Result:
    return holds.unclaim(ctx, node_id, agent, force)
