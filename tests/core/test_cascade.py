"""The cascade rule (commands/core/cascade.py): which status a parent takes from its children."""

from __future__ import annotations

import pytest
from leafwise.commands.core.cascade import cascades, closing_status
from leafwise.store import Node, Status


@pytest.mark.parametrize(("children", "expected"), [
    (["done", "cancelled"], Status.DONE),
    (["done", "done"], Status.DONE),
    (["cancelled", "cancelled"], Status.CANCELLED),
    (["done", "draft"], None),
    (["cancelled", "blocked"], None),
    ([], None),
])
def test_a_parent_closes_only_when_every_child_is_closed(children, expected):
    assert closing_status(children) == expected


def _node(status: str, **data) -> Node:
    return Node("T-1", "Epic", Status(status), {"id": "T-1", "title": "Epic", "status": status, **data},
                "nodes/T-1.yaml", "")


def test_manual_and_closed_parents_are_left_alone():
    assert cascades(_node("in-progress"))
    assert not cascades(_node("in-progress", cascade="manual"))
    assert not cascades(_node("done"))
