"""Dependencies and impact: what a node waits on, what waits on it, and how much work it holds up.

Two relations make work wait: `depends_on` (a node cannot start before the
nodes it depends on close, and neither can anything under it) and the
hierarchy (a parent cannot close before its children). A node that is stuck
therefore holds up:

- everything it is part of (its ancestors cannot close), and
- everything that depends on it or on one of those ancestors, with all their
  descendants (they cannot start), and so on, transitively.

`held_up()` counts the open leaves in that set, for many nodes at once; the
blocked view ranks by it. `critical_path()` is a release's longest chain of open
dependent leaves (networkx, imported when called). Pure functions over a `Plan`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from leafwise.commands.core.readiness import open_children, unmet_dependencies
from leafwise.store import CLOSED, Node, Plan

WAITS, UNFINISHED = 0, 1  # the two ways a node is held: cannot start, cannot close


@dataclass(frozen=True, slots=True)
class Link:
    """One edge of the dependency tree as a person reads it."""

    id: str
    via: str  # "depends on", "child", "dependent", "parent"
    missing: bool = False  # a depends_on entry naming no node


def dependents_index(plan: Plan) -> dict[str, list[str]]:
    """For every node id, the ids whose `depends_on` names it (in plan order)."""
    out: dict[str, list[str]] = {}
    for node in plan.nodes.values():
        for dep in node.depends_on:
            out.setdefault(dep, []).append(node.id)
    return out


def waits_on(plan: Plan, node_id: str) -> list[Link]:
    """What must close before this node can move: its dependencies, then its open children."""
    node = plan.nodes.get(node_id)
    if node is None:
        return []
    links = [Link(dep, "depends on", dep not in plan.nodes) for dep in node.depends_on]
    links += [Link(child, "child") for child in node.children
              if child in plan.nodes and plan.nodes[child].status not in CLOSED]
    return links


def waited_on_by(plan: Plan, node_id: str, dependents: dict[str, list[str]] | None = None) -> list[Link]:
    """What waits for this node: the nodes that depend on it, then its parent (while it is open)."""
    node = plan.nodes.get(node_id)
    if node is None:
        return []
    index = dependents if dependents is not None else dependents_index(plan)
    links = [Link(d, "dependent") for d in index.get(node_id, [])]
    if node.parent and node.parent in plan.nodes and node.status not in CLOSED:
        links.append(Link(node.parent, "parent"))
    return links


class Impact:
    """Held-up open leaves, memoised over the whole plan: build once, ask for many nodes.

    Each open leaf gets a bit; a node's held set is an int bitmask, so unions are cheap and
    shared sub-results (a common ancestor, a common dependent) are computed once.
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.dependents = dependents_index(plan)
        self._bit: dict[str, int] = {}
        for node in plan.nodes.values():
            if not node.children and node.status not in CLOSED:
                self._bit[node.id] = 1 << len(self._bit)
        self._memo: dict[tuple[str, int], int] = {}

    def held(self, node_id: str) -> int:
        """The bitmask of open leaves held up while `node_id` cannot go on (itself left out)."""
        if node_id not in self.plan.nodes:
            return 0
        return self._held(node_id, WAITS) & ~self._bit.get(node_id, 0)

    def count(self, node_id: str) -> int:
        return self.held(node_id).bit_count()

    def leaves(self, node_id: str) -> list[str]:
        mask = self.held(node_id)
        return [nid for nid, bit in self._bit.items() if mask & bit]

    def _held(self, start: str, how: int) -> int:
        """Iterative post-order over (node, how) states; a cycle contributes what is known so far."""
        memo = self._memo
        key = (start, how)
        if key in memo:
            return memo[key]
        nodes = self.plan.nodes
        visiting: set[tuple[str, int]] = set()
        stack: list[tuple[tuple[str, int], bool]] = [(key, False)]
        while stack:
            state, expanded = stack.pop()
            if state in memo:
                continue
            successors = self._next(nodes[state[0]], state[1])
            if not expanded:
                if state in visiting:  # a cycle: close it with what is known
                    continue
                visiting.add(state)
                stack.append((state, True))
                stack.extend((s, False) for s in successors if s not in memo and s not in visiting)
                continue
            mask = self._bit.get(state[0], 0)
            for s in successors:
                mask |= memo.get(s, 0)
            memo[state] = mask
            visiting.discard(state)
        return memo[key]

    def _next(self, node: Node, how: int) -> list[tuple[str, int]]:
        nodes = self.plan.nodes
        out: list[tuple[str, int]] = []
        if node.parent and node.parent in nodes:
            out.append((node.parent, UNFINISHED))
        out += [(d, WAITS) for d in self.dependents.get(node.id, ()) if nodes[d].status not in CLOSED]
        if how == WAITS:
            out += [(c, WAITS) for c in open_children(self.plan, node) if c in nodes]
        return out


