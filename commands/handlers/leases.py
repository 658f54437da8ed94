"""Many agents on one plan: heartbeat and unclaim a lease, renumber a node.

`start` (loop.py) takes a lease; `heartbeat` extends it; `unclaim` gives it up
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

from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    clean,
    fix,
    next_,
    wait,
)
from leafwise.commands.core import lifecycle
from leafwise.commands.core.hints import agent_arg
from leafwise.commands.handlers.shared import change_list, get_node, record, set_fields, ttl_minutes, write
from leafwise.commands.registry import Ctx, Param, command
from leafwise.store import CLOSED, Node, Status
from leafwise.store import claims as leases
from leafwise.store.loader import read_node_file
from leafwise.store.writer import locked

ID = Param("node_id", "node id", positional=True, required=True)
TTL = Param("ttl", "lease length in minutes (default: the plan's claim_ttl_minutes, else 60)", type=float)


def _agent(ctx: Ctx, agent: str | None, line: str) -> str:
    name = clean(agent, 80) if agent else ""
    if not name:
        raise CommandError("missing_agent", "--agent must name the agent",
                           fix(ctx.cmd(line + " --agent <agent>"), "say who holds the lease"),
                           exit_code=EXIT_USAGE, category="usage")
    return name


def _held(ctx: Ctx, node_id: str, holder: str, expires: str, agent: str | None, tool: str,
          note: str = "") -> CommandError:
    """Exit 3: another agent's live lease; wait for it, or take other work."""
    until = f"until {expires}" if expires else "(assigned, no lease)"
    message = f"{node_id} is held by {holder} {until}{note}"
    other = ctx.cmd("next" + (f" --agent {agent_arg(agent)}" if agent else ""))
    return CommandError("claim_held", message, wait(f"{holder} holds {node_id} {until}", "held by another agent",
                                                    or_=other),
                        exit_code=EXIT_CONFLICT, category="held_by_other_agent", source=("node", node_id),
                        details={"holder": holder, "expires": expires or None},
                        mutation=Mutation(tool, "claim_held", False, message))


@command("heartbeat", "Extend an agent's lease on the task it works on (it is still alive).",
         mutating=True, tool="heartbeat_task", idempotent=True,
         params=(ID, Param("agent", "the agent's name (e.g. claude-1)", required=True), TTL))
