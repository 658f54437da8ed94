"""Readiness: whether a node may be handed to an agent now, and if not, what is in the way.

The one home of these rules. The picker, the hints, `start`, `complete` and `diagnose` all ask
here, so "ready" means the same thing wherever it is shown:

- a closed node (done, cancelled) is not work; a blocked one waits for `unblock` or a decision;
- a node another agent holds is theirs (`holder`, from the holds `effective_holds` builds);
- a node in or under a parent cycle is no work: its hierarchy is broken until `validate`'s Fix;
- a parent is work only once every child is closed, and then only when it closes by hand
  (`cascade: manual`): one the cascade closes is owed its close (`cascade_owed`: its children were
  finished apart, e.g. in clones merged here), never an agent's task;
- a dependency is met only by a node that exists and is closed: a dependency on a node the plan
  does not have (a typo, a file that does not load) is unmet, never satisfied;
- while project.yaml does not load, nothing is ready: releases, the id prefix and settings are
  guesses, and `start` and `complete` refuse until a person fixes the file.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterator, TypeVar

from leafwise.commands.core.cascade import cascades
from leafwise.commands.text import plan_words
from leafwise.store import CLOSED, Node, Plan, Problem, Status
from leafwise.store.claims import Claim

_BLOCKED, _IN_PROGRESS = Status.BLOCKED, Status.IN_PROGRESS  # bound once: read per node on `next`

CLOSED_KIND = "closed"
BLOCKED_KIND = "blocked"
HELD_KIND = "held"
OPEN_CHILDREN_KIND = "open_children"
CASCADE_KIND = "cascade_owed"
UNMET_KIND = "unmet_dependency"
MISSING_KIND = "missing_dependency"
LOOPED_KIND = "parent_cycle"
PROJECT_KIND = "project_unreadable"

PROJECT_FILE = ".leafwise/project.yaml"


@dataclass(frozen=True, slots=True)
class Blocker:
    """What keeps a node from being handed out."""

    kind: str  # one of the *_KIND names above
    reason: str  # words for a person or an agent
    ids: tuple[str, ...] = ()  # what is in the way: children, dependencies, or the holder's name


def project_unreadable(plan: Plan) -> Problem | None:
    """project.yaml's first error, if it has one: then releases, prefix and settings are guesses."""
    return next((p for p in plan.problems if p.file == PROJECT_FILE and p.severity == "error"), None)


def project_blocker(plan: Plan) -> Blocker | None:
    """What holds every task back while project.yaml does not load, with the file and line."""
    broken = project_unreadable(plan)
    if broken is None:
        return None
    return Blocker(PROJECT_KIND, f"{PROJECT_FILE}:{broken.line or 1} does not load ({broken.message}): "
                   "a person fixes it", (PROJECT_FILE,))


def open_children(plan: Plan, node: Node) -> list[str]:
    """The node's children that are still open (a child the plan cannot find counts as open)."""
    nodes = plan.nodes
    return [c for c in node.children if (child := nodes.get(c)) is None or child.status not in CLOSED]


def unmet_dependencies(plan: Plan, node: Node) -> list[str]:
    """The dependencies not yet closed, in the order written; one on a missing node is UNMET."""
    nodes = plan.nodes
    return [d for d in node.depends_on if (dep := nodes.get(d)) is None or dep.status not in CLOSED]


def hold_from(node_id: str, lease: Claim | None, now: datetime, status: Any, assignee: Any,
              is_leaf: bool, stamp: str = "") -> Claim | None:
    """The one rule of who holds a task, from its lease file and its fields.

    A lease file decides when there is one: live, it holds; expired, nothing holds the task (it
    is free for `next`). Without any lease file, an in-progress leaf with an assignee (a person
    marked it so) is the assignee's until they or `unclaim --force` give it back: a hold with no
    expiry (""). A parent's assignee holds nothing: a parent is closed by its children.
    """
    if lease is not None:
        return None if lease.expired(now) else lease
    if status == _IN_PROGRESS and assignee and is_leaf:
        return Claim(node_id, str(assignee), stamp, stamp, "")
    return None


T = TypeVar("T")
# The plan a caller vouches for (the MCP server's warm plan, unchanged while its watcher says so), and
# what was derived from that plan alone, kept for the next call on that very object.
_VOUCHED: ContextVar[tuple[Plan, dict[str, Any]] | None] = ContextVar("vouched_plan", default=None)


