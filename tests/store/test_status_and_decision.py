"""Status is a StrEnum whose members are the YAML strings; Node.open_decision is the one rule."""

from __future__ import annotations

import json

from leafwise.store import CLOSED, STATUSES, Node, Status
from leafwise.store.writer import render_new_node, rewrite


def test_statuses_are_the_yaml_strings():
    assert STATUSES == ("draft", "in-progress", "blocked", "done", "cancelled")
    assert "done" in CLOSED and Status.DONE == "done" and json.dumps(Status.IN_PROGRESS) == '"in-progress"'


def test_a_status_is_written_as_a_plain_string():
    new = render_new_node({"id": "T-1", "title": "A", "status": Status.IN_PROGRESS})
    assert b"status: in-progress\n" in new and b"!!" not in new and b"python" not in new

    def close(doc):
        doc["status"] = Status.DONE

    edited = rewrite(new, "T-1", close)
    assert b"status: done\n" in edited and b"!!" not in edited


def _node(decision) -> Node:
    return Node("T-1", "A", Status.BLOCKED, {"id": "T-1", "title": "A", "status": "blocked", "decision": decision},
                "nodes/T-1.yaml", "")


def test_an_open_decision_has_a_question_and_no_answer():
    asked = {"question": "Q?", "options": ["A: a", "B: b"]}
    assert _node(asked).open_decision is asked
    assert _node({**asked, "answer": {"option": 1}}).open_decision is None
    assert _node({"options": ["A", "B"]}).open_decision is None
    assert _node("yes").open_decision is None
    assert _node(None).open_decision is None
