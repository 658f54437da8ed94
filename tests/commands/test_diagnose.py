"""diagnose, doctor and repair on deliberately damaged plans, through the real CLI."""

from __future__ import annotations

import json
import os
import time
from datetime import timedelta
from pathlib import Path

import pytest
from leafwise.store import PlanPaths
from leafwise.store import claims as leases
from leafwise.store.loader import cache_for
from leafwise.store.writer import utc_now
from testkit import node, run_cli, write_plan


def lease(root: Path, node_id: str, agent: str, minutes_from_now: float) -> None:
    """A lease that expires `minutes_from_now` (negative: already expired)."""
    start = utc_now() + timedelta(minutes=minutes_from_now - 60)
    leases.write(PlanPaths(root), node_id, agent, start, 60)


def old_file(path: Path, text: str = "half a write", age: float = 3600) -> Path:
    path.write_text(text)
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    plan = root / ".leafwise"
    return {str(p.relative_to(plan)): p.read_bytes() for p in sorted(plan.rglob("*"))
            if p.is_file() and ".cache" not in p.parts and ".locks" not in p.parts and p.name != "journal.jsonl"}


@pytest.fixture
def stuck_plan(tmp_path: Path) -> Path:
    """One node for each reason a task can be stuck."""
    root = write_plan(tmp_path, [
        node("T-1", "Blocked task", "blocked", blocked_reason="waiting for the API key"),
        node("T-2", "Needs the blocked one", depends_on=["T-1"]),
        node("T-3", "Alice works on it", "in-progress", assignee="alice"),
        node("T-4", "Lease ran out", "in-progress", assignee="carol"),
        node("T-5", "Shipped", "done", summary="done"),
        node("T-6", "Ready to go"),
        node("T-8", "A question for a person", "blocked", blocked_reason="Decision needed: which?",
             decision={"question": "which?", "options": ["A: this", "B: that"]}),
        node("T-9", "Parent"),
        node("T-10", "Child of the parent", parent="T-9"),
    ])
    lease(root, "T-3", "alice", 30)
    lease(root, "T-4", "carol", -5)
    return root


def diagnose(root: Path, *args: str) -> dict:
    res = run_cli("diagnose", *args, "--json", cwd=root)
    assert res.code == 0, res.stdout
    return res.json


@pytest.mark.parametrize(("args", "category", "source", "marker"), [
    (("T-1",), "blocked", "T-1", "next"),
    (("T-2",), "dependency_open", "T-1", "next"),
    (("T-3",), "in_progress", "alice", "wait"),
    (("T-3", "--agent", "bob"), "held_by_other_agent", "alice", "wait"),
    (("T-3", "--agent", "alice"), "in_progress", "T-3", "next"),
    (("T-4",), "stale_claim", "T-4", "next"),
    (("T-5",), "none", "T-5", "next"),
    (("T-6",), "none", "T-6", "next"),
    (("T-8",), "blocked", "T-8", "wait"),
    (("T-9",), "children_open", "T-10", "next"),
])
def test_diagnose_names_the_root_cause_of_a_stuck_node(stuck_plan, args, category, source, marker):
    env = diagnose(stuck_plan, *args)
    cause = env["result"]["root_cause"]
    assert (cause["category"], cause["source"]["id"], env["_next_action"]["marker"]) == (category, source, marker)
    remediation = env["result"]["remediation"]
    assert remediation["next_actions"] == [c for c in (env["_next_action"]["command"], env["_next_action"]["or"]) if c]


def test_diagnose_hints_point_at_the_real_remedy(stuck_plan):
    assert diagnose(stuck_plan, "T-1")["_next_action"]["command"] == "leafwise unblock T-1"
    assert diagnose(stuck_plan, "T-2")["_next_action"]["command"] == "leafwise unblock T-1"
    assert diagnose(stuck_plan, "T-4")["_next_action"]["command"] == "leafwise repair"
    assert diagnose(stuck_plan, "T-4")["result"]["remediation"]["automatic_repair"]["allowed"] is True
    assert diagnose(stuck_plan, "T-6", "--agent", "dan")["_next_action"]["command"] == \
        "leafwise start T-6 --agent dan"
    assert "decide T-8 --option <N>" in diagnose(stuck_plan, "T-8")["_next_action"]["condition"]


def test_diagnose_the_whole_plan_puts_errors_first_then_garbage(stuck_plan):
    env = diagnose(stuck_plan)
    assert env["result"]["root_cause"]["category"] == "none"  # T-6 is ready: nothing holds the plan back
    categories = [f["category"] for f in env["result"]["findings"]["items"]]
    assert categories == ["none", "stale_claim"]
    (stuck_plan / ".leafwise/nodes/T-11.yaml").write_text("id: T-11\ntitle: [broken\n")
    env = diagnose(stuck_plan)
    assert env["result"]["root_cause"]["category"] == "invalid_plan"
    assert env["result"]["root_cause"]["source"]["id"] == "T-11"
    assert env["_next_action"]["command"] == "leafwise diagnose T-11"
    env = diagnose(stuck_plan, "T-11")
    assert env["result"]["root_cause"]["category"] == "invalid_plan"
    assert "T-11.yaml line 3: YAML does not parse" in env["result"]["root_cause"]["reason"]


