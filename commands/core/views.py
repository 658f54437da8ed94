"""How nodes read to an agent and a person: status marks, a task's view."""

from __future__ import annotations

from typing import Any

from leafwise.store import Node, Plan, Status


def task_view(plan: Plan, node: Node) -> dict[str, Any]:
    chain = list(reversed(plan.ancestors(node.id)))
    return {
        "id": node.id, "title": node.title, "status": node.status,
        "release": node.effective_release, "path": [a.id for a in chain],
        "ancestors": [{"id": a.id, "title": a.title} for a in chain],
        "depends_on": node.depends_on, "docs": node.docs, "diagrams": node.diagrams,
        "tags": node.tags, "description": node.data.get("description"),
    }


MARKS = {Status.DRAFT: "○", Status.IN_PROGRESS: "◐", Status.BLOCKED: "⊘", Status.DONE: "●", Status.CANCELLED: "✕"}
