"""Readiness: each rule of `commands/core/readiness.py`, the picker's inlined copy of it, and the CLI
answers that rest on it (a dependency on a node the plan does not have is unmet)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.commands.core import readiness
from leafwise.commands.core.picker import scan
from leafwise.store import load_plan
from leafwise.store import claims as leases
from leafwise.store.paths import PlanPaths
from testkit import node, run_cli, write_plan

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def _claim(node_id: str, agent: str, minutes: int) -> leases.Claim:
    stamp = "2026-11-29T11:00:00Z"
    return leases.Claim(node_id, agent, stamp, stamp, (NOW + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ"))


def _plan(root: Path, nodes, prefix: str = "T"):
    write_plan(root, nodes, prefix=prefix)
    return load_plan(PlanPaths(root), use_cache=False)


# --- the bug: a dependency on a missing node, through the real CLI -------------------------------

def test_a_missing_dependency_is_unmet_in_show_and_start(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("D-1", "Draft", depends_on=["D-9"])], prefix="D")
    shown = run_cli("show", "D-1", cwd=tmp_path)
    assert shown.code == 0, shown.stderr
    last = shown.last_lines
    assert not any(line.startswith("Next: leafwise start D-1") for line in last), last
    hint = run_cli("show", "D-1", "--json", cwd=tmp_path).json["_next_action"]
    assert hint["command"] == "leafwise edit D-1 --remove depends_on=D-9", hint
    assert "D-9" in hint["reason"] and "does not exist" in hint["reason"]

    started = run_cli("start", "D-1", "--agent", "a", cwd=tmp_path)
    assert started.code == 3, started.stdout
    assert "D-9, which does not exist" in started.stderr
    fix_line = next(line for line in started.last_lines if line.startswith("Fix: "))
    assert fix_line == "Fix: leafwise edit D-1 --remove depends_on=D-9 --agent a", started.stderr  # the asker's
    # the fix is one that works: once it has run, the task starts
    ran = run_cli(*fix_line.removeprefix("Fix: leafwise ").split(), cwd=tmp_path)
    assert ran.code == 0, ran.stderr
    assert run_cli("start", "D-1", "--agent", "a", cwd=tmp_path).code == 0


def test_a_dependency_whose_file_does_not_load_sends_to_diagnose(tmp_path: Path) -> None:
    write_plan(tmp_path, {"D-1": "id: D-1\ntitle: Draft\nstatus: draft\ndepends_on: [D-2]\n",
                          "D-2": "id: D-2\ntitle: [broken\nstatus: draft\n"}, prefix="D")
    hint = run_cli("show", "D-1", "--json", cwd=tmp_path).json["_next_action"]
    assert hint["command"] == "leafwise diagnose D-2", hint
    refused = run_cli("start", "D-1", "--agent", "a", "--json", cwd=tmp_path)
    assert refused.code == 3
    assert refused.json["error"]["code"] == "dependency_open"
    assert refused.json["_next_action"]["command"] == "leafwise diagnose D-2 --agent a"


# --- each rule, one at a time --------------------------------------------------------------------

def test_each_obstacle_has_its_kind(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [
        node("T-1", "Done", "done"), node("T-2", "Cancelled", "cancelled"),
        node("T-3", "Blocked", "blocked", blocked_reason="keys"),
        node("T-4", "Parent"), node("T-5", "Open child", parent="T-4"),
        node("T-6", "Waits", depends_on=["T-5"]), node("T-7", "Dangling", depends_on=["T-99"]),
        node("T-8", "Met", depends_on=["T-1", "T-2"]), node("T-9", "Held"),
        node("T-10", "Closed parent", cascade="manual"), node("T-11", "Closed child", "done", parent="T-10"),
    ])
    holds = {"T-9": _claim("T-9", "x", 30)}
    kinds = {nid: (b.kind, b.ids) if (b := readiness.blocker(plan, n, holds, "me")) else None
             for nid, n in plan.nodes.items()}
    assert kinds == {
        "T-1": ("closed", ()), "T-2": ("closed", ()), "T-3": ("blocked", ()),
        "T-4": ("open_children", ("T-5",)), "T-5": None, "T-6": ("unmet_dependency", ("T-5",)),
        "T-7": ("missing_dependency", ("T-99",)), "T-8": None, "T-9": ("held", ("x",)),
        "T-10": None, "T-11": ("closed", ()),
    }
    assert readiness.blocker(plan, plan.nodes["T-9"], holds, "x") is None, "one's own hold is no obstacle"
    assert readiness.blocker(plan, plan.nodes["T-9"], holds, None).kind == "held"


def test_most_fundamental_obstacle_first(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [
        node("T-1", "Blocked and waiting", "blocked", blocked_reason="r", depends_on=["T-9"]),
        node("T-2", "Held parent with a dangling dependency", depends_on=["T-9"]),
        node("T-3", "Child", parent="T-2"),
        node("T-4", "Open and missing", depends_on=["T-3", "T-9"]),
    ])
    holds = {"T-2": _claim("T-2", "x", 30)}
    assert readiness.blocker(plan, plan.nodes["T-1"], holds).kind == "blocked"
    assert readiness.blocker(plan, plan.nodes["T-2"], holds).kind == "held"
    assert readiness.blocker(plan, plan.nodes["T-2"], {}).kind == "open_children"
    assert readiness.blocker(plan, plan.nodes["T-4"], {}).kind == "missing_dependency"


def test_open_children_and_unmet_dependencies(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [
        node("T-1", "Parent"), node("T-2", "a", "done", parent="T-1"), node("T-3", "b", "blocked", parent="T-1",
                                                                             blocked_reason="r"),
        node("T-4", "c", "cancelled", parent="T-1"), node("T-5", "d", "in-progress", parent="T-1"),
        node("T-6", "Waits", depends_on=["T-2", "T-9", "T-3", "T-4", "T-5"]),
    ])
    assert readiness.open_children(plan, plan.nodes["T-1"]) == ["T-3", "T-5"]
    assert readiness.unmet_dependencies(plan, plan.nodes["T-6"]) == ["T-9", "T-3", "T-5"]
    assert readiness.open_children(plan, plan.nodes["T-6"]) == []
    del plan.nodes["T-5"]  # a child whose file went away (the canvas drops it until it loads again)
    assert readiness.open_children(plan, plan.nodes["T-1"]) == ["T-3", "T-5"]  # unknown counts as open


@pytest.mark.parametrize(("lease", "status", "assignee", "leaf", "expected"), [
    ("live", "draft", None, True, "x"),  # a live lease holds whatever the fields say
    ("expired", "in-progress", "x", True, None),  # an expired lease holds nothing, the assignee neither
    (None, "in-progress", "y", True, "y"),  # no lease file: an assigned task in progress is its assignee's
    (None, "in-progress", "y", False, None),  # ... a leaf only: a parent closes by its children
    (None, "draft", "y", True, None),
    (None, "blocked", "y", True, None),
    (None, "in-progress", None, True, None),
])
def test_who_holds_a_task(lease, status, assignee, leaf, expected) -> None:
    claim = {"live": _claim("T-1", "x", 30), "expired": _claim("T-1", "x", -1), None: None}[lease]
    hold = readiness.hold_from("T-1", claim, NOW, status, assignee, leaf)
    assert (hold.agent if hold else None) == expected


def test_effective_holds_over_a_plan(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [
        node("T-1", "Assigned", "in-progress", assignee="y"), node("T-2", "Lapsed", "in-progress", assignee="x"),
        node("T-3", "Parent", "in-progress", assignee="z"), node("T-4", "Child", parent="T-3"),
        node("T-5", "Leased draft"),
    ])
    claims = {"T-2": _claim("T-2", "x", -1), "T-5": _claim("T-5", "w", 30), "T-77": _claim("T-77", "v", 30)}
    holds = readiness.effective_holds(plan, claims, NOW)
    assert {k: c.agent for k, c in holds.items()} == {"T-1": "y", "T-5": "w", "T-77": "v"}
    assert holds["T-1"].expires == "", "an assignment has no expiry"
    assert readiness.holder(plan.nodes["T-1"], holds) == "y"
    assert readiness.holder(plan.nodes["T-2"], holds) is None


@pytest.mark.parametrize(("lease_minutes", "held"), [(None, True), (-5, False), (30, True)])
def test_start_under_the_lock_agrees_with_next(tmp_path: Path, lease_minutes, held) -> None:
    """`start` reads the hold under the node's lock; `next` from all holds at once: one rule."""
    write_plan(tmp_path, [node("T-1", "Task", "in-progress", assignee="alice")])
    if lease_minutes is not None:
        now = datetime.now(timezone.utc)
        leases.write(PlanPaths(tmp_path), "T-1", "alice", now - timedelta(minutes=10), 10 + lease_minutes)
    offered = run_cli("next", "--agent", "bob", "--json", cwd=tmp_path).json["result"]["task"]
    started = run_cli("start", "T-1", "--agent", "bob", "--json", cwd=tmp_path)
    assert (offered is None) == held
    assert (started.code == 3 and started.json["error"]["code"] == "claim_held") == held, started.stdout
    assert (started.code == 0) == (not held)


