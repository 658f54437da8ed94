"""A verdict keeps its draft out of `verify --next` while what it was checked against is unchanged
(h22g, issue 22). A verdict Leafwise never writes did it for good: `recorded` with `files: {}` (nothing
to change), or a state that does not fit the verdict (`absent` waiting for a person's confirmation).
A clone planting one on every draft made `verify --next` answer `Done.` at once. Such a file is no
verdict now (store/verdicts.py `from_data`): the draft is verified again.

Through the real CLI on a real `git clone`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import node, write_plan

GIT = ["git", "-c", "user.name=m", "-c", "user.email=m@example.com"]
BASE = {"agent": "bot", "at": "2026-12-06T00:00:00Z", "head": "0" * 40, "quotes": [], "missing": "nothing here",
        "decided_by": "", "note": ""}
PLANTED = {
    "recorded, no files": {"verdict": "absent", "state": "recorded", "files": {}},
    "recorded, a file without its blob": {"verdict": "partial", "state": "recorded", "files": {".": ""}},
    "rejected, no files": {"verdict": "shipped", "state": "rejected", "files": {}},
    "absent waiting for a person": {"verdict": "absent", "state": "pending", "files": {".": "0" * 40}},
    "partial closed": {"verdict": "partial", "state": "closed", "files": {".": "0" * 40}},
    "absent rejected": {"verdict": "absent", "state": "rejected", "files": {".": "0" * 40}},
}


def verify_next(root: Path) -> dict:
    done = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "verify", "--next", "--agent", "bob",
                           "--json"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "LEAFWISE_AGENT": ""}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_verdict_leafwise_never_writes_settles_no_draft(tmp_path, name):
    src = write_plan(tmp_path / "src", [node("T-1", "Export users to CSV", release="R1"),
                                        node("T-2", "Import users from CSV", release="R1")])
    (src / ".leafwise/verdicts").mkdir()
    for nid in ("T-1", "T-2"):
        (src / f".leafwise/verdicts/{nid}.json").write_text(json.dumps({"node": nid, **BASE, **PLANTED[name]}))
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=src, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=src, check=True)
    subprocess.run([*GIT, "commit", "-qm", "plan"], cwd=src, check=True)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(src), str(clone)], check=True)
    env = verify_next(clone)
    assert env["result"]["id"] in ("T-1", "T-2"), env["_next_action"]
