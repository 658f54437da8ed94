"""Journal events read as typed values (`commands.events`): what real commands write, and what a hand planted."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leafwise.commands.events import MAX_TEXT, Change, Event, Moved, changes, moves, phrase, read_all, words
from leafwise.commands.registry import REGISTRY, Ctx, load_all
from leafwise.commands.runner import execute
from leafwise.store import find_root, journal
from testkit import node, write_plan


def run(root, name: str, **args) -> None:
    load_all()
    outcome = execute(REGISTRY[name], Ctx(root=str(root), actor="pat"), args)
    assert outcome.exit_code == 0, outcome.envelope


def test_every_line_the_commands_write_reads_whole_and_in_words(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1"),
                                          node("T-3", "Other", parent="T-1")])
    run(root, "start", node_id="T-2", agent="ann")
    run(root, "block", node_id="T-2", agent="ann", reason="waiting for keys")
    run(root, "unblock", node_id="T-2", note="keys sent")
    run(root, "edit", node_id="T-3", set=("title=Other thing", "priority=high"))
    run(root, "write-doc", node_id="T-3", content="# Other")
    run(root, "cancel", node_id="T-3", reason="not needed")
    run(root, "complete", node_id="T-2", agent="ann", summary="opened with the keys")
    records = journal.read(find_root(explicit=root))
    events = read_all(records)
    assert len(events) == len(records) == 7
    assert [e.unknown for e in events] == [()] * 7  # every field a command writes has its type here
    said = [words(e, e.node) for e in events]
    assert said == ["started ⇡ T-1 in progress", "blocked: waiting for keys", "unblocked — keys sent",
                    "edited: renamed to “Other thing”, priority high", "linked docs/T-3.md",
                    "cancelled: not needed", "completed — opened with the keys ⇡ T-1 done"]
    assert words(events[-1], "T-1") == "T-2 completed → this done  (cascade)"
    assert events[-1].cascade == (Moved("T-1", "in-progress", "done", "Epic"),)
    assert events[3].change("priority") == Change("T-3", "priority", None, "high")
    assert all(e.actor and e.time for e in events)


PLANTED = {
    "reason": {"nested": ["a"]},
    "summary": 12,
    "actor": ["mallory"],
    "title": "x" * (MAX_TEXT + 1),
    "changes": "status: done",
    "weird": {"deep": {"er": 1}},
}


@pytest.mark.parametrize("field", sorted(PLANTED))
def test_a_planted_value_of_the_wrong_type_size_or_depth_is_unknown_not_taken(field):
    event = Event.read({"command": "block", "node": "T-9", field: PLANTED[field]})
    assert event is not None and event.unknown == (field,)
    assert event.command == "block" and event.node == "T-9"
    assert getattr(event, field, None) in (None, ())  # never the planted value
    assert "None" not in words(event, "T-9")


def test_unreadable_changes_and_cascade_entries_are_named_and_the_rest_is_kept():
    event = Event.read({"command": "edit", "node": "T-9",
                        "changes": {"title": ["a", "b"], "status": "done", "tags": [[1] * 20_000, []]},
                        "cascade": [{"id": "T-1", "to": "done"}, "T-2", {"to": "done"}]})
    assert event.changes == (Change("T-9", "title", "a", "b"),)
    assert event.cascade == (Moved("T-1", None, "done"),)
    assert event.unknown == ("changes.status", "changes.tags", "cascade")
    assert words(event, "T-9") == "edited: renamed to “b” ⇡ T-1 done"


def test_a_record_that_is_not_an_object_is_no_event():
    assert [Event.read(x) for x in (None, [], "add", 3)] == [None] * 4
    assert Event.read({}) == Event()
    assert words(Event()) == "?"


def test_change_lists_of_an_envelope_read_the_same_way():
    items = [{"id": "T-1", "field": "status", "from": "draft", "to": "in-progress"}, {"id": "T-1"}, "x",
             {"id": "T-2", "field": "decision", "from": None, "to": {"question": "q?", "options": ["a", "b"]}}]
    assert changes(items) == (Change("T-1", "status", "draft", "in-progress"),
                              Change("T-2", "decision", None, {"question": "q?", "options": ["a", "b"]}))
    assert changes({"not": "a list"}) == () and moves(None) == ()


def test_words_make_plan_text_inert_and_short():
    event = Event.read({"command": "block", "node": "T-9", "reason": "wait \x1b[2J" + " long" * 100})
    said = words(event)
    assert "\x1b" not in said and "␛[2J" in said and len(said) < 140
    plan_text = [p for p in phrase(event) if p.limit is not None]
    assert [p.text[:6] for p in plan_text] == ["wait \x1b"]  # raw in the piece: the caller makes it inert


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=20)
KEYS = st.sampled_from(["command", "node", "actor", "time", "changes", "cascade", "reason", "summary", "extra",
                        "unknown", "parent", "x"])


@pytest.mark.slow  # a fuzz run: the slow set
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, JSON, max_size=8), st.sampled_from([None, "T-1", "T-9"]))
def test_any_json_object_reads_to_an_event_and_words_without_raising(record, about):
    event = Event.read(json.loads(json.dumps(record)))
    assert event is not None
    assert isinstance(words(event, about), str)
    assert all(isinstance(c, Change) for c in event.changes) and all(isinstance(m, Moved) for m in event.cascade)