@pytest.mark.parametrize(("lease_minutes", "held"), [(None, True), (-5, False)])
def test_heartbeat_and_unclaim_judge_the_hold_as_next_does(tmp_path: Path, lease_minutes, held) -> None:
    write_plan(tmp_path, [node("T-1", "Task", "in-progress", assignee="alice")])
    if lease_minutes is not None:
        now = datetime.now(timezone.utc)
        leases.write(PlanPaths(tmp_path), "T-1", "alice", now - timedelta(minutes=10), 10 + lease_minutes)
    for command in ("heartbeat", "unclaim"):
        ran = run_cli(command, "T-1", "--agent", "bob", "--json", cwd=tmp_path)
        refused = ran.code == 3 and ran.json["error"]["code"] == "claim_held"
        assert refused == held, (command, ran.stdout)


# --- the picker's hot loop agrees with readiness.blocker on generated plans -----------------------

STATUS = st.sampled_from(["draft", "draft", "draft", "in-progress", "blocked", "done", "cancelled"])


@st.composite
def plans(draw):
    count = draw(st.integers(min_value=1, max_value=20))
    nodes = []
    for i in range(1, count + 1):
        fields: dict = {}
        if i > 1 and draw(st.booleans()):
            fields["parent"] = f"T-{draw(st.integers(1, i - 1))}"
        elif draw(st.integers(0, 9)) == 0:  # any node, itself included: parent cycles
            fields["parent"] = f"T-{draw(st.integers(1, count))}"
        deps = draw(st.lists(st.integers(1, count + 3), max_size=3, unique=True))  # some name no node
        fields["depends_on"] = [f"T-{d}" for d in deps if d != i]
        status = draw(STATUS)
        if status == "blocked":
            fields["blocked_reason"] = "reason"
        if status == "in-progress" and draw(st.booleans()):
            fields["assignee"] = draw(st.sampled_from(["me", "other"]))
        nodes.append(node(f"T-{i}", f"n{i}", status, **{k: v for k, v in fields.items() if v}))
    leased = draw(st.dictionaries(st.integers(1, count), st.tuples(st.sampled_from(["me", "other"]),
                                                                     st.sampled_from([-5, 30])), max_size=4))
    agent = draw(st.sampled_from(["me", None]))
    exclude = frozenset(f"T-{i}" for i in draw(st.lists(st.integers(1, count), max_size=2)))
    return nodes, leased, agent, exclude


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plans())
def test_the_picker_scan_agrees_with_blocker(tmp_path_factory, case) -> None:
    nodes, leased, agent, exclude = case
    plan = _plan(tmp_path_factory.mktemp("plan"), nodes)
    claims = {f"T-{i}": _claim(f"T-{i}", who, minutes) for i, (who, minutes) in leased.items()}
    holds = readiness.effective_holds(plan, claims, NOW)
    candidates, blocked, held, open_count = scan(plan, holds, agent, exclude)
    found = {nid: readiness.blocker(plan, n, holds, agent) for nid, n in plan.nodes.items()}
    assert {n.id for n in candidates} == {nid for nid, b in found.items() if b is None and nid not in exclude}
    assert {n.id for n in blocked} == {nid for nid, b in found.items() if b and b.kind == "blocked"}
    assert {n.id for n, _ in held} == {nid for nid, b in found.items() if b and b.kind == "held"}
    assert open_count == sum(1 for b in found.values() if not (b and b.kind == "closed"))


