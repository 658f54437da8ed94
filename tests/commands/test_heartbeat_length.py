"""A heartbeat without --ttl renews the lease the agent took, not the plan's default: an agent that
took a short lease and died after one heartbeat frees its task as soon as it promised."""

from __future__ import annotations

import json
from datetime import datetime

from testkit import node, run_cli, write_plan


def lease_minutes(root) -> float:
    claim = json.loads((root / ".leafwise/claims/T-1.json").read_text())
    at = lambda text: datetime.fromisoformat(text.replace("Z", "+00:00"))  # noqa: E731
    return (at(claim["expires"]) - at(claim["heartbeat"])).total_seconds() / 60


def test_a_heartbeat_keeps_the_lease_length_it_was_given(tmp_path):
    write_plan(tmp_path, [node("T-1", "Export orders as CSV")])
    assert run_cli("start", "T-1", "--agent", "ann", "--ttl", "2", cwd=tmp_path).code == 0
    assert round(lease_minutes(tmp_path)) == 2
    beat = run_cli("heartbeat", "T-1", "--agent", "ann", cwd=tmp_path)
    assert beat.code == 0, beat.stderr
    assert round(lease_minutes(tmp_path)) == 2
    assert run_cli("heartbeat", "T-1", "--agent", "ann", "--ttl", "30", cwd=tmp_path).code == 0
    assert round(lease_minutes(tmp_path)) == 30  # asked for: the new length, kept from then on
    assert run_cli("heartbeat", "T-1", "--agent", "ann", cwd=tmp_path).code == 0
    assert round(lease_minutes(tmp_path)) == 30
