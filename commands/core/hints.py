"""Next actions derived from plan state alone, so the same state gives the same hint.

`cmd` builds the full line an agent runs from a command's name and typed arguments
(`contract.CommandLine`: the CLI and the MCP server pass `Ctx.cmd`, which carries `--root`; the
canvas passes `registry.command_line`). Quoting is the builder's.
"""

from __future__ import annotations

from datetime import datetime

from leafwise.commands.contract import CommandLine, NextAction, clean, done, next_, placeholder, quote, wait
from leafwise.commands.text import plan_words
from leafwise.commands.core.picker import Pick
from leafwise.commands.core.readiness import (
    BLOCKED_KIND,
    CASCADE_KIND,
    CLOSED_KIND,
    HELD_KIND,
    LOOPED_KIND,
    MISSING_KIND,
    OPEN_CHILDREN_KIND,
    PROJECT_KIND,
    Blocker,
    blocker,
    holder,
    until,
)
from leafwise.store import Node, Plan, Status
from leafwise.store.claims import Claim
from leafwise.store.schema import decision_options

SUMMARY, REASON, AGENT = placeholder("summary"), placeholder("reason"), placeholder("agent")


WAIT_SECONDS = 300  # what a `Wait:` offers to block for: well under the cap (domain/waiting.py)


def _next_line(cmd: CommandLine, agent: str | None) -> str:
    return cmd("start", next=True, agent=agent) if agent else cmd("next")


def _waiting_line(cmd: CommandLine, agent: str | None) -> str:
    """The same call, blocking until work comes free (woken by the plan's writes): no polling."""
    return cmd("start", next=True, agent=agent, wait=WAIT_SECONDS) if agent else cmd("next", wait=WAIT_SECONDS)


def pick_hint(cmd: CommandLine, pick: Pick, agent: str | None) -> NextAction:
    """What to do after asking the picker (used by next, complete, progress, the canvas)."""
    if pick.node is not None:
        nid = pick.node.id
        if pick.resumed:
            mine = agent or AGENT
            return next_(cmd("complete", nid, summary=SUMMARY, agent=mine), pick.reason,
                         or_=cmd("block", nid, reason=REASON, agent=mine))
        # pick and claim in one step: agents that follow hints never race for the same task
        return next_(cmd("start", next=True, agent=agent or AGENT), f"{nid}: {pick.reason}")
    if pick.open_count == 0 and not pick.broken:  # a node file that does not load may hold open work
        if pick.empty:
            return next_(cmd("add", placeholder("title")), "the plan has no nodes yet")
        return done("every node is done or cancelled")
    if pick.owed:
        return owed_hint(cmd, pick.owed[0].id, agent, pick.reason)
    then, waiting = _next_line(cmd, agent), _waiting_line(cmd, agent)
    if pick.held:
        node, claim = pick.held[0]
        more = f" (and {len(pick.held) - 1} more held)" if len(pick.held) > 1 else ""
        return wait(f"{plan_words(claim.agent, 80)} holds {node.id} {until(claim)}{more}: it comes free when done "
                    f"or at the lease's end; then run {then}", pick.reason, or_=waiting)
    if pick.blocked:
        node = pick.blocked[0]
        if node.open_decision and decision_options(node.open_decision):
            return wait(f"a person answers the decision on {node.id} "
                        f"({cmd('decide', node.id, option=placeholder('N'))}); then run {then}", pick.reason,
                        or_=waiting)
        return wait(f"{node.id} is blocked ({plan_words(node.blocked_reason or 'no reason', 120)}); "
                    f"after {cmd('unblock', node.id)} run {then}", pick.reason, or_=waiting)
    if pick.broken:
        return wait(f"a person fixes {', '.join(quote(f) for f in pick.broken)} (see {cmd('validate')}); "
                    f"then run {then}", pick.reason, or_=waiting)
    return next_(cmd("validate"), pick.reason)


