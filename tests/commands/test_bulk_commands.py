"""`leafwise bulk` runs each update through its own command, whichever handler module declares it: the CLI
loads handler modules only up to bulk's, so a command declared after it (heartbeat, unclaim) must still run."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from testkit import node, node_data, run_cli, write_plan


def test_bulk_runs_commands_declared_after_its_own_module(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1"), node("T-2", "B", release="R1")])
    for task in ("T-1", "T-2"):
        assert run_cli("start", task, "--agent", "a", cwd=tmp_path).code == 0
    updates = [{"id": "T-1", "command": "heartbeat", "agent": "a"},
               {"id": "T-2", "command": "unclaim", "agent": "a"}]
    res = run_cli("bulk", "-", "--json", stdin=json.dumps(updates), cwd=tmp_path)
    assert res.code == 0, res.stdout + res.stderr
    assert [(s["id"], s["command"]) for s in res.json["result"]["successful"]] == [("T-1", "heartbeat"),
                                                                                ("T-2", "unclaim")]
    assert node_data(tmp_path, "T-2")["status"] != "in-progress", "unclaim released the task"


def test_bad_bulk_input_points_at_bulk_help(tmp_path: Path) -> None:
    root = write_plan(tmp_path / "my plan", [node("T-1", "A", release="R1")])
    res = run_cli("bulk", "-", "--root", str(root), stdin="not json", cwd=tmp_path)
    assert res.code == 2, res.stdout + res.stderr
    fix = next(line for line in res.stderr.splitlines() if line.startswith("Fix: "))
    assert fix.startswith("Fix: leafwise bulk --root ") and fix.endswith(" --help"), fix
    assert run_cli(*shlex.split(fix[len("Fix: leafwise "):]), cwd=tmp_path).code == 0, "the line runs as printed"


def test_bulk_refuses_more_updates_than_a_call_takes_and_changes_nothing(tmp_path: Path) -> None:
    from leafwise.commands.domain.bulk import MAX_UPDATES

    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    assert run_cli("start", "T-1", "--agent", "a", cwd=tmp_path).code == 0
    before = (tmp_path / ".leafwise" / "nodes" / "T-1.yaml").read_bytes()
    updates = [{"id": "T-1", "command": "heartbeat", "agent": "a"}] * (MAX_UPDATES + 1)
    res = run_cli("bulk", "-", stdin=json.dumps(updates), cwd=tmp_path)
    assert res.code == 2, res.stdout + res.stderr
    assert f"{MAX_UPDATES + 1} updates in one call" in res.stderr
    assert any(line.startswith("Fix: leafwise bulk") for line in res.stderr.splitlines()), res.stderr
    assert (tmp_path / ".leafwise" / "nodes" / "T-1.yaml").read_bytes() == before
    res = run_cli("bulk", "-", "--json", stdin=json.dumps(updates[:MAX_UPDATES]), cwd=tmp_path)
    assert res.code == 0, res.stdout + res.stderr
    assert len(res.json["result"]["successful"]) == MAX_UPDATES, "a full call still runs"