@pytest.mark.parametrize("loop", [{"T-1": "T-1"}, {"T-1": "T-3"}], ids=["self", "three"])
def test_nothing_in_or_under_a_parent_cycle_is_handed_out_and_tree_shows_it_all(tmp_path: Path, loop) -> None:
    """A hostile clone's parent cycle: the looped part stays visible under its cut, and no node in or
    under it is work (its hierarchy is broken) until validate's Fix cuts the cycle."""
    parents = {"T-2": "T-1", "T-3": "T-2", **loop}
    write_plan(tmp_path, [node(f"T-{i}", f"n{i}", **({"parent": parents[f"T-{i}"]} if f"T-{i}" in parents else {}))
                          for i in range(1, 4)] + [node("T-4", "free")])
    plan = load_plan(PlanPaths(tmp_path), use_cache=False)
    assert plan.looped() == {"T-1", "T-2", "T-3"}
    assert readiness.blocker(plan, plan.nodes["T-3"], {}).kind == readiness.LOOPED_KIND
    listed = run_cli("tree", "--json", cwd=tmp_path)
    assert listed.code == 0, listed.stderr
    assert {"T-1", "T-2", "T-3", "T-4"} <= set(listed.stdout.replace('"', " ").split()), listed.stdout
    picked = run_cli("next", "--json", cwd=tmp_path).json["result"]
    assert picked["task"]["id"] == "T-4", picked
    shown = run_cli("show", "T-3", "--json", cwd=tmp_path).json["_next_action"]
    assert shown["command"] == "leafwise validate", shown


