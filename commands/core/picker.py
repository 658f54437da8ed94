"""The picker: one plan state, one answer. Pure functions over the model, O(n)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from leafwise.commands.core.cascade import cascades
from leafwise.commands.core.readiness import (
    blocker,
    effective_holds,
    holder,
    kept,
    project_blocker,
    unchanged_plan,
    until,
)
from leafwise.commands.core.release_needs import needed_by, rank_of
from leafwise.store import CLOSED, PRIORITIES, Node, Plan, Status, priority_rank
from leafwise.store.claims import Claim

__all__ = ["Pick", "effective_holds", "holder", "order_key", "pick", "unchanged_plan", "until"]  # holds: re-exported for callers

# Bound once: reading an enum member (`Status.BLOCKED`) costs ~150 ns on Python 3.11, and
# the loops below run once per node of the plan on every `leafwise next`.
_BLOCKED, _IN_PROGRESS = Status.BLOCKED, Status.IN_PROGRESS


@dataclass(slots=True)
class Pick:
    node: Node | None  # the task to hand out, if any
    reason: str  # why this one, or why none
    resumed: bool = False  # the agent's own task in progress
    blocked: list[Node] = field(default_factory=list)  # open blocked nodes, in pick order
    held: list[tuple[Node, Claim]] = field(default_factory=list)  # held by other agents
    open_count: int = 0
    empty: bool = False  # the plan has no nodes at all
    passed: list[dict[str, Any]] = field(default_factory=list)  # --explain
    broken: list[str] = field(default_factory=list)  # node files that do not load, when they hold work back
    owed: list[Node] = field(default_factory=list)  # with no task: parents whose close the cascade owes


def order_key(plan: Plan, needed: dict[str, int] | None = None):
    """Pick order: release, then a person's priority (`store.priority_rank`: unset is normal), deepest
    first, title, id. A task an earlier release waits on (`release_needs.needed_by`) takes the place
    of that release: it goes out before its own release's work, among the waiting release's."""
    rank = plan.project.release_rank()
    last = len(rank)
    needed = needed_by(plan) if needed is None else needed

    def key(node: Node):
        return (min(rank.get(node.effective_release, last), needed.get(node.id, last)),
                priority_rank(node.data.get("priority")), -node.depth, node.title.casefold(), node.id)

    return key


def release_place(plan: Plan, node: Node, needed: dict[str, int] | None = None) -> tuple[int, str]:
    """The node's place in release order and how to say it: its own release, or the earlier one that
    waits on it."""
    rank = plan.project.release_rank()
    own = rank_of(node, rank)
    need = (needed_by(plan) if needed is None else needed).get(node.id, own)
    if need < own:
        waiting = plan.project.releases[need].id
        return need, f"needed by release {waiting} (a task of {waiting} waits on it)"
    return own, f"earliest release ({node.effective_release or 'no release'})"


def _why_not(plan: Plan, node: Node, claims: dict[str, Claim], agent: str | None) -> str | None:
    """Why the node cannot be handed out, or None if it can (the rule of `readiness.blocker`)."""
    found = blocker(plan, node, claims, agent)
    return found.reason if found else None


def pick(plan: Plan, claims: dict[str, Claim], agent: str | None = None, *,
         explain: bool = False, explain_limit: int = 10, exclude: frozenset[str] | set[str] = frozenset()) -> Pick:
    """Choose the next task for `agent`; `claims` are the holds from `effective_holds`.

    `exclude`: nodes not to hand out: parents that an unreadable node file names (a child we cannot
    see may be open), and tasks `start --next` just failed to claim (its own included).
    """
    nodes = plan.nodes
    if plan.problems and (stop := project_blocker(plan)) is not None:  # then start and complete refuse
        return Pick(None, stop.reason, open_count=sum(1 for n in nodes.values() if n.status not in CLOSED),
                    empty=not nodes, broken=list(stop.ids))
    prepared = _prepared(plan)
    if prepared is not None:
        needed, place = prepared.needed, prepared.place
        key: Any = lambda node: place[node.id]  # noqa: E731 - the place in pick order, derived once
        own_pool: Any = prepared.in_progress_leaves
    else:
        needed = needed_by(plan)
        key = order_key(plan, needed)
        own_pool = nodes.values()
    if agent:
        own = [n for n in own_pool if n.status == _IN_PROGRESS and not n.children
               and holder(n, claims) == agent and n.id not in exclude]
        if own:
            node = min(own, key=key)
            return Pick(node, f"your task in progress: resume {node.id}", resumed=True,
                        open_count=prepared.open_count if prepared else
                        sum(1 for n in nodes.values() if n.status not in CLOSED))
    if prepared is not None:
        chosen, blocked, held, open_count = prepared.choose(claims, agent, exclude)
    else:
        candidates, blocked, held, open_count = scan(plan, claims, agent, exclude)
        leaves = [n for n in candidates if not n.children]
        pool = leaves or candidates
        chosen = min(pool, key=key) if pool else None
        blocked.sort(key=key)
    held.sort(key=lambda pair: (pair[1].expires, key(pair[0])))
    # While a node file does not load, no cascade closes (a parent may have a child unseen): its hint is the file's
    owed = sorted(_owed(plan, claims, agent), key=key) if chosen is None and not any(
        p.node for p in plan.problems) else []
    if chosen is not None:
        kind = "leaf" if not chosen.children else "parent whose children are all closed"
        prio = chosen.data.get("priority")
        reason = release_place(plan, chosen, needed)[1] + ", " + \
            (f"{prio} priority, " if prio in PRIORITIES else "") + f"deepest {kind}, then title order"
    else:
        reason = _none_reason(open_count, owed, held, blocked)
    broken: list[str] = []
    if chosen is None and plan.problems:
        broken = sorted({p.file for p in plan.problems if p.file and p.node})[:5]
        if broken and not held and not blocked:
            reason = f"the remaining work waits on node files that do not load ({', '.join(broken)})"
    if not nodes:
        reason = f"no node file loads ({', '.join(broken)})" if broken else "the plan has no nodes yet"
    result = Pick(chosen, reason, blocked=blocked, held=held, open_count=open_count, empty=not nodes,
                  broken=broken, owed=owed)
    if explain:
        result.passed = explain_passed(plan, claims, agent, chosen, explain_limit)
    return result


def _none_reason(open_count: int, owed: list[Node], held: list, blocked: list[Node]) -> str:
    """Why no task is handed out."""
    if open_count == 0:
        return "every node is done or cancelled"
    if owed:  # first: closing it may free the work that depends on it
        more = f" (and {len(owed) - 1} more)" if len(owed) > 1 else ""
        return f"every child of {owed[0].id}{more} is closed: the cascade closes it, no one works it"
    if held:
        return "the remaining work is held by other agents"
    if blocked:
        return "the remaining work is blocked or waits on blocked work"
    return "no open node is ready: dependencies or children are still open"


def _owed(plan: Plan, claims: dict[str, Claim], agent: str | None) -> list[Node]:
    """The open parents the cascade owes its close: readiness's `cascade_owed`, its checks in its order
    inlined (a `blocker` call per parent costs a third of a second on 11,100 nodes)."""
    nodes, looped = plan.nodes, plan.looped()
    return [n for n in nodes.values() if n.children and n.status not in CLOSED and n.status != _BLOCKED
            and n.id not in looped and not ((c := claims.get(n.id)) is not None and c.agent != agent)
            and all((k := nodes.get(x)) is not None and k.status in CLOSED for x in n.children) and cascades(n)]


def _prepared(plan: Plan) -> Prepared | None:
    return kept(plan, "pick order", Prepared.of)


def prepare(plan: Plan) -> None:
    """Derive the pick order of a vouched-for plan now, ahead of the call that needs it."""
    _prepared(plan)


@dataclass(slots=True)
class Prepared:
    """What a pick derives from the plan alone, in pick order; a pick then only applies the holds.
    The same rules as `scan` (tests/core/test_picker.py proves both pick alike)."""

    nodes: dict[str, Node]
    needed: dict[str, int]
    place: dict[str, int]  # open node id -> its place in pick order
    ready_leaves: list[Node]  # open, not blocked, not looped, every child and dependency closed
    ready_parents: list[Node]
    blocked: list[Node]
    workable: frozenset[str]  # open, not blocked, not looped: a hold on one of these is "held"
    in_progress_leaves: list[Node]
    open_count: int

    @classmethod
    def of(cls, plan: Plan) -> Prepared:
        needed = needed_by(plan)
        order = order_key(plan, needed)
        ranked = sorted((n for n in plan.nodes.values() if n.status not in CLOSED), key=order)
        place = {n.id: i for i, n in enumerate(ranked)}
        ready, blocked, _held, open_count = scan(plan, {}, None)
        ready.sort(key=lambda n: place[n.id])
        blocked.sort(key=lambda n: place[n.id])
        looped = plan.looped()
        return cls(plan.nodes, needed, place, [n for n in ready if not n.children], [n for n in ready if n.children], blocked,
                   frozenset(n.id for n in ranked if n.status != _BLOCKED and n.id not in looped),
                   [n for n in ranked if n.status == _IN_PROGRESS and not n.children], open_count)

    def choose(self, claims: dict[str, Claim], agent: str | None, exclude: frozenset[str] | set[str]
               ) -> tuple[Node | None, list[Node], list[tuple[Node, Claim]], int]:
        """(the task to hand out, the blocked nodes, the held ones, the open count) under `claims`."""
        held = [(self.nodes[nid], claim) for nid, claim in claims.items()
                if nid in self.workable and claim.agent != agent]
        for pool in (self.ready_leaves, self.ready_parents):
            for node in pool:
                claim = claims.get(node.id)
                if (claim is None or claim.agent == agent) and not (exclude and node.id in exclude):
                    return node, list(self.blocked), held, self.open_count
        return None, list(self.blocked), held, self.open_count


def scan(plan: Plan, claims: dict[str, Claim], agent: str | None,
         exclude: frozenset[str] | set[str] = frozenset()) -> tuple[list[Node], list[Node], list[tuple[Node, Claim]], int]:
    """One pass over the plan: (ready nodes not excluded, blocked nodes, held nodes, open count).

    The rules of `readiness.blocker`, inlined without building reasons: this loop is the hot path
    of `leafwise next` (tests/core/test_readiness.py proves both agree on generated plans).
    """
    nodes = plan.nodes
    candidates: list[Node] = []
    blocked: list[Node] = []
    held: list[tuple[Node, Claim]] = []
    open_count = 0
    looped = plan.looped()
    for node in nodes.values():
        if node.status in CLOSED:
            continue
        open_count += 1
        if node.status == _BLOCKED:
            blocked.append(node)
            continue
        if looped and node.id in looped:
            continue
        claim = claims.get(node.id)
        if claim is not None and claim.agent != agent:
            held.append((node, claim))
            continue
        if node.children and (any((child := nodes.get(c)) is None or child.status not in CLOSED
                                  for c in node.children) or cascades(node)):
            continue  # open children, or every child closed and the cascade owes its close
        deps = node.data.get("depends_on")
        if deps and any((dep := nodes.get(d)) is None or dep.status not in CLOSED for d in deps):
            continue
        if exclude and node.id in exclude:
            continue
        candidates.append(node)
    return candidates, blocked, held, open_count


def explain_passed(plan: Plan, claims: dict[str, Claim], agent: str | None, chosen: Node | None,
                   limit: int) -> list[dict[str, Any]]:
    """For the nearest open nodes in pick order, why each was passed over."""
    key = order_key(plan)
    others = sorted((n for n in plan.nodes.values() if n.status not in CLOSED and n is not chosen), key=key)
    out: list[dict[str, Any]] = []
    for node in others[:limit]:
        why = _why_not(plan, node, claims, agent)
        if why is None:
            if chosen is not None and chosen.children == [] and node.children:
                why = "leaf-first: a leaf is available"
            elif chosen is not None:
                why = _later_reason(plan, chosen, node)
            else:  # pragma: no cover - no chosen means every node has a reason
                why = "not ready"
        out.append({"id": node.id, "title": node.title, "status": node.status, "why": why})
    return out


def _later_reason(plan: Plan, chosen: Node, other: Node) -> str:
    a, b = release_place(plan, chosen)[0], release_place(plan, other)[0]
    if a != b:
        return f"later release ({other.effective_release or 'none'} after {chosen.effective_release})"
    pa = priority_rank(chosen.data.get("priority"))
    pb = priority_rank(other.data.get("priority"))
    if pa != pb:
        return f"lower priority ({other.data.get('priority') or 'normal'})"
    if chosen.depth != other.depth:
        return f"shallower (level {other.depth} vs {chosen.depth})"
    return "after it in title order"
