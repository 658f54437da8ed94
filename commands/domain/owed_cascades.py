"""The cascade run over the whole plan: close every open parent whose children are all closed, deepest
first, as `complete` would have closed it on its way up.

Such a parent is left open when its children were finished apart: in clones whose branches were merged
here (each clone's cascade saw the other's child still open), or by a `complete` stopped mid-cascade.
The picker never hands one out (`readiness.CASCADE_KIND`); `start --next`, `team sync` and `repair`
close it here, each decision by the rule of `commands/core/cascade.py`, each write re-checked under
the node's lock.
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.core import lifecycle
from leafwise.commands.core.cascade import cascades, closing_status
from leafwise.commands.domain.nodes import patch, record, set_fields, write
from leafwise.commands.registry import Ctx
from leafwise.store import CLOSED, Node, Plan, Status


def unreadable(plan: Plan) -> list[str]:
    """Node files that do not load: while there is one, any parent might have an open child unseen."""
    return sorted({p.node for p in plan.problems if p.node})


def owed(plan: Plan) -> list[tuple[Node, Status]]:
    """The parents the cascade closes now, deepest first, each with its status after (a parent that
    closes may make its own parent owed: the walk sees it, as `complete`'s would)."""
    nodes = plan.nodes
    if not any(n.children and n.status not in CLOSED and all(nodes[c].status in CLOSED for c in n.children
                                                             if c in nodes) for n in nodes.values()):
        return []  # the usual plan: one pass, no walk (start --next asks on every call)
    status = {nid: n.status for nid, n in nodes.items()}
    out: list[tuple[Node, Status]] = []
    for node in sorted((n for n in nodes.values() if n.children and n.status not in CLOSED),
                       key=lambda n: (-n.depth, n.id)):
        if not cascades(node) or any(c not in status for c in node.children):
            continue
        target = closing_status(status[c] for c in node.children)
        if target is not None:
            status[node.id] = target
            out.append((node, target))
    return out


def close_owed(ctx: Ctx, plan: Plan, command: str, dry_run: bool = False, **journal: Any) -> list[dict[str, Any]]:
    """Close what `owed` names (nothing while a node file does not load); the cascade entries
    ({id, title, from, to}) written, each journalled as `command` with `journal`'s fields."""
    if unreadable(plan):
        return []
    closed, kept = [], set()
    for node, target in owed(plan):
        if kept.intersection(node.children):
            kept.add(node.id)  # a child that did not close after all: this parent waits for it
            continue
        if not dry_run:
            def close(doc: dict[str, Any], target: str = target) -> dict[str, tuple[Any, Any]]:
                return set_fields(doc, {"status": target}) \
                    if lifecycle.transition(f"cascade: {target}", doc.get("status")) else {}

            changes = write(ctx, node, close)
            if not changes:
                kept.add(node.id)  # it moved meanwhile: its new status stands
                continue
            record(ctx, command, node.id, changes, **journal)
        closed.append({"id": node.id, "title": node.title, "from": node.status, "to": target})
    return closed


def close_owed_in(ctx: Ctx, plan: Plan, actor: str | None) -> list[dict[str, Any]]:
    """An agent's step closing what is owed on its way (`complete`, under the pick lock): statuses only,
    journalled as the cascade by `actor`, the in-memory `plan` kept in step for the pick that follows."""
    from leafwise.store.writer import scalar_edits

    with scalar_edits():
        closed = close_owed(ctx, plan, "cascade", actor=actor, why="every child is closed")
    for entry in closed:
        patch(plan, entry["id"], {"status": entry["to"]})
    return closed
