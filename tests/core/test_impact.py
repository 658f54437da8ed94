"""Impact: what a node holds up (through depends_on and the hierarchy), walkable links, critical paths."""

from __future__ import annotations

from pathlib import Path

from leafwise.commands.core.impact import Impact, critical_path, rank_stuck, waited_on_by, waits_on
from leafwise.store import find_root, load_plan
from testkit import node, write_plan

# E1 (R1): A (blocked), B.   E2 (R1) depends on E1: C, D.   F depends on D.   G depends on B.
# H is done and depends on A (closed work is held by nothing).   Q is an open decision nobody waits on.
PLAN = [
    node("T-1", "E1", "in-progress", release="R1"),
    node("T-2", "A", "blocked", parent="T-1", blocked_reason="keys"),
    node("T-3", "B", "draft", parent="T-1"),
    node("T-4", "E2", "draft", release="R1", depends_on=["T-1"]),
    node("T-5", "C", "draft", parent="T-4"),
    node("T-6", "D", "draft", parent="T-4"),
    node("T-7", "F", "draft", release="R1", depends_on=["T-6"]),
    node("T-8", "G", "draft", release="R1", depends_on=["T-3"]),
    node("T-9", "H", "done", release="R1", depends_on=["T-2"]),
    node("T-10", "Q", "blocked", release="R2", blocked_reason="Decision needed: which?",
         decision={"question": "which?", "options": ["a", "b"], "asked_by": "claude-1"}),
]


def plan_of(tmp_path: Path):
    write_plan(tmp_path, PLAN, releases=("R1", "R2"))
    return load_plan(find_root(None, tmp_path))


def test_a_blocked_leaf_holds_up_its_epics_dependents_and_their_leaves(tmp_path: Path) -> None:
    plan = plan_of(tmp_path)
    impact = Impact(plan)
    # A blocked: E1 cannot close, so E2 (depends on E1) cannot start: C, D; F depends on D.
    # B (A's sibling) and G (depends on B) are not held by A; H is done.
    assert sorted(impact.leaves("T-2")) == ["T-5", "T-6", "T-7"]
    assert impact.count("T-2") == 3
    assert sorted(impact.leaves("T-3")) == ["T-5", "T-6", "T-7", "T-8"]
    assert impact.count("T-7") == 0
    assert impact.count("T-10") == 0


def test_rank_stuck_orders_by_work_held_up_and_shows_decisions(tmp_path: Path) -> None:
    ranked = rank_stuck(plan_of(tmp_path))
    assert [(r.node.id, r.holds_up, r.decision) for r in ranked] == [("T-2", 3, False), ("T-10", 0, True)]


def test_walkable_links_both_ways(tmp_path: Path) -> None:
    plan = plan_of(tmp_path)
    assert [(l.id, l.via) for l in waits_on(plan, "T-4")] == [("T-1", "depends on"), ("T-5", "child"),
                                                               ("T-6", "child")]
    assert [(l.id, l.via) for l in waited_on_by(plan, "T-6")] == [("T-7", "dependent"), ("T-4", "parent")]
    assert [(l.id, l.via) for l in waited_on_by(plan, "T-1")] == [("T-4", "dependent")]


def test_dependency_cycles_do_not_hang(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "a", "blocked", depends_on=["T-2"], blocked_reason="x"),
                          node("T-2", "b", "draft", depends_on=["T-1"])])
    plan = load_plan(find_root(None, tmp_path))
    assert Impact(plan).leaves("T-1") == ["T-2"]
    assert critical_path(plan, None).cycle


def test_critical_path_goes_through_an_epic_dependency(tmp_path: Path) -> None:
    path = critical_path(plan_of(tmp_path), "R1")
    # A or B, then C/D (E2 waits for E1's open leaves), then F (depends on D): three leaves long.
    assert len(path.path) == 3 and path.path[-2:] == ["T-6", "T-7"] and path.path[0] in ("T-2", "T-3")
