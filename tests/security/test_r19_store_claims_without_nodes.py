"""Claim files of ids no node has are not read (`store/claims.py` `read_all`).

`.leafwise/claims/` is ignored, but force-added files arrive with a clone: 60,000 live claim files of
ids no node file has (`P1-100` … `P1-60099`) made every command that looks at leases read and check all
of them: `show P1-2` 2.45 s, `start --next` 2.4 s, `doctor` 2.5 s, `next` 4.6 s, for good. A lease holds
a node, so only the claims of the node files there are read (one listing of `nodes/`).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from leafwise.store.timestamps import to_text
from testkit import node, write_plan
from testkit.hostile import environment, run_measured

PLANTED = 40_000


def test_claims_of_ids_no_node_has_cost_nothing(tmp_path: Path) -> None:
    root = write_plan(tmp_path / "plan", [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1"),
                                          node("P1-3", "Pay button", parent="P1-1")], prefix="P1")
    claims = root / ".leafwise" / "claims"
    claims.mkdir(exist_ok=True)
    now = datetime.now(UTC)
    for number in (2, *range(100, 100 + PLANTED)):
        node_id = f"P1-{number}"
        (claims / f"{node_id}.json").write_text(json.dumps(
            {"node": node_id, "agent": "mallory", "since": to_text(now), "heartbeat": to_text(now),
             "expires": to_text(now + timedelta(hours=1))}))
    env = environment(tmp_path)
    run_measured(["next"], root, env)  # the node cache warm: what is measured is the claims alone
    for args in (["show", "P1-2"], ["start", "--next", "--agent", "bob"]):
        code, out, err, cpu, _ = run_measured(args, root, env)
        assert code == 0, err
        assert cpu < 0.5, f"{args}: {cpu:.2f} CPU s over {PLANTED} claim files of no node"
    code, out, err, _, _ = run_measured(["start", "P1-2", "--agent", "carol"], root, env)
    assert code != 0 and "mallory" in out + err, out + err  # a claim on a node still holds it
