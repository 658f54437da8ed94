"""The lease on verification: agents verifying in parallel never take one draft twice.

Eight real agent processes walk `verify --next` to the end at once, each recording a verdict on
what it was handed; every draft is verified exactly once. And one agent's lease keeps another's
verdict off that draft (Wait:, with the next draft as the alternative).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import node, run_cli_in_process, write_plan
from testkit.repos import commit_all, write_files

TESTS = Path(__file__).resolve().parents[1]
TITLES = ["Export orders as CSV", "Reset a password by email", "Apply a coupon at checkout", "Gift cards",
          "Dark mode", "Search products by name", "Wishlist sharing", "Refund an order", "Order history page",
          "Two-factor sign in", "Newsletter signup", "Stock alerts", "Invoice PDFs", "Shipping labels",
          "Product reviews", "Loyalty points"]
DRIVER = """
import json, sys
sys.path.insert(0, sys.argv[3])
from testkit import run_cli_in_process
root, agent = sys.argv[1], sys.argv[2]
got = []
for _ in range(400):
    env = json.loads(run_cli_in_process("verify", "--next", "--agent", agent, "--json", cwd=root).stdout)
    node = env["result"]["id"]
    if node is None:
        if env["_next_action"]["marker"] == "done":
            break
        continue  # Wait: the last drafts are leased to others; ask again
    got.append(node)
    done = run_cli_in_process("verify", node, "--verdict", "absent", "--missing", "not in this code",
                              "--agent", agent, cwd=root)
    assert done.code == 0, done.stderr
print(json.dumps(got))
"""


def shop(root: Path, drafts: int) -> Path:
    write_files(root, {"shop/orders.py": "def export_orders_csv(orders):\n    return [o.id for o in orders]\n",
                       "shop/accounts.py": "def send_password_reset_email(user):\n    return user.email\n"})
    commit_all(root)
    return write_plan(root, [node(f"T-{i + 1}", TITLES[i], release="R1") for i in range(drafts)])


@pytest.mark.slow
def test_eight_agents_verify_every_draft_once(tmp_path: Path):
    root = shop(tmp_path / "repo", len(TITLES))
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    agents = [subprocess.Popen([sys.executable, str(driver), str(root), f"agent-{n}", str(TESTS)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(8)]
    handed: dict[str, list[str]] = {}
    for n, proc in enumerate(agents):
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        handed[f"agent-{n}"] = json.loads(out.strip().splitlines()[-1])
    everything = [d for got in handed.values() for d in got]
    assert sorted(everything) == sorted(f"T-{i + 1}" for i in range(len(TITLES))), handed
    for agent, got in handed.items():
        for draft in got:
            verdict = json.loads((root / ".leafwise/verdicts" / f"{draft}.json").read_text())
            assert verdict["agent"] == agent and verdict["verdict"] == "absent"


@pytest.mark.slow
def test_a_lease_keeps_another_agents_verdict_off_the_draft(tmp_path: Path):
    root = shop(tmp_path / "repo", 2)
    first = json.loads(run_cli_in_process("verify", "--next", "--agent", "a1", "--json", cwd=root).stdout)
    second = json.loads(run_cli_in_process("verify", "--next", "--agent", "a2", "--json", cwd=root).stdout)
    assert first["result"]["id"] != second["result"]["id"]
    again = json.loads(run_cli_in_process("verify", "--next", "--agent", "a1", "--json", cwd=root).stdout)
    assert again["result"]["id"] == first["result"]["id"], "an agent's own lease is handed back to it"
    taken = first["result"]["id"]
    refused = run_cli_in_process("verify", taken, "--verdict", "absent", "--missing", "x", "--agent", "a2",
                                 "--json", cwd=root)
    assert refused.code == 3
    env = refused.json
    assert env["_next_action"]["marker"] == "wait" and env["_next_action"]["or"] == "leafwise verify --next --agent a2"
    third = json.loads(run_cli_in_process("verify", "--next", "--agent", "a3", "--json", cwd=root).stdout)
    assert third["result"]["id"] is None and third["_next_action"]["marker"] == "wait"
    assert not (root / ".leafwise/verdicts" / f"{taken}.json").exists()
