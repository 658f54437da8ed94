"""The cascade rule: which status a parent takes from its children's statuses.

`complete` (and `cancel`) walk the ancestors of the node they closed and
`repair` re-runs the rule over the whole plan; both ask these functions, so a
parent closes the same way whichever command got there. `would_close` is that
walk on statuses held in memory: what a close would cascade to, asked before it
runs (the canvas's undo weighs it before cancelling a node it added).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from leafwise.commands.core.lifecycle import transition
from leafwise.store import CLOSED, Node, Status


def cascades(parent: Node) -> bool:
    """Whether the rule may close this parent: the lifecycle lets a cascade close it, not `cascade: manual`."""
    return parent.cascade != "manual" and transition("cascade: done", parent.status) is not None


def closing_status(child_statuses: Iterable[str | None]) -> Status | None:
    """Done when every child is closed and one is done, cancelled when all are; else None.

    No children: None (a leaf is closed by hand, never by the rule).
    """
    statuses = list(child_statuses)
    if not statuses or any(s not in CLOSED for s in statuses):
        return None
    return Status.DONE if Status.DONE in statuses else Status.CANCELLED


def would_close(nodes: Mapping[str, Node], node_id: str, status: Status) -> list[tuple[Node, Status]]:
    """The ancestors the cascade closes once `node_id` takes `status`, nearest first, each with the status
    it closes to: the walk `complete` and `cancel` make, on the statuses `nodes` holds (a child missing
    from `nodes` counts as draft; a loop or a missing parent ends the walk)."""
    status_of: dict[str, str] = {node_id: status}
    closed: list[tuple[Node, Status]] = []
    seen = {node_id}
    node = nodes.get(node_id)
    while node is not None and node.parent and node.parent not in seen and node.parent in nodes:
        seen.add(node.parent)
        node = nodes[node.parent]
        if not cascades(node):
            break
        target = closing_status(status_of.get(c, nodes[c].status if c in nodes else Status.DRAFT)
                                for c in node.children)
        if target is None:
            break
        status_of[node.id] = target
        closed.append((node, target))
    return closed
