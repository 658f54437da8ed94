"""What agents through the real CLI and MCP server are refused or told, each a test:
completing out of dependency order, a broken project.yaml, reasons cut without a word, and a task
held for good after an unblock."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import yaml
from testkit import journal, node, node_data, run_cli, write_plan


def plan(tmp_path: Path) -> Path:
    return write_plan(tmp_path, [
        node("T-1", "Epic", release="R1"),
        node("T-2", "Schema", parent="T-1"),
        node("T-3", "Models", parent="T-1", depends_on=["T-2"]),
        node("T-4", "Other", parent="T-1"),
    ])


def status(root: Path, node_id: str) -> str:
    return yaml.safe_load((root / f".leafwise/nodes/{node_id}.yaml").read_text())["status"]


def problems(root: Path) -> list[dict]:
    """`validate --json`'s problems (in `error.details` when the plan has errors)."""
    env = run_cli("validate", "--json", cwd=root).json
    found = (env["result"] or env["error"]["details"])["problems"]
    return found["items"]


def test_an_agent_cannot_complete_a_task_whose_dependency_is_open(tmp_path):
    root = plan(tmp_path)
    res = run_cli("complete", "T-3", "--summary", "done", "--agent", "a1", "--json", cwd=root)
    assert res.code == 3 and res.json["error"]["code"] == "dependency_open"
    assert "T-2" in res.json["error"]["message"]
    assert res.json["_next_action"]["command"] == "leafwise start --next --agent a1"
    assert status(root, "T-3") == "draft"


def test_a_person_may_complete_it_anyway_and_is_told_about_the_dependency(tmp_path):
    root = plan(tmp_path)
    res = run_cli("complete", "T-3", "--summary", "done by hand", "--json", cwd=root)
    assert res.code == 0
    assert [w["code"] for w in res.json["result"]["warnings"]] == ["dependency_open"]
    text = run_cli("complete", "T-4", "--summary", "x", cwd=root)
    assert text.code == 0 and "warning" not in text.stdout


def test_a_broken_project_file_comes_first_without_its_echoes_and_stops_new_work(tmp_path):
    root = plan(tmp_path)
    with open(root / ".leafwise/project.yaml", "a") as f:
        f.write("releases: [ {id: R1\n")
    items = problems(root)
    assert items[0]["file"] == ".leafwise/project.yaml" and items[0]["severity"] == "error"
    assert not {p["code"] for p in items} & {"unknown_release", "foreign_prefix"}
    diagnosed = run_cli("diagnose", "--json", cwd=root).json["_next_action"]
    assert diagnosed["marker"] == "wait" and ".leafwise/project.yaml line" in diagnosed["condition"]
    for args in (("add", "New thing", "--parent", "T-1"), ("start", "--next", "--agent", "a1"),
                 ("complete", "T-4", "--summary", "x", "--agent", "a1")):
        res = run_cli(*args, "--json", cwd=root)
        assert res.code == 4, args
        agent = [args[i + 1] for i, w in enumerate(args) if w == "--agent"]
        assert res.json["_next_action"]["command"] == " ".join(["leafwise diagnose", *(f"--agent {a}" for a in agent)]), args
    assert sorted(p.name for p in (root / ".leafwise/nodes").iterdir()) == [f"T-{i}.yaml" for i in range(1, 5)]


def test_a_reason_too_long_for_a_row_is_refused_not_cut(tmp_path):
    root = plan(tmp_path)
    long = "x" * 5000
    for args in (("block", "T-2", "--reason", long, "--agent", "a1"), ("cancel", "T-4", "--reason", long)):
        res = run_cli(*args, "--json", cwd=root)
        assert res.code == 2 and res.json["error"]["code"] == "too_long", args
        assert '--reason "<reason>"' in res.json["_next_action"]["command"]
    assert status(root, "T-2") == "draft"
    assert run_cli("block", "T-2", "--reason", "y" * 1000, "--agent", "a1", cwd=root).code == 0
    assert yaml.safe_load((root / ".leafwise/nodes/T-2.yaml").read_text())["blocked_reason"] == "y" * 1000


