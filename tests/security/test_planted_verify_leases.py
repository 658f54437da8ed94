"""A verify lease (`.leafwise/.cache/verify-leases/<ID>.json`) is this machine's own state, read with a
task claim's rules: a heartbeat up to a day ahead (another machine's clock) and a week's expiry. A clone
with leases force-added for every draft (mallory, heartbeat 23h50m ahead, expiry a week after it) made
`verify --next` answer "No draft left to verify: 2 being verified by other agents" for eight days. A
verify lease now holds nothing with a heartbeat more than CLOCK_SLACK ahead, and never outlives its
30 minutes (store/verify_leases.py `read`).

Through the real CLI on a real `git clone`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from testkit import node, write_plan

GIT = ["git", "-c", "user.name=m", "-c", "user.email=m@example.com"]
LEAFWISE = [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"]


def stamp(delta: timedelta) -> str:
    return (datetime.now(timezone.utc) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def clone_with_leases(tmp_path: Path, heartbeat: timedelta, expires: timedelta) -> Path:
    src = write_plan(tmp_path / "src", [node("T-1", "Export users to CSV", release="R1"),
                                        node("T-2", "Import users from CSV", release="R1")])
    leases = src / ".leafwise/.cache/verify-leases"
    leases.mkdir(parents=True)
    for nid in ("T-1", "T-2"):
        (leases / f"{nid}.json").write_text(json.dumps({
            "node": nid, "agent": "mallory", "since": stamp(heartbeat), "heartbeat": stamp(heartbeat),
            "expires": stamp(heartbeat + expires)}))
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=src, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=src, check=True)
    subprocess.run([*GIT, "add", "-f", ".leafwise/.cache/verify-leases"], cwd=src, check=True)
    subprocess.run([*GIT, "commit", "-qm", "plan"], cwd=src, check=True)
    subprocess.run(["git", "clone", "-q", str(src), str(tmp_path / "clone")], check=True)
    return tmp_path / "clone"


def verify_next(root: Path) -> dict:
    done = subprocess.run([*LEAFWISE, "verify", "--next", "--agent", "bob", "--json"], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "LEAFWISE_AGENT": ""}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)["result"]


@pytest.mark.parametrize("heartbeat, expires", [
    (timedelta(hours=23, minutes=50), timedelta(days=7)),   # a claim's day of skew, a claim's week
    (timedelta(hours=1), timedelta(minutes=30)),           # ahead of this machine's own clock
    (timedelta(days=3000), timedelta(minutes=30)),
    (timedelta(minutes=-31), timedelta(days=7)),           # a lease long silent, its expiry a week out
], ids=["day-ahead-week", "hour-ahead", "years-ahead", "silent-week"])
def test_a_planted_verify_lease_holds_no_draft(tmp_path, heartbeat, expires):
    root = clone_with_leases(tmp_path, heartbeat, expires)
    assert os.path.exists(root / ".leafwise/.cache/verify-leases/T-1.json")  # the clone brought them
    result = verify_next(root)
    assert result.get("id") in ("T-1", "T-2"), result


def test_a_live_lease_of_this_machine_still_holds(tmp_path):
    root = clone_with_leases(tmp_path, timedelta(minutes=-1), timedelta(minutes=30))
    result = verify_next(root)
    assert not result.get("id"), result