@dataclass(frozen=True, slots=True)
class Ranked:
    node: Node
    holds_up: int  # open leaves held up, itself left out
    decision: bool  # an open decision (waits on a person)


def rank_stuck(plan: Plan, impact: Impact | None = None) -> list[Ranked]:
    """Blocked nodes and open decisions, the ones holding up the most open leaves first.

    Ties: decisions first (a person can act now), then the longest blocked, then the id.
    """
    engine = impact or Impact(plan)
    stuck = [n for n in plan.nodes.values() if n.status == "blocked" or n.open_decision]
    ranked = [Ranked(n, engine.count(n.id), bool(n.open_decision)) for n in stuck]
    ranked.sort(key=lambda r: (-r.holds_up, not r.decision,
                               str(r.node.data.get("blocked_since") or r.node.data.get("updated") or "~"),
                               r.node.id))
    return ranked


@dataclass(frozen=True, slots=True)
class CriticalPath:
    release: str | None
    path: list[str]  # open leaf ids, first to last
    cycle: bool = False  # the dependencies loop: no longest path exists


def critical_path(plan: Plan, release: str | None) -> CriticalPath:
    """The longest chain of open leaves in `release` that wait on one another through `depends_on`.

    A dependency on an epic means waiting for each of its open leaves; a leaf inherits the
    dependencies of its ancestors.
    """
    import networkx as nx

    leaves = [n for n in plan.nodes.values()
              if not n.children and n.status not in CLOSED and n.effective_release == release]
    graph = nx.DiGraph()
    graph.add_nodes_from(n.id for n in leaves)
    under: dict[str, list[str]] = {}

    def open_leaves(node_id: str) -> list[str]:
        if node_id not in under:
            node = plan.nodes[node_id]
            under[node_id] = [node_id] if not node.children and node.status not in CLOSED else [
                d.id for d in plan.descendants(node_id) if not d.children and d.status not in CLOSED]
        return under[node_id]

    for leaf in leaves:
        for holder in [leaf, *plan.ancestors(leaf.id)]:
            for dep in unmet_dependencies(plan, holder):
                if dep not in plan.nodes:  # unmet, but a missing node has no place on the path
                    continue
                if plan.nodes[dep].children:
                    gate = f"\0{dep}"  # one junction per epic instead of |epic| x |dependents| edges
                    for before in open_leaves(dep):
                        graph.add_edge(before, gate, weight=0)
                    graph.add_edge(gate, leaf.id, weight=1)
                else:
                    graph.add_edge(dep, leaf.id, weight=1)
    try:
        path = nx.dag_longest_path(graph, weight="weight", default_weight=1)
    except nx.NetworkXUnfeasible:
        return CriticalPath(release, [], cycle=True)
    return CriticalPath(release, [p for p in path if not p.startswith("\0")])


def chain_titles(plan: Plan, ids: Iterable[str]) -> list[str]:
    return [f"{i} {plan.nodes[i].title}" for i in ids if i in plan.nodes]