def heartbeat(ctx: Ctx, node_id: str, agent: str, ttl: float | None = None) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    agent = _agent(ctx, agent, f"heartbeat {node_id}")
    minutes = ttl_minutes(plan, ttl)
    paths, now = ctx.paths(), ctx.clock()
    with locked(paths, node_id):
        claim = leases.read(paths, node_id)
        if claim and not claim.expired(now) and claim.agent != agent:
            raise _held(ctx, node_id, claim.agent, claim.expires, agent, "heartbeat_task")
        fresh = read_node_file(paths.node_file(node_id)).data or {}
        status, assignee = fresh.get("status"), fresh.get("assignee")
        if status in CLOSED:
            raise CommandError("closed", f"{node_id} is {status}; there is no lease to extend",
                               fix(ctx.cmd(f"next --agent {agent_arg(agent)}"), "take the next task"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                               mutation=Mutation("heartbeat_task", "heartbeat", False, f"node {status}"))
        ours = claim is not None and claim.agent == agent
        if not ours and not (status == Status.IN_PROGRESS and assignee == agent):
            if status == Status.IN_PROGRESS and assignee and claim is None:
                raise _held(ctx, node_id, str(assignee), "", agent, "heartbeat_task")
            raise CommandError("not_claimed", f"{agent} holds no lease on {node_id}; start it first",
                               fix(ctx.cmd(f"start {node_id} --agent {agent_arg(agent)}"), "take the lease"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id),
                               mutation=Mutation("heartbeat_task", "heartbeat", False, "no lease to extend"))
        renewed = leases.write(paths, node_id, agent, now, minutes, since=claim.since if ours else None)
    record(ctx, "heartbeat", node_id, {}, actor=agent, claim_expires=renewed.expires)
    lapsed = " (the lapsed lease is taken again)" if claim is None or claim.expired(now) else ""
    return Result({"id": node_id, "claim": renewed.as_dict()},
                  next_(ctx.cmd(f'complete {node_id} --summary "<summary>"'),
                        f"lease until {renewed.expires}: heartbeat again before then",
                        or_=ctx.cmd(f"heartbeat {node_id} --agent {agent_arg(agent)}")),
                  [f"{agent} holds {node_id} {node.title!r} until {renewed.expires}{lapsed}"],
                  Mutation("heartbeat_task", "heartbeat", True, "lease extended",
                           [{"id": node_id, "field": "claim.expires", "from": claim.expires if claim else None,
                             "to": renewed.expires}]))


def give_back(ctx: Ctx, node: Node, names: set[str] | None) -> dict[str, tuple[Any, Any]]:
    """Return a task to the picker: in progress → draft, and its assignee cleared when it
    is one of `names` (None: whoever it is). The caller holds the node's lock.

    The node is written before the lease file goes: a crash in between leaves
    a lease that expires, never an in-progress task assigned to nobody's lease.
    """
    def reset(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        values: dict[str, Any] = {}
        if row := lifecycle.transition("unclaim", doc.get("status")):
            values["status"] = row.target
        if doc.get("assignee") is not None and (names is None or doc.get("assignee") in names):
            values["assignee"] = None
        return set_fields(doc, values) if values else {}

    changes = write(ctx, node, reset, lock=False)
    leases.remove(ctx.paths(), node.id)
    return changes


@command("unclaim", "Give up the lease on a task; it goes back to draft for the picker.",
         mutating=True, tool="unclaim_task", idempotent=True,
         params=(ID, Param("agent", "the agent giving it up (another's live lease is refused)"),
                 Param("force", "take away another agent's live lease (a person's decision)", type=bool)))
def unclaim(ctx: Ctx, node_id: str, agent: str | None = None, force: bool = False) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    agent = clean(agent, 80) if agent else None
    paths, now = ctx.paths(), ctx.clock()
    with locked(paths, node_id):
        claim = leases.read(paths, node_id)
        fresh = read_node_file(paths.node_file(node_id)).data or {}
        if claim is not None:
            holder, expires, live = claim.agent, claim.expires, not claim.expired(now)
        elif fresh.get("status") == Status.IN_PROGRESS and fresh.get("assignee"):
            holder, expires, live = str(fresh["assignee"]), "", True  # assigned by hand: held, no expiry
        else:
            holder, expires, live = None, "", False
        if live and holder != agent and not force:
            raise _held(ctx, node_id, str(holder), expires, agent, "unclaim_task",
                        f" (a person can take it back: {ctx.cmd(f'unclaim {node_id} --force')})")
        changes = give_back(ctx, node, None if force else {n for n in (holder, agent) if n})
    applied = claim is not None or bool(changes)
    if applied:
        record(ctx, "unclaim", node_id, changes, actor=agent, holder=holder,
               forced=bool(force and live and holder != agent) or None)
    listed = change_list(node_id, changes)
    if claim is not None:
        listed.append({"id": node_id, "field": "claim", "from": holder, "to": None})
    what = (f"{holder}'s lease on {node_id} given up" if holder else f"{node_id} had no lease") + \
        ("; back to draft" if "status" in changes else "")
    return Result({"id": node_id, "holder": holder, "status": changes.get("status", (None, fresh.get("status")))[1],
                   "changes": listed},
                  next_(ctx.cmd("next" + (f" --agent {agent_arg(agent)}" if agent else "")),
                        "the task is free for the picker"),
                  [what], Mutation("unclaim_task", "unclaim", applied, what if applied else "nothing held it",
                                   listed))


# --- renumber -----------------------------------------------------------------