def test_unblock_gives_the_holder_a_fresh_lease_so_the_task_is_not_held_for_good(tmp_path):
    root = plan(tmp_path)
    assert run_cli("start", "T-2", "--agent", "a1", cwd=root).code == 0
    assert run_cli("block", "T-2", "--reason", "needs creds", "--agent", "a1", cwd=root).code == 0
    assert not (root / ".leafwise/claims/T-2.json").exists()  # block gives the lease up
    assert run_cli("start", "T-4", "--agent", "a1", cwd=root).code == 0  # a1 is still at work (lifecycle.unblocked_status)
    res = run_cli("unblock", "T-2", "--note", "in the vault", "--agent", "a2", "--json", cwd=root)
    assert res.code == 0 and res.json["result"]["status"] == "in-progress"
    lease = json.loads((root / ".leafwise/claims/T-2.json").read_text())
    assert lease["agent"] == "a1"
    assert journal(root)[-1]["claim_expires"] == lease["expires"]
    assert res.json["_next_action"]["or"] == "leafwise start --next --agent a2"
    held = run_cli("diagnose", "T-2", "--agent", "a3", "--json", cwd=root).json["_next_action"]
    assert held["marker"] == "wait" and "a1 holds T-2 until" in held["condition"]  # a lease ends; a bare assignment did not


def test_dependencies_on_an_ancestor_or_twice_are_reported(tmp_path):
    root = write_plan(tmp_path, [
        node("T-1", "Epic", release="R1"),
        node("T-2", "Child", parent="T-1", depends_on=["T-1"]),
        node("T-3", "Twice", parent="T-1", depends_on=["T-4", "T-4"]),
        node("T-4", "Dep", parent="T-1"),
    ])
    items = problems(root)
    found = {(p["code"], p["node"], p["severity"]) for p in items}
    assert ("dependency_on_ancestor", "T-2", "error") in found
    assert ("duplicate_dependency", "T-3", "warning") in found
    fix = next(p["fix"] for p in items if p["code"] == "duplicate_dependency")
    assert run_cli(*shlex.split(fix)[1:], cwd=root).code == 0
    assert yaml.safe_load((root / ".leafwise/nodes/T-3.yaml").read_text())["depends_on"] == ["T-4"]


def test_progress_says_when_a_node_file_does_not_load(tmp_path):
    root = plan(tmp_path)
    (root / ".leafwise/nodes/T-4.yaml").write_text("id: T-4\ntitle: [broken\n")
    res = run_cli("progress", "--json", cwd=root)
    assert res.code == 0
    assert [u["node"] for u in res.json["result"]["unreadable"]] == ["T-4"]
    text = run_cli("progress", cwd=root).stdout
    assert "1 node file(s) do not load and are not counted, e.g. .leafwise/nodes/T-4.yaml" in text
    assert "leafwise diagnose T-4" in text


def test_completing_a_blocked_task_says_the_block_is_cleared(tmp_path):
    root = plan(tmp_path)
    assert run_cli("start", "T-2", "--agent", "a1", cwd=root).code == 0
    assert run_cli("block", "T-2", "--reason", "waiting for keys", "--agent", "a1", cwd=root).code == 0
    res = run_cli("complete", "T-2", "--summary", "keys came", "--agent", "a1", cwd=root)
    assert res.code == 0
    assert "it was blocked (waiting for keys); the block is cleared" in res.stdout
    assert node_data(root, "T-2").get("blocked_reason") is None


def test_a_file_over_the_size_limit_is_not_given_a_size_nobody_measured(tmp_path):
    root = plan(tmp_path)
    (root / ".leafwise/nodes/T-4.yaml").write_text("id: T-4\ntitle: big\ndescription: " + "x" * 1_000_000 + "\n")
    items = problems(root)
    big = next(p for p in items if p["node"] == "T-4")
    assert "over the limit of 262,144 bytes" in big["message"] and "262,145" not in big["message"]


def test_an_unclosed_quote_is_reported_where_it_opens_not_at_the_end_of_the_file(tmp_path):
    root = plan(tmp_path)
    (root / ".leafwise/nodes/T-4.yaml").write_text('id: T-4\ntitle: "Other\nstatus: draft\nparent: T-1\n')
    broken = next(p for p in problems(root) if p["node"] == "T-4")
    assert broken["line"] == 2 and broken["code"] == "yaml_error"
