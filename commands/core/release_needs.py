"""Dependencies across releases: which earlier release waits on a node of a later one.

A node's release is its `effective_release` (its own `release`, or its epic's: `store/loader.py`
`index`). When an open task of R1 depends on a task of R2, R1 cannot finish before that task: the
task is *needed by* R1. Depending on a parent waits on every node under it, and a needed node's own
dependencies are needed too (transitively). One rule for the picker (a needed task is handed out with
the release that waits on it), the forecast (the waiting release's remaining work counts it) and the
validator (the dependency is a warning).
"""

from __future__ import annotations

from leafwise.store import CLOSED, Node, Plan, Status


def rank_of(node: Node, rank: dict[str, int]) -> int:
    """Where the node's own release stands in the plan's release order (no release or an unknown
    one: after every release)."""
    return rank.get(node.effective_release, len(rank))  # type: ignore[arg-type]


def waiting_ranks(plan: Plan, *, open_only: bool = True) -> dict[str, set[int]]:
    """Node id -> the ranks of the earlier releases that wait on it (its own release later than each).
    `open_only`: only open waiters and open blockers count (what is still to do: the picker);
    otherwise every node but a cancelled one (a release's whole scope: the forecast)."""
    rank = plan.project.release_rank()
    if not rank:
        return {}
    nodes = plan.nodes
    skip = CLOSED if open_only else (Status.CANCELLED,)
    waiters = [n for n in nodes.values() if n.data.get("depends_on") and n.status not in skip]
    if not waiters:
        return {}
    seen: dict[str, set[int]] = {}
    # (node id, rank that waits on it): each node takes each rank once, so the walk is bounded by
    # releases × (nodes + dependencies), a dependency cycle included.
    todo = [(d, rank_of(n, rank)) for n in waiters for d in n.depends_on]
    while todo:
        nid, need = todo.pop()
        node = nodes.get(nid)
        if node is None or node.status in skip or need >= rank_of(node, rank) or need in seen.get(nid, ()):
            continue
        seen.setdefault(nid, set()).add(need)
        todo.extend((c, need) for c in node.children)
        todo.extend((d, need) for d in node.depends_on)
    return seen


def needed_by(plan: Plan) -> dict[str, int]:
    """Open node id -> the rank of the earliest release that waits on it, for nodes whose own release
    is later (the place the picker gives it)."""
    return {nid: min(ranks) for nid, ranks in waiting_ranks(plan).items()}


def later_dependencies(plan: Plan, node: Node, rank: dict[str, int]) -> list[Node]:
    """The open nodes this open node depends on directly whose release comes after its own."""
    if node.status in CLOSED or node.effective_release not in rank:
        return []
    own = rank[node.effective_release]  # type: ignore[index]
    out = []
    for dep_id in dict.fromkeys(node.depends_on):
        dep = plan.nodes.get(dep_id)
        if dep is not None and dep.status not in CLOSED and rank_of(dep, rank) > own:
            out.append(dep)
    return out