def owed_hint(cmd: CommandLine, node_id: str, agent: str | None, reason: str) -> NextAction:
    """A parent whose children are all closed, still open (finished apart: other clones' branches merged
    here, a `complete` stopped mid-cascade): an agent's `start --next` closes it on its way, a person's
    `repair` does."""
    if agent:
        return next_(cmd("start", next=True, agent=agent), f"{reason}; start --next closes {node_id} first")
    return next_(cmd("repair"), f"{reason}; repair closes {node_id}")


def node_hint(cmd: CommandLine, plan: Plan, node: Node, claims: dict[str, Claim], agent: str | None,
              now: datetime) -> NextAction:
    """The natural next step for one node, as `show` and `diagnose` suggest it."""
    nid = node.id
    found = blocker(plan, node, claims, agent)
    if node.status == Status.IN_PROGRESS and not node.children and not (found and found.kind == PROJECT_KIND):
        who = holder(node, claims)
        if not (who and who != agent):
            mine = who or agent
            return next_(cmd("complete", nid, summary=SUMMARY, agent=mine), "in progress",
                         or_=cmd("block", nid, reason=REASON, agent=mine))
    if found is None:
        return next_(cmd("start", nid, agent=agent or AGENT), "ready to start")
    return blocker_hint(cmd, plan, node, found, claims)


def blocker_hint(cmd: CommandLine, plan: Plan, node: Node, found: Blocker, claims: dict[str, Claim]) -> NextAction:
    """What to do about what keeps `node` from being handed out (`show`, `diagnose`, `start`'s refusal)."""
    nid = node.id
    if found.kind == CLOSED_KIND:
        return next_(cmd("next"), f"{nid} is {node.status}")
    if found.kind == BLOCKED_KIND:
        if node.open_decision and decision_options(node.open_decision):  # else `decide` refuses: unblock it
            return next_(cmd("decide", nid, option=1), "a decision is waiting for a person",
                         or_=cmd("diagnose", nid))
        return next_(cmd("unblock", nid), f"blocked: {plan_words(node.blocked_reason or 'no reason')}",
                     or_=cmd("diagnose", nid))
    if found.kind == HELD_KIND:
        return wait(f"{plan_words(found.ids[0], 80)} holds {nid} {until(claims[nid])}", "held by another agent")
    if found.kind == OPEN_CHILDREN_KIND:
        return next_(cmd("tree", nid), f"{len(found.ids)} open child node(s)")
    if found.kind == CASCADE_KIND:
        return owed_hint(cmd, nid, None, found.reason)
    if found.kind == PROJECT_KIND:  # start and complete refuse until a person fixes the file
        return next_(cmd("diagnose"), found.reason, or_=cmd("validate"))
    if found.kind == LOOPED_KIND:
        return next_(cmd("validate"), "its parents form a cycle: validate names the edit that cuts it")
    dep = found.ids[0]
    if found.kind == MISSING_KIND:
        if any(p.node == dep for p in plan.problems):  # the node exists, but its file does not load
            return next_(cmd("diagnose", dep), f"{clean(dep, 80)}'s file does not load: a person fixes it",
                         or_=cmd("validate"))
        return next_(cmd("edit", nid, remove=[f"depends_on={dep}"]),
                     f"depends on {clean(dep, 80)}, which does not exist: drop the dependency "
                     "(or add the node it means)", or_=cmd("validate"))
    return next_(cmd("show", dep), f"waits for {clean(dep, 80)}")


def approval_wait(cmd: CommandLine, what: str) -> NextAction:
    """The answer where a command from a plan file waits for the person's approval: a person's step.

    Never the approving line itself: an agent follows hints, and a clone's author wrote the command.
    `what` names the node or cycle (ids and cycle names only: no plan text, which could spell a
    command line); `leafwise trust` lists the commands with their hashes, and approving asks the
    person at a terminal (docs/security.md, "Approvals").
    """
    return wait(f"a person approves {what} ({cmd('trust')})",
                "only a person approves a command from a plan file, after reading it")