@contextmanager
def unchanged_plan(plan: Plan, memo: dict[str, Any]) -> Iterator[None]:
    """Within, `plan` (this object only) is taken as unchanged since the calls that filled `memo`:
    what `kept` derives from it is derived once. The caller gives a new `memo` with every new plan."""
    token = _VOUCHED.set((plan, memo))
    try:
        yield
    finally:
        _VOUCHED.reset(token)


def vouch(plan: Plan, memo: dict[str, Any]) -> None:
    """`unchanged_plan` for the rest of the current context: the loop server runs each call in a
    context of its own (`contextvars.copy_context`), so the vouching ends with the call."""
    _VOUCHED.set((plan, memo))


def changed(plan: Plan) -> None:
    """`plan` was patched (`commands/domain/nodes.patch`): nothing derived before holds for it."""
    vouched = _VOUCHED.get()
    if vouched is not None and vouched[0] is plan:
        _VOUCHED.set(None)


def kept(plan: Plan, name: str, derive: Callable[[Plan], T]) -> T | None:
    """`derive(plan)`, kept under `name` while `plan` is vouched for (`unchanged_plan`); None when
    it is not (derive it yourself)."""
    vouched = _VOUCHED.get()
    if vouched is None or vouched[0] is not plan:
        return None
    memo = vouched[1]
    if name not in memo:
        memo[name] = derive(plan)
    return memo[name]


def _in_progress(plan: Plan) -> list[Node]:
    return [n for n in plan.nodes.values() if n.status == _IN_PROGRESS]


def effective_holds(plan: Plan, claims: dict[str, Claim], now: datetime) -> dict[str, Claim]:
    """Who holds what over the whole plan: `hold_from` for every lease and every node."""
    holds = {k: c for k, c in claims.items() if not c.expired(now)}
    working = kept(plan, "in progress", _in_progress)
    for node in plan.nodes.values() if working is None else working:
        if node.status == _IN_PROGRESS and node.id not in claims:  # the only nodes an assignment can hold
            stamp = str(node.data.get("updated") or "")
            hold = hold_from(node.id, None, now, node.status, node.assignee, not node.children, stamp)
            if hold is not None:
                holds[node.id] = hold
    return holds


def holder(node: Node, holds: dict[str, Claim]) -> str | None:
    """Who holds the node now, given the holds from `effective_holds`."""
    claim = holds.get(node.id)
    return claim.agent if claim else None


def until(claim: Claim) -> str:
    return f"until {claim.expires}" if claim.expires else "(assigned, no lease)"


def blocker(plan: Plan, node: Node, holds: dict[str, Claim], agent: str | None = None) -> Blocker | None:
    """What keeps `node` from `agent` now, most fundamental first; None: it may be handed out.

    `holds` are the holds from `effective_holds`; a hold of `agent` itself is no obstacle.
    """
    if node.status in CLOSED:
        return Blocker(CLOSED_KIND, f"{node.status}")
    if plan.problems and (broken := project_blocker(plan)) is not None:
        return broken
    if node.status == _BLOCKED:
        return Blocker(BLOCKED_KIND, f"blocked: {node.blocked_reason or 'no reason given'}")
    if node.id in plan.looped():
        return Blocker(LOOPED_KIND, "its parents form a cycle (run validate)")
    claim = holds.get(node.id)
    if claim is not None and claim.agent != agent:
        return Blocker(HELD_KIND, f"held by {plan_words(claim.agent, 80)} {until(claim)}", (claim.agent,))
    kids = open_children(plan, node)
    if kids:
        return Blocker(OPEN_CHILDREN_KIND, f"has {len(kids)} open child node(s), e.g. {kids[0]}", tuple(kids))
    if node.children and cascades(node):
        return Blocker(CASCADE_KIND, "every child is closed: the cascade closes it (no one works it)")
    unmet = unmet_dependencies(plan, node)
    missing = [d for d in unmet if d not in plan.nodes]
    if missing:
        return Blocker(MISSING_KIND, f"depends on {missing[0]}, which does not exist (run validate)",
                       tuple(missing))
    if unmet:
        return Blocker(UNMET_KIND, f"depends on {unmet[0]} ({plan.nodes[unmet[0]].status})", tuple(unmet))
    return None
