"""A claim whose heartbeat is in the future holds nothing (`store/claims.py` `from_data`).

Found in session 17's attack (h22c): claim files force-added to a repository reach every clone. The
week's cap on a lease (`MAX_TTL_MINUTES`) was counted from the claim's own heartbeat, so
`{"heartbeat": "9999-12-24T21:18:59Z", "expires": "9999-12-31T23:59:59Z"}` held the task until the year
9999: `next` and `start --next` answered `Wait: mallory holds P1-3 until 9999-12-31…` for good, doctor
said "no expired claims" and repair found nothing to do. Now a heartbeat more than a day ahead of this
machine's clock makes the claim untrusted (the task is free; repair releases the file). Generated over
heartbeats from a day and a minute ahead to the year 9999.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leafwise.store import PlanPaths, claims
from leafwise.store.timestamps import to_text
from testkit import run_cli, run_cli_in_process, write_plan

LATEST = datetime(9999, 12, 24, tzinfo=UTC)
NOW = datetime.now(UTC)  # once: the strategy's bounds stay the same through a run


def plant(root, node_id: str, heartbeat: datetime, expires: datetime) -> None:
    folder = root / ".leafwise" / "claims"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{node_id}.json").write_text(json.dumps(
        {"node": node_id, "agent": "mallory", "since": to_text(heartbeat), "heartbeat": to_text(heartbeat),
         "expires": to_text(expires)}))


@st.composite
def future(draw) -> tuple[datetime, datetime]:
    ahead = draw(st.integers(int((claims.MAX_CLOCK_AHEAD + timedelta(minutes=10)).total_seconds()),
                             int((LATEST - NOW).total_seconds())))
    heartbeat = NOW + timedelta(seconds=ahead)
    expires = heartbeat + timedelta(seconds=draw(st.integers(1, int((LATEST - heartbeat).total_seconds()) + 600_000)))
    return heartbeat, expires


@settings(max_examples=200, deadline=None)
@given(future())
def test_a_heartbeat_from_the_future_holds_nothing(tmp_path_factory, times):
    heartbeat, expires = times
    root = write_plan(tmp_path_factory.mktemp("claim"), [{"id": "T-1", "title": "Task", "status": "draft",
                                                         "release": "R1"}])
    plant(root, "T-1", heartbeat, expires)
    assert claims.read(PlanPaths(root), "T-1") is None
    assert claims.read_all(PlanPaths(root)) == {}


def test_the_clone_reproduction_through_the_cli(tmp_path):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"},
                                          {"id": "T-2", "title": "Other", "status": "draft", "release": "R1"}])
    for node_id in ("T-1", "T-2"):
        plant(root, node_id, datetime(9999, 12, 24, 21, 18, 59, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC))
    res = run_cli("next", cwd=root)
    assert res.code == 0 and "9999" not in res.stdout and "Wait:" not in res.stdout, res.stdout
    assert "release_claim" in run_cli_in_process("repair", "--dry-run", cwd=root).stdout
    started = run_cli_in_process("start", "--next", "--agent", "bot", cwd=root)
    assert started.code == 0, started.stdout + started.stderr


@pytest.mark.parametrize("ahead", [timedelta(0), timedelta(hours=23)])
def test_a_claim_this_machine_did_not_write_holds_an_hour_after_it_arrived(tmp_path, ahead):
    """A claim force-committed with a heartbeat of now (or a clock 23 h ahead) and a week's expiry held
    every task for eight days in every clone (session 19, h22k): unsealed, it ends an hour after its file
    arrived (its mtime: git's checkout), whatever it says."""
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])
    heartbeat = datetime.now(UTC).replace(microsecond=0) + ahead
    plant(root, "T-1", heartbeat, datetime(9999, 12, 31, tzinfo=UTC))
    arrived = datetime.fromtimestamp((root / ".leafwise" / "claims" / "T-1.json").stat().st_mtime, UTC)
    held = claims.read(PlanPaths(root), "T-1")
    assert held is not None and held.agent == "mallory"
    assert claims.parse_time(held.expires) == (arrived + timedelta(minutes=claims.UNSEALED_MINUTES)).replace(microsecond=0)
    assert "Wait: mallory holds T-1" in run_cli_in_process("next", cwd=root).stdout
    old = (datetime.now(UTC) - timedelta(minutes=claims.UNSEALED_MINUTES + 1)).timestamp()
    os.utime(root / ".leafwise" / "claims" / "T-1.json", (old, old))  # it arrived an hour ago
    assert claims.read(PlanPaths(root), "T-1").expired(datetime.now(UTC))
    assert run_cli("start", "--next", "--agent", "bot", cwd=root).code == 0, "the task is free"


def test_a_claim_this_machine_wrote_keeps_its_lease(tmp_path):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])
    assert run_cli("start", "T-1", "--agent", "bob", "--ttl", "240", cwd=root).code == 0
    path = root / ".leafwise" / "claims" / "T-1.json"
    old = (datetime.now(UTC) - timedelta(minutes=claims.UNSEALED_MINUTES + 1)).timestamp()
    os.utime(path, (old, old))
    held = claims.read(PlanPaths(root), "T-1")
    assert not held.expired(datetime.now(UTC)), "sealed: its own four hours"
    data = json.loads(path.read_text())
    data["agent"] = "mallory"  # a copy edited by hand: the seal no longer covers it
    path.write_text(json.dumps(data))
    os.utime(path, (old, old))
    assert claims.read(PlanPaths(root), "T-1").expired(datetime.now(UTC))
