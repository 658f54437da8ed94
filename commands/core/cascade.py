"""The cascade rule: which status a parent takes from its children's statuses.

`complete` (and `cancel`) walk the ancestors of the node they closed and
`repair` re-runs the rule over the whole plan; both ask these functions, so a
parent closes the same way whichever command got there.
"""

from __future__ import annotations

from typing import Iterable

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
