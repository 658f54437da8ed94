"""The lifecycle table (`commands/core/lifecycle.py`): every row run through the real CLI from every
status, its inverse taking it back, who may run it, and the command each board move stands for."""

from __future__ import annotations

from pathlib import Path

import pytest
from leafwise.commands.core import lifecycle
from leafwise.commands.registry import REGISTRY, load_all
from leafwise.store import STATUSES
from testkit import node, node_data, run_cli, write_plan

STATUS_FIELDS = {
    "draft": {},
    "in-progress": {},
    "blocked": {"blocked_reason": "waits", "blocked_from": "in-progress"},
    "done": {"summary": "did it"},
    "cancelled": {"summary": "Cancelled: dropped"},
}
DECISION = {"question": "Which way?", "options": ["A: left", "B: right"]}


def _args(command: str, nid: str) -> list[str]:
    """The CLI words that run a row of the table on `nid`."""
    if command.startswith("edit status="):
        return ["edit", nid, "--set", command.removeprefix("edit ")]
    return {
        "start": ["start", nid, "--agent", "a"],
        "complete": ["complete", nid, "--summary", "done now", "--agent", "a"],
        "block": ["block", nid, "--reason", "a new reason"],
        "unblock": ["unblock", nid],
        "cancel": ["cancel", nid, "--reason", "not needed"],
        "ask": ["ask", nid, "Which way?", "--option", "A: left", "--option", "B: right"],
        "decide": ["decide", nid, "--option", "1"],
        "unclaim": ["unclaim", nid, "--force"],
    }[command]


def _inverse_args(inverse: str, nid: str, source: str) -> list[str]:
    return ["edit", nid, "--set", f"status={source}"] if inverse == "edit status" else _args(inverse, nid)


# Rows that answer a forbidden status with an error; the others are no-ops there (idempotent by design).
REFUSING = {"start", "complete", "block", "cancel", "ask", "edit status=draft", "edit status=in-progress"}


@pytest.mark.parametrize("row", lifecycle.TRANSITIONS, ids=lambda r: r.command)
def test_each_row_moves_exactly_the_statuses_it_lists(tmp_path: Path, row: lifecycle.Transition) -> None:
    ids = {status: f"T-{i}" for i, status in enumerate(STATUSES, 1)}
    extra = {"decision": DECISION} if row.command == "decide" else {}
    write_plan(tmp_path, [node(nid, f"Task {status}", status, **STATUS_FIELDS[status], **extra)
                          for status, nid in ids.items()])
    for status, nid in ids.items():
        ran = run_cli(*_args(row.command, nid), cwd=tmp_path)
        now = node_data(tmp_path, nid)["status"]
        if lifecycle.transition(row.command, status) is not None:
            assert ran.code == 0, (status, ran.stderr)
            # unblock/decide: the blocked task has no assignee at work, so the rule gives draft
            expected = row.target or lifecycle.unblocked_status(STATUS_FIELDS[status].get("blocked_from"), False)
            assert now == expected, (row.command, status)
        else:
            assert now == status, f"{row.command} moved {status}, which the table forbids"
            if row.command in REFUSING and status != row.target:
                assert ran.code in (2, 3), (row.command, status, ran.stdout)


@pytest.mark.parametrize("row", [r for r in lifecycle.TRANSITIONS if r.inverse], ids=lambda r: r.command)
def test_each_inverse_takes_its_move_back(tmp_path: Path, row: lifecycle.Transition) -> None:
    source = next(s for s in ("draft", "in-progress", "blocked") if s in row.sources and s != row.target)
    extra = {"decision": DECISION} if row.command == "decide" else {}
    fields = {**STATUS_FIELDS[source], **extra}
    if source == "blocked":
        fields["blocked_from"] = "draft"
    write_plan(tmp_path, [node("T-1", "Task", source, **fields)])
    assert run_cli(*_args(row.command, "T-1"), cwd=tmp_path).code == 0
    back = run_cli(*_inverse_args(row.inverse, "T-1", source), cwd=tmp_path)
    assert back.code == 0, back.stderr
    assert node_data(tmp_path, "T-1")["status"] == source


def test_who_may_run_each_row_is_what_the_registry_asks() -> None:
    load_all()
    for row in lifecycle.TRANSITIONS:
        params = {p.name: p for p in REGISTRY[row.command.split(" status=")[0]].params}
        agent = params.get("agent")
        said = "person" if agent is None else "agent" if agent.required else "any"
        assert said == row.who, row.command
        assert row.inverse is None or row.inverse == "edit status" or row.inverse in REGISTRY, row.inverse


