"""`unblock` on an open decision is refused: it would leave the question unanswered (found by hand in the CLI)."""

from __future__ import annotations

from testkit import node, run_cli, write_plan


def test_unblock_refuses_an_open_decision_and_decide_still_unblocks(tmp_path):
    write_plan(tmp_path, [node("T-1", "Pick a storage engine")])
    assert run_cli("ask", "T-1", "Which engine?", "--option", "A: sqlite", "--option", "B: postgres",
                   cwd=tmp_path).code == 0
    refused = run_cli("unblock", "T-1", cwd=tmp_path)
    assert refused.code == 3
    assert refused.last_lines[-1] == "Fix: leafwise show T-1"
    assert run_cli("show", "T-1", "--json", cwd=tmp_path).json["result"]["status"] == "blocked"
    answered = run_cli("decide", "T-1", "--option", "2", "--json", cwd=tmp_path)
    assert answered.code == 0 and answered.json["result"]["status"] == "draft"