def test_diagnose_a_plan_held_by_others_waits_and_a_finished_plan_is_done(tmp_path):
    root = write_plan(tmp_path, [node("T-1", "Theirs", "in-progress", assignee="alice"), node("T-2", "Old", "done")])
    lease(root, "T-1", "alice", 30)
    env = diagnose(root, "--agent", "bob")
    assert env["result"]["root_cause"]["category"] == "held_by_other_agent"
    assert env["_next_action"]["marker"] == "wait"
    run_cli("complete", "T-1", "--summary", "finished", "--agent", "alice", cwd=root)
    env = diagnose(root)
    assert env["_next_action"]["marker"] == "done" and env["result"]["root_cause"]["category"] == "none"
    assert run_cli("diagnose", cwd=root).stdout.rstrip().splitlines()[-1] == "Done."


def test_diagnose_an_unknown_node_is_an_error(stuck_plan):
    res = run_cli("diagnose", "T-99", "--json", cwd=stuck_plan)
    assert res.code == 5
    assert res.json["root_cause"]["category"] == "not_found"


# --- doctor -------------------------------------------------------------------------

def checks(env: dict) -> dict[str, dict]:
    return {c["name"]: c for c in env["result"]["checks"]}


def test_doctor_on_a_healthy_plan(demo_plan):
    run_cli("next", cwd=demo_plan)  # builds the cache
    env = run_cli("doctor", "--json", cwd=demo_plan).json
    found = checks(env)
    for name in ("python", "leafwise", "mcp", "textual", "watcher", "envelope_schema", "root", "cache", "schema",
                 "journal", "validator", "claims", "temp_files"):
        assert found[name]["severity"] == "ok", found[name]
    assert env["result"]["healthy"] is True
    assert env["_next_action"]["command"] == "leafwise context"


def test_doctor_on_a_damaged_plan(demo_plan):
    plan = demo_plan / ".leafwise"
    run_cli("next", cwd=demo_plan)
    cache_for(PlanPaths(demo_plan)).path.write_bytes(b"not a cache")
    old_file(plan / "nodes/.lw-dead.tmp")
    lease(demo_plan, "SHOP-18", "ghost", -10)
    (plan / "nodes/SHOP-77.yaml").write_text("id: SHOP-77\ntitle: [broken\n")
    (plan / "project.yaml").write_text((plan / "project.yaml").read_text().replace("schema: 1", "schema: 2"))
    env = run_cli("doctor", "--json", cwd=demo_plan).json
    found = checks(env)
    assert found["cache"]["severity"] == "warning" and found["cache"]["fix"] == "leafwise repair"
    assert found["temp_files"]["severity"] == "warning"
    assert found["claims"]["severity"] == "warning"
    assert found["validator"]["severity"] == "error" and found["validator"]["fix"] == "leafwise validate"
    assert found["schema"]["severity"] == "error"
    assert env["result"]["healthy"] is False
    assert env["_next_action"]["command"] == "leafwise validate"  # the first error with a leafwise fix


def test_doctor_without_a_plan_says_how_to_make_one(tmp_path):
    res = run_cli("doctor", "--json", cwd=tmp_path)
    assert res.code == 0
    assert checks(res.json)["root"]["severity"] == "error"
    assert res.json["_next_action"]["command"] == "leafwise init"


# --- repair -------------------------------------------------------------------------

@pytest.fixture
def damaged_plan(tmp_path: Path) -> Path:
    root = write_plan(tmp_path, [
        node("T-1", "Epic", "in-progress"),
        node("T-2", "First", "done", parent="T-1", summary="ok"),
        node("T-3", "Second", "cancelled", parent="T-1", summary="dropped"),
        node("T-4", "Open work", "in-progress", assignee="zed"),
        node("T-5", "Original", "draft"),
        node("T-6", "Other", "draft", depends_on=["T-8"]),
    ])
    nodes = root / ".leafwise/nodes"
    (nodes / "T-7.yaml").write_text("id: T-9\ntitle: Renamed by hand\nstatus: draft\n")  # T-9 free: rename
    (nodes / "T-8.yaml").write_text("id: T-5\ntitle: A copy\nstatus: draft\n")  # T-5 taken: re-id to T-8
    lease(root, "T-4", "zed", -30)  # expired
    lease(root, "T-2", "yan", 30)  # live, but on a done node
    old_file(nodes / ".lw-abc.tmp")
    # named like a live writer's temp file (.lw-<pid>-…): this test process is alive
    (nodes / f".lw-{os.getpid()}-live.tmp").write_text("a writer is writing this right now")
    cache_for(PlanPaths(root)).path.parent.mkdir(parents=True, exist_ok=True)
    cache_for(PlanPaths(root)).path.write_bytes(b"garbage")
    return root