def test_while_project_yaml_does_not_load_no_surface_offers_a_step_start_or_complete_refuses(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("D-1", "Draft"), node("D-2", "Mine", status="in-progress", assignee="a")],
               prefix="D")
    project = tmp_path / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + "name: [broken\n")
    for args in (("show", "D-1"), ("show", "D-2", "--agent", "a"), ("next",), ("next", "--agent", "a")):
        hint = run_cli(*args, "--json", cwd=tmp_path).json["_next_action"]
        assert not (hint["command"] or "").startswith(("leafwise start D-", "leafwise complete")), (args, hint)
        assert "project.yaml:" in hint["reason"], hint  # the file and line a person fixes
    for args in (("start", "D-1", "--agent", "b"), ("start", "--next", "--agent", "b")):
        refused = run_cli(*args, "--json", cwd=tmp_path)
        assert refused.code == 4 and refused.json["_next_action"]["command"] == "leafwise diagnose --agent b"
    assert run_cli("complete", "D-2", "--summary", "s", "--agent", "a", cwd=tmp_path).code == 4
    project.write_text(project.read_text().replace("name: [broken\n", ""))  # fixed: the task is offered again
    assert run_cli("show", "D-1", "--json", cwd=tmp_path).json["_next_action"]["command"].startswith(
        "leafwise start D-1")