OPEN = {"draft", "in-progress", "blocked"}
RULES = {  # the lifecycle in words a person checks: command -> (the statuses it leaves, where it goes)
    "start": ({"draft", "in-progress"}, "in-progress"),
    "complete": (OPEN, "done"),
    "block": (OPEN, "blocked"),
    "unblock": ({"blocked"}, None),
    "cancel": (OPEN, "cancelled"),
    "ask": (OPEN, "blocked"),
    "decide": ({"blocked"}, None),
    "edit status=draft": ({"in-progress", "done", "cancelled"}, "draft"),
    "edit status=in-progress": ({"draft", "done", "cancelled"}, "in-progress"),
    "unclaim": ({"in-progress"}, "draft"),
    "start: draft ancestors": ({"draft"}, "in-progress"),
    "add: done ancestors": ({"done"}, "in-progress"),
    "cascade: done": (OPEN, "done"),
    "cascade: cancelled": (OPEN, "cancelled"),
}


def test_the_table_says_the_rules() -> None:
    table = {r.command: ({str(s) for s in r.sources}, r.target) for r in lifecycle.TRANSITIONS + lifecycle.CASCADES}
    assert table == RULES


def test_transition_answers_only_for_the_listed_sources() -> None:
    assert lifecycle.transition("start", "draft").target == "in-progress"
    assert lifecycle.transition("start", "blocked") is None
    assert lifecycle.transition("complete", "cancelled") is None
    assert lifecycle.transition("cancel", "done") is None
    assert lifecycle.transition("unblock", "draft") is None
    assert lifecycle.transition("edit status=draft", "blocked") is None
    assert lifecycle.transition("cascade: done", "done") is None
    with pytest.raises(KeyError):
        lifecycle.transition("reopen", "done")


BOARD = ("draft", "in-progress", "blocked", "done")
BOARD_MOVES = {
    ("draft", "in-progress"): "start", ("draft", "blocked"): "block", ("draft", "done"): "complete",
    ("in-progress", "draft"): "edit status=draft", ("in-progress", "blocked"): "block",
    ("in-progress", "done"): "complete",
    ("blocked", "draft"): "unblock", ("blocked", "in-progress"): "unblock", ("blocked", "done"): "complete",
    ("done", "draft"): "edit status=draft", ("done", "in-progress"): "edit status=in-progress",
    ("done", "blocked"): None,  # closed work is not blocked: reopen it first
}


def test_each_board_move_stands_for_one_command() -> None:
    assert {(a, b): lifecycle.board_command(a, b) for a in BOARD for b in BOARD if a != b} == BOARD_MOVES
    assert lifecycle.board_command("draft", "draft") is None


# --- the moves a command makes on the ancestors -------------------------------------------------

@pytest.mark.parametrize(("parent", "expected"), [("draft", "in-progress"), ("blocked", "blocked")])
def test_start_moves_draft_ancestors_only(tmp_path: Path, parent: str, expected: str) -> None:
    write_plan(tmp_path, [node("T-1", "Epic", parent, **STATUS_FIELDS[parent]), node("T-2", "Leaf", parent="T-1")])
    assert run_cli("start", "T-2", "--agent", "a", cwd=tmp_path).code == 0
    assert node_data(tmp_path, "T-1")["status"] == expected
    assert (lifecycle.transition("start: draft ancestors", parent) is not None) == (parent != expected)


@pytest.mark.parametrize(("parent", "expected"), [("done", "in-progress"), ("in-progress", "in-progress")])
def test_adding_under_done_work_reopens_it(tmp_path: Path, parent: str, expected: str) -> None:
    write_plan(tmp_path, [node("T-1", "Epic", parent, cascade="manual", **STATUS_FIELDS[parent]),
                          node("T-2", "Leaf", "done", parent="T-1", summary="x")])
    assert run_cli("add", "New leaf", "--parent", "T-1", "--force", cwd=tmp_path).code == 0
    assert node_data(tmp_path, "T-1")["status"] == expected


@pytest.mark.parametrize("parent", ["draft", "in-progress", "blocked"])
@pytest.mark.parametrize(("command", "closed"), [("complete", "done"), ("cancel", "cancelled")])
def test_closing_the_last_child_closes_an_open_parent(tmp_path: Path, parent: str, command: str, closed: str) -> None:
    write_plan(tmp_path, [node("T-1", "Epic", parent, **STATUS_FIELDS[parent]),
                          node("T-2", "Leaf", "in-progress", parent="T-1")])
    assert run_cli(*_args(command, "T-2"), cwd=tmp_path).code == 0
    assert node_data(tmp_path, "T-1")["status"] == closed
    assert lifecycle.transition(f"cascade: {closed}", parent) is not None
