"""The picker: each ordering rule, each exclusion, and properties on random plans."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.commands.core.picker import pick
from leafwise.store import CLOSED, load_plan
from leafwise.store import claims as leases
from leafwise.store.paths import PlanPaths
from testkit import node, write_plan

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def picked(tmp_path: Path, nodes, agent=None, claims=None, releases=("R1", "R2", "R3")) -> str | None:
    write_plan(tmp_path, nodes, releases=releases)
    plan = load_plan(PlanPaths(tmp_path), use_cache=False)
    result = pick(plan, claims or {}, agent)
    return result.node.id if result.node else None


CASES = {
    "earliest release first": (
        [node("T-1", "B", release="R2"), node("T-2", "A", release="R1")], "T-2"),
    "no release sorts last": (
        [node("T-1", "A"), node("T-2", "Z", release="R3")], "T-2"),
    "release is inherited from the parent": (
        [node("T-1", "Epic", "in-progress", release="R1"), node("T-2", "Z leaf", parent="T-1"),
         node("T-3", "A leaf", release="R2")], "T-2"),
    "deepest level first within a release": (
        [node("T-1", "Epic", release="R1"), node("T-2", "Feature", parent="T-1"),
         node("T-3", "Deep leaf z", parent="T-2"), node("T-4", "Shallow leaf a", release="R1")], "T-3"),
    "then title, case-folded": (
        [node("T-1", "beta", release="R1"), node("T-2", "Alpha", release="R1")], "T-2"),
    "then id on equal titles": (
        [node("T-2", "Same", release="R1"), node("T-1", "Same", release="R1")], "T-1"),
    "open dependency excludes": (
        [node("T-1", "A", release="R1", depends_on=["T-2"]), node("T-2", "B", release="R2")], "T-2"),
    "closed dependency admits (done or cancelled)": (
        [node("T-1", "A", release="R1", depends_on=["T-2", "T-3"]), node("T-2", "B", "done", release="R2"),
         node("T-3", "C", "cancelled", release="R2")], "T-1"),
    "dangling dependency excludes": (
        [node("T-1", "A", release="R1", depends_on=["T-9"]), node("T-2", "B", release="R2")], "T-2"),
    "a parent with open children is not work": (
        [node("T-1", "Parent", release="R1"), node("T-2", "Child", "blocked", parent="T-1",
                                                   blocked_reason="x"),
         node("T-3", "Other", release="R3")], "T-3"),
    "leaf-first over a parent whose children are closed": (
        [node("T-1", "Parent a", release="R1", cascade="manual"), node("T-2", "Child", "done", parent="T-1"),
         node("T-3", "Leaf z", release="R2")], "T-3"),
    "a parent whose children are closed is work when no leaf is": (
        [node("T-1", "Parent", release="R1", cascade="manual"), node("T-2", "Child", "done", parent="T-1")],
        "T-1"),
    "blocked is never handed out": (
        [node("T-1", "A", "blocked", release="R1", blocked_reason="waiting"), node("T-2", "B", release="R2")],
        "T-2"),
    "cancelled and done are never handed out": (
        [node("T-1", "A", "cancelled", release="R1"), node("T-2", "B", "done", release="R1"),
         node("T-3", "C", release="R3")], "T-3"),
    "nothing left": ([node("T-1", "A", "done")], None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ordering_and_exclusions(tmp_path: Path, case: str) -> None:
    nodes, expected = CASES[case]
    assert picked(tmp_path, nodes) == expected


def _claim(node_id: str, agent: str, minutes: int) -> leases.Claim:
    return leases.Claim(node_id, agent, "2026-11-29T11:00:00Z", "2026-11-29T11:00:00Z",
                        (NOW + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ"))


def test_held_by_another_agent_is_skipped(tmp_path: Path) -> None:
    nodes = [node("T-1", "A", "in-progress", release="R1", assignee="x"), node("T-2", "B", release="R1")]
    claims = leases.live({"T-1": _claim("T-1", "x", 30)}, NOW)
    assert picked(tmp_path, nodes, agent="y", claims=claims) == "T-2"


def test_own_task_is_resumed_first(tmp_path: Path) -> None:
    nodes = [node("T-1", "Z later", "in-progress", release="R3", assignee="x"), node("T-2", "A", release="R1")]
    claims = leases.live({"T-1": _claim("T-1", "x", 30)}, NOW)
    assert picked(tmp_path, nodes, agent="x", claims=claims) == "T-1"


def test_expired_lease_frees_the_task(tmp_path: Path) -> None:
    nodes = [node("T-1", "A", "in-progress", release="R1", assignee="x")]
    claims = leases.live({"T-1": _claim("T-1", "x", -1)}, NOW)
    assert claims == {}
    assert picked(tmp_path, nodes, agent="y", claims=claims) == "T-1"


def test_why_none_is_said(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", "blocked", release="R1", blocked_reason="keys"),
                          node("T-2", "B", release="R1", depends_on=["T-1"])])
    result = pick(load_plan(PlanPaths(tmp_path), use_cache=False), {}, None, explain=True)
    assert result.node is None
    assert [n.id for n in result.blocked] == ["T-1"]
    why = {p["id"]: p["why"] for p in result.passed}
    assert why["T-1"].startswith("blocked: keys")
    assert why["T-2"] == "depends on T-1 (blocked)"


# --- properties on random plans ----------------------------------------------

STATUS = st.sampled_from(["draft", "draft", "draft", "in-progress", "blocked", "done", "cancelled"])


@st.composite
def random_plans(draw):
    count = draw(st.integers(min_value=1, max_value=25))
    nodes = []
    for i in range(1, count + 1):
        fields = {"release": draw(st.sampled_from([None, "R1", "R2", "R3"]))}
        if i > 1 and draw(st.booleans()):
            fields["parent"] = f"T-{draw(st.integers(1, i - 1))}"
        deps = draw(st.lists(st.integers(1, count), max_size=2, unique=True))
        fields["depends_on"] = [f"T-{d}" for d in deps if d != i]
        status = draw(STATUS)
        if status == "blocked":
            fields["blocked_reason"] = "reason"
        title = draw(st.sampled_from(["alpha", "Beta", "gamma", "Delta", "beta"]))
        nodes.append(node(f"T-{i}", title, status, **{k: v for k, v in fields.items() if v}))
    held = draw(st.lists(st.integers(1, count), max_size=3, unique=True))
    return nodes, held


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(random_plans())
def test_picker_never_returns_unavailable_work(tmp_path_factory, case) -> None:
    nodes, held = case
    root = tmp_path_factory.mktemp("plan")
    write_plan(root, nodes)
    plan = load_plan(PlanPaths(root), use_cache=False)
    claims = leases.live({f"T-{h}": _claim(f"T-{h}", "other", 30) for h in held}, NOW)
    first = pick(plan, claims, "me")
    again = pick(load_plan(PlanPaths(root), use_cache=False), claims, "me")
    assert (first.node and first.node.id) == (again.node and again.node.id), "same state, same answer"
    chosen = first.node
    if chosen is None:
        return
    assert chosen.status not in CLOSED and chosen.status != "blocked"
    assert chosen.id not in claims
    assert all(plan.nodes[c].status in CLOSED for c in chosen.children)
    assert all(d in plan.nodes and plan.nodes[d].status in CLOSED for d in chosen.depends_on)
