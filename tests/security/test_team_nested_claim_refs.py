"""A claim ref nested under another's name (`refs/leafwise/claims/T-2/x`) held by the remote even
briefly: each clone that fetched it kept a copy (copies of deleted refs are kept for `team repair`), and
once anyone claimed T-2, no fetch of that clone could write the copy of `claims/T-2` beside it (git:
"'…/T-2/x' exists; cannot create '…/T-2'"). Every team command of that clone then failed for good, as
"locked by another process", `team repair` too. Nested copies are now dropped before each fetch."""

from __future__ import annotations

import subprocess

import pytest

from testkit import run_cli
from testkit.gitserver import git, joined_pair

NODES = [{"id": f"T-{i}", "title": f"task {i} of the team", "status": "draft"} for i in (1, 2, 3)]


@pytest.mark.parametrize("nested", ["T-2/x", "T-2/x/y", "T-2/T-2", "T-2/claim.json"])
def test_a_nested_claim_ref_the_remote_held_once_never_blocks_a_clone(tmp_path, nested):
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin}\n")
    bare = git(first, "config", "--get", "remote.origin.url").strip()
    assert run_cli("start", "T-1", "--agent", "alice", cwd=first).code == 0
    sha = git(first, "ls-remote", bare, "refs/leafwise/claims/T-1").split()[0]
    git(first, "push", "-q", bare, f"{sha}:refs/leafwise/claims/{nested}")
    assert run_cli("team", "status", cwd=second).code == 0  # the second clone fetches it
    git(first, "push", "-q", bare, f":refs/leafwise/claims/{nested}")
    assert run_cli("start", "T-2", "--agent", "alice", cwd=first).code == 0
    for args in (("team", "status", "--json"), ("team", "sync"), ("start", "--next", "--agent", "bob")):
        done = run_cli(*args, cwd=second, timeout=60)
        assert done.code == 0, (args, done.stdout + done.stderr)
    shown = run_cli("team", "status", "--json", cwd=second)
    assert {row["node_id"] for row in shown.json["result"]["claims"]} == {"T-1", "T-2", "T-3"}


def test_a_nested_ref_planted_where_a_claim_was_never_locks_a_clone_and_repair_clears_it(tmp_path):
    """The other way round: the remote's `claims/T-2` deleted and `claims/T-2/x` pushed in its place. Every
    clone keeping a copy of T-2's claim could no longer fetch (its copy holds the name) and every `start
    T-2` anywhere failed with "no claim of yours"; now fetches leave the nested name out, `start` names it
    and a person's `team repair` deletes it and puts T-2's claim back."""
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin}\n")
    bare = git(first, "config", "--get", "remote.origin.url").strip()
    assert run_cli("start", "T-2", "--agent", "alice", cwd=first).code == 0
    assert run_cli("team", "status", cwd=second).code == 0  # the second clone has T-2's copy
    sha = git(first, "ls-remote", bare, "refs/leafwise/claims/T-2").split()[0]
    git(first, "push", "-q", bare, ":refs/leafwise/claims/T-2")
    git(first, "push", "-q", bare, f"{sha}:refs/leafwise/claims/T-2/x")
    for args in (("team", "status"), ("team", "sync"), ("next", "--agent", "bob")):
        done = run_cli(*args, cwd=second, timeout=60)
        assert done.code == 0 and "locked" not in done.stdout + done.stderr, (args, done.stdout + done.stderr)
    third = tmp_path / "c"
    subprocess.run(["git", "clone", "-q", "-b", "main", bare, str(third)], check=True, capture_output=True)
    assert run_cli("team", "join", cwd=third).code == 0
    blocked = run_cli("start", "T-2", "--agent", "carol", cwd=third, timeout=60)
    assert blocked.code == 3 and "claims/T-2/" in blocked.stderr + blocked.stdout, blocked.stdout + blocked.stderr
    repaired = run_cli("team", "repair", cwd=second, timeout=60)
    assert repaired.code == 0 and "deleted" in repaired.stdout and "restored T-2" in repaired.stdout, repaired.stdout
    listed = git(first, "ls-remote", bare, "refs/leafwise/claims/*")
    assert listed.endswith("\trefs/leafwise/claims/T-2\n") and listed.count("\n") == 1, listed  # no T-2/x