def test_repair_dry_run_lists_everything_and_changes_nothing(damaged_plan):
    before = snapshot(damaged_plan)
    res = run_cli("repair", "--dry-run", "--json", cwd=damaged_plan)
    assert res.code == 0
    env = res.json
    kinds = sorted((c["repair"], c.get("id") or c.get("file")) for c in env["mutation"]["changes"]
                   if "refused" not in c)
    assert kinds == sorted([
        ("rebuild_cache", str(cache_for(PlanPaths(damaged_plan)).path)), ("remove_temp_file", ".leafwise/nodes/.lw-abc.tmp"),
        ("rename_node_file", "T-9"), ("set_id_from_file_name", "T-8"), ("release_claim", "T-4"),
        ("release_claim", "T-2")]), "a cascade waits until every node file loads"
    assert ("cascade", False) in [(c["repair"], c["applied"]) for c in env["mutation"]["changes"]]
    assert env["mutation"]["applied"] is False and env["mutation"]["tool"] == "repair_plan"
    assert env["_next_action"]["command"] == "leafwise repair"
    assert snapshot(damaged_plan) == before


def test_repair_applies_safe_repairs_and_records_them(damaged_plan):
    env = run_cli("repair", "--json", cwd=damaged_plan).json
    applied = sorted((c["repair"], c.get("id") or c.get("file")) for c in env["mutation"]["changes"] if c["applied"])
    assert ("rename_node_file", "T-9") in applied and ("set_id_from_file_name", "T-8") in applied
    assert env["mutation"]["applied"] is True
    nodes = damaged_plan / ".leafwise/nodes"
    assert (nodes / "T-9.yaml").exists() and not (nodes / "T-7.yaml").exists()
    assert (nodes / "T-8.yaml").read_text().startswith("id: T-8\n")
    assert not (nodes / ".lw-abc.tmp").exists() and (nodes / f".lw-{os.getpid()}-live.tmp").exists()
    assert sorted(p.name for p in (damaged_plan / ".leafwise/claims").glob("*.json")) == []
    # the names are fixed first, so the cascade runs in the same repair
    assert run_cli("show", "T-1", "--json", cwd=damaged_plan).json["result"]["status"] == "done"
    assert ("cascade", "T-1") in applied
    assert run_cli("validate", cwd=damaged_plan).code == 0
    journal = [json.loads(line) for line in (damaged_plan / ".leafwise/journal.jsonl").read_text().splitlines()]
    assert {e.get("repair") for e in journal if e["command"] == "repair"} >= {
        "rename_node_file", "set_id_from_file_name", "release_claim", "cascade"}
    found = checks(run_cli("doctor", "--json", cwd=damaged_plan).json)
    assert found["cache"]["severity"] == "ok" and found["temp_files"]["severity"] == "ok"

    again = run_cli("repair", "--json", cwd=damaged_plan).json
    assert again["mutation"] == {"tool": "repair_plan", "operation": "repair", "safe": True, "applied": False,
                                 "reason": "nothing needed repair", "changes": []}
    assert again["_next_action"]["command"] == "leafwise next"


def test_repair_refuses_an_ambiguous_name_and_a_cascade_it_cannot_see(tmp_path):
    root = write_plan(tmp_path, [
        node("T-1", "Epic", "in-progress"),
        node("T-2", "Only child that loads", "done", parent="T-1"),
        node("T-3", "Points at the file name", parent="T-4"),
        node("T-5", "Points at the inner id", depends_on=["T-6"]),
    ])
    (root / ".leafwise/nodes/T-4.yaml").write_text("id: T-6\ntitle: Which am I?\nstatus: draft\nparent: T-1\n")
    before = snapshot(root)
    res = run_cli("repair", "--json", cwd=root)
    assert res.code == 0
    changes = {c["repair"]: c for c in res.json["mutation"]["changes"]}
    assert changes["fix_id_mismatch"]["applied"] is False and "ambiguous" in changes["fix_id_mismatch"]["refused"]
    assert changes["cascade"]["applied"] is False, "T-4 may be T-1's open child: T-1 must stay open"
    assert res.json["mutation"]["applied"] is False
    assert snapshot(root) == before
    assert res.json["_next_action"]["command"].startswith("leafwise ")


def test_repair_without_a_plan_is_an_error(tmp_path):
    res = run_cli("repair", "--json", cwd=tmp_path)
    assert res.code == 5 and res.json["root_cause"]["category"] == "not_found"
