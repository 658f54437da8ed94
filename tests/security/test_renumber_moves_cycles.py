"""`renumber` moves the cycles that name the node along with it (`commands/domain/renumbering.py`
`_retarget_cycles`).

Found in session 19's attack (h22h), on a cloned plan through the real CLI: a running until-goal cycle
on P1-2 whose verify command is `false` (it never passes). `complete P1-2` was refused (it needs a green
verify), but `renumber P1-2` (P1-2 -> P1-4) left the cycle on P1-2, and `complete P1-4` then passed with
no verify at all: one renumber dropped the gate. Now the cycle's task, current item, items done and last
verify follow the node, and the last verify's green still counts for the node under its new id.
"""

from __future__ import annotations

import pytest
from leafwise.store import PlanPaths
from leafwise.store import cycles as ledger
from testkit import run_cli, run_cli_in_process, write_plan

CYCLES = {  # name: (file, what must hold of the renumbered node T-4)
    "goal": "kind: until-goal\nnode: T-2\n",
    "each": "kind: for-each-work-item\nnode: T-1\ncurrent: T-2\n",
}


def plan(root, body: str, last_verify: str = ""):
    root = write_plan(root, [{"id": "T-1", "title": "Epic", "status": "draft", "release": "R1"},
                             {"id": "T-2", "title": "Leaf", "status": "draft", "parent": "T-1"},
                             {"id": "T-3", "title": "Other", "status": "draft", "parent": "T-1"}])
    folder = root / ".leafwise" / "cycles"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "c.yaml").write_text(body + "max_iterations: 5\ntoken_cap: 1000\nstatus: running\n"
                                   "verify: ['false']\n" + last_verify)
    (folder / "c.count").write_text("1\n")
    return root


def renumber(root) -> str:
    res = run_cli("renumber", "T-2", "--json", cwd=root)
    assert res.code == 0, res.stdout + res.stderr
    return res.json["result"]["id"]


@pytest.mark.parametrize("name", list(CYCLES))
def test_the_verify_gate_follows_the_renumbered_node(tmp_path, name):
    root = plan(tmp_path / "plan", CYCLES[name])
    assert run_cli_in_process("complete", "T-2", "--summary", "x", cwd=root).code == 3
    new_id = renumber(root)
    cycle = ledger.read(PlanPaths(root), "c")
    assert new_id in (cycle.node, cycle.current) and "T-2" not in (cycle.node, cycle.current)
    res = run_cli("complete", new_id, "--summary", "done without a verify", "--json", cwd=root)
    assert res.code == 3 and res.json["error"]["code"] == "verify_required", res.stdout


def test_a_green_verify_and_the_items_done_follow_too(tmp_path):
    root = plan(tmp_path / "plan", "kind: until-goal\nnode: T-2\nitems_done: [T-2, T-3]\n",
                "last_verify: {node: T-2, iteration: 1, green: true, at: '2026-12-06T20:00:00Z', exit_codes: [0]}\n")
    new_id = renumber(root)
    cycle = ledger.read(PlanPaths(root), "c")
    assert cycle.items_done == [new_id, "T-3"] and cycle.last_verify["node"] == new_id
    res = run_cli_in_process("complete", new_id, "--summary", "verified", cwd=root)
    assert res.code == 0, res.stdout + res.stderr


def test_an_unreadable_cycle_does_not_stop_a_renumber(tmp_path):
    root = plan(tmp_path / "plan", "kind: evil\nnode: T-2\n")
    new_id = renumber(root)
    assert (root / ".leafwise" / "nodes" / f"{new_id}.yaml").exists()
