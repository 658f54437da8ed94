"""A claim file's times are a planted value like any other: whatever moments it names (the ends of the
calendar, every zone offset, fractions of a second), reading it gives a claim or none, never an
exception, and `next` answers; a remembered `next` turns when the plan's clock says the lease ended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.store import PlanPaths
from leafwise.store import claims as leases
from testkit import node, run_cli_in_process, write_plan

EDGES = st.sampled_from(["0001-01-01T00:00:00", "0001-01-07T23:59:59", "9999-12-25T00:00:00", "9999-12-31T23:59:59",
                         "2026-12-01T10:00:00.000001", "2026-12-01T10:00:00"])
ZONES = st.sampled_from(["Z", "+14:00", "-23:59", "+00:00", "-12:00", ""])
MOMENT = st.builds(lambda stamp, zone: stamp + zone, EDGES, ZONES)


def script(*args: str, cwd, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The `leafwise` console script as installed (commands/surfaces/entry.py: the memo's way in)."""
    return subprocess.run([sys.executable, "-c", "from leafwise.commands.surfaces.entry import main; main()", *args],
                          cwd=cwd, env={**os.environ, "LEAFWISE_AGENT": "", **(env or {})}, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(since=MOMENT, heartbeat=MOMENT, expires=MOMENT)
def test_any_planted_times_read_as_a_claim_or_none_and_next_answers(tmp_path_factory, since, heartbeat, expires):
    root = tmp_path_factory.mktemp("plan")
    write_plan(root, [node("T-1", "Task", "in-progress"), node("T-2", "Other")])
    (root / ".leafwise/claims").mkdir(exist_ok=True)
    (root / ".leafwise/claims/T-1.json").write_text(json.dumps(
        {"node": "T-1", "agent": "ghost", "since": since, "heartbeat": heartbeat, "expires": expires}))
    claim = leases.read(PlanPaths(root), "T-1")
    assert claim is None or leases.parse_time(claim.expires) - leases.parse_time(claim.heartbeat) <= timedelta(weeks=1)
    answer = run_cli_in_process("next", "--json", cwd=root)
    assert answer.json["status"] == "ok", answer.stdout + answer.stderr


@pytest.mark.slow
def test_the_console_script_answers_on_a_heartbeat_at_the_end_of_time(tmp_path):
    write_plan(tmp_path, [node("T-1", "Task", "in-progress"), node("T-2", "Other")])
    (tmp_path / ".leafwise/claims").mkdir(exist_ok=True)
    (tmp_path / ".leafwise/claims/T-1.json").write_text(json.dumps(
        {"node": "T-1", "agent": "ghost", "since": "9999-12-25T00:00:00+14:00",
         "heartbeat": "9999-12-25T00:00:00+14:00", "expires": "9999-12-31T23:00:00Z"}))
    for args in (("next",), ("show", "T-1"), ("doctor",), ("repair", "--dry-run")):
        answer = script(*args, cwd=tmp_path)
        assert "Traceback" not in answer.stderr and "OverflowError" not in answer.stdout + answer.stderr, (args, answer)


@pytest.mark.slow
def test_a_remembered_next_turns_in_the_second_a_fractional_lease_ends(tmp_path):
    write_plan(tmp_path, [node("T-1", "Only task", "in-progress")])
    (tmp_path / ".leafwise/claims").mkdir(exist_ok=True)
    now = datetime.now(timezone.utc)
    ends = (now + timedelta(seconds=4)).replace(microsecond=50_000)
    (tmp_path / ".leafwise/claims/T-1.json").write_text(json.dumps(
        {"node": "T-1", "agent": "bob", "since": now.isoformat(), "heartbeat": now.isoformat(),
         "expires": ends.isoformat().replace("+00:00", "Z")}))
    time.sleep(2.1)  # past the memo's window for inputs changed just before a run (memo.RACY_NS)
    assert "bob" in script("next", cwd=tmp_path).stdout  # computed, and remembered
    while datetime.now(timezone.utc) < ends:
        time.sleep(0.01)
    # the remembered answer against fresh ones just before and after it: on a loaded machine the
    # three runs may straddle the second the lease ends, so only a bracket that agrees decides
    for _ in range(20):
        before = script("next", cwd=tmp_path, env={"LEAFWISE_MEMO": "0"}).stdout
        remembered = script("next", cwd=tmp_path).stdout
        after = script("next", cwd=tmp_path, env={"LEAFWISE_MEMO": "0"}).stdout
        if before == after:
            assert remembered == before
            return
    pytest.fail("no three runs of next fell within one second")
