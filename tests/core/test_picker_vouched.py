"""The picker on a plan its caller vouches for (`readiness.unchanged_plan`: the MCP server's warm plan)
derives the pick order and the holders once, and then picks exactly as it does from scratch: the
same task, reason, blocked and held lists, for any holds, agent and exclusions on that plan."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.commands.core import readiness
from leafwise.commands.core.picker import Pick, pick
from leafwise.store import load_plan
from leafwise.store import claims as leases
from leafwise.store.paths import PlanPaths
from testkit import node, write_plan

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
STATUS = st.sampled_from(["draft", "ready", "in-progress", "blocked", "done", "cancelled"])
AGENTS = st.sampled_from(["me", "other", None])


def _claim(node_id: str, agent: str, minutes: int) -> leases.Claim:
    stamp = "2026-11-29T11:00:00Z"
    return leases.Claim(node_id, agent, stamp, stamp, (NOW + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ"))


@st.composite
def plans(draw):
    count = draw(st.integers(min_value=1, max_value=25))
    nodes = []
    for i in range(1, count + 1):
        fields: dict = {"release": draw(st.sampled_from(["R1", "R2", "R3", ""]))}
        if i > 1 and draw(st.booleans()):
            fields["parent"] = f"T-{draw(st.integers(1, i - 1))}"
        elif draw(st.integers(0, 9)) == 0:
            fields["parent"] = f"T-{draw(st.integers(1, count))}"
        deps = draw(st.lists(st.integers(1, count + 3), max_size=3, unique=True))
        fields["depends_on"] = [f"T-{d}" for d in deps if d != i]
        fields["priority"] = draw(st.sampled_from(["", "high", "low", "critical"]))
        status = draw(STATUS)
        if status == "blocked":
            fields["blocked_reason"] = "reason"
        if status == "in-progress" and draw(st.booleans()):
            fields["assignee"] = draw(st.sampled_from(["me", "other"]))
        title = draw(st.sampled_from(["a", "b", "B", "c"]))
        nodes.append(node(f"T-{i}", title, status, **{k: v for k, v in fields.items() if v}))
    calls = draw(st.lists(st.tuples(
        st.dictionaries(st.integers(1, count), st.tuples(st.sampled_from(["me", "other"]), st.sampled_from([-5, 30])),
                        max_size=4),
        AGENTS,
        st.lists(st.integers(1, count), max_size=2)), min_size=1, max_size=3))
    return nodes, calls


def _seen(chosen: Pick) -> tuple:
    return (chosen.node.id if chosen.node else None, chosen.reason, chosen.resumed, [n.id for n in chosen.blocked],
            [(n.id, c.agent, c.expires) for n, c in chosen.held], chosen.open_count, chosen.empty, chosen.broken)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plans())
@pytest.mark.slow
def test_a_vouched_plan_picks_as_a_fresh_one(tmp_path_factory, case) -> None:
    nodes, calls = case
    root: Path = tmp_path_factory.mktemp("plan")
    write_plan(root, nodes)
    plan = load_plan(PlanPaths(root), use_cache=False)
    memo: dict = {}
    for leased, agent, excluded in calls:  # several calls on the one plan: the derived order is reused
        claims = {f"T-{i}": _claim(f"T-{i}", who, minutes) for i, (who, minutes) in leased.items()}
        exclude = frozenset(f"T-{i}" for i in excluded)
        fresh = pick(plan, readiness.effective_holds(plan, claims, NOW), agent, exclude=exclude)
        with readiness.unchanged_plan(plan, memo):
            vouched = pick(plan, readiness.effective_holds(plan, claims, NOW), agent, exclude=exclude)
        assert _seen(vouched) == _seen(fresh)
    assert "pick order" in memo and "in progress" in memo


def test_another_plan_object_is_not_taken_for_the_vouched_one(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "a", release="R1"), node("T-2", "b", release="R1")])
    warm = load_plan(PlanPaths(tmp_path), use_cache=False)
    memo: dict = {}
    with readiness.unchanged_plan(warm, memo):
        assert pick(warm, {}).node.id == "T-1"
    write_plan(tmp_path, [node("T-1", "a", "done", release="R1"), node("T-2", "b", release="R1")])
    newer = load_plan(PlanPaths(tmp_path), use_cache=False)
    with readiness.unchanged_plan(warm, memo):
        assert pick(newer, {}).node.id == "T-2"  # not the warm plan: derived from scratch
