"""trust's answer lists at most `contract.MAX_ITEMS` commands, the ones not approved first.

Found in the bypass round of session 19: the answer cap (`bounded`, 1,000 items) never reached `trust`:
a cloned plan of 30 nodes with 100 `done_when` commands each made `trust --json` answer all 3,000
(430 KB), as it would 20,000 nodes' worth. Now the array is cut at MAX_ITEMS with the total and
`truncated` said, untrusted commands first (what a person acts on stays in the answer), and the count
of untrusted ones whole."""

from __future__ import annotations

from leafwise.commands.contract import MAX_ITEMS
from leafwise.store import trust as store
from testkit import node, run_cli, write_plan


def test_the_trust_answer_is_bounded_and_keeps_the_untrusted_first(tmp_path):
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}
    root = tmp_path / "plan"
    leaves = [node(f"P1-{i}", "Leaf", parent="P1-1", done_when=[{"command": f"echo {i}-{j}"} for j in range(100)])
              for i in range(2, 14)]
    write_plan(root, [node("P1-1", "Epic", release="R1"), *leaves], prefix="P1")
    total = 12 * 100
    answer = run_cli("trust", "--json", cwd=root, env=env).json["result"]
    assert len(answer["commands"]) == MAX_ITEMS and answer["total"] == total and answer["truncated"], \
        {k: v for k, v in answer.items() if k != "commands"}
    assert answer["untrusted"] == total
    # approve all but the last leaf's 100 (as a person would, outside the CLI's terminal question)
    import os
    os.environ["LEAFWISE_CONFIG_DIR"] = env["LEAFWISE_CONFIG_DIR"]
    try:
        store.allow(root, [f"echo {i}-{j}" for i in range(2, 13) for j in range(100)])
    finally:
        del os.environ["LEAFWISE_CONFIG_DIR"]
    answer = run_cli("trust", "--json", cwd=root, env=env).json["result"]
    assert answer["untrusted"] == 100 and len(answer["commands"]) == MAX_ITEMS
    assert [c["trusted"] for c in answer["commands"][:100]] == [False] * 100
    assert {c["owner"] for c in answer["commands"][:100]} == {"P1-13"}
