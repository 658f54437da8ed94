"""A claim ref on the remote that names an annotated tag or a tree instead of a commit. `<sha>:claim.json`
reads through both, so the claim looked held by its author; once its TTL passed, every `start` of the
task ended `GitError: commit-tree failed: ... is not a valid 'commit' object` (exit 1), for good. A claim
is now read from a commit only: anything else is an unreadable claim, with its one step (`team repair`)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from testkit import run_cli
from testkit.gitserver import git, joined_pair

NODES = [{"id": f"T-{i}", "title": f"task {i} of the team", "status": "draft"} for i in (1, 2, 3)]
ENV = {"GIT_AUTHOR_NAME": "m", "GIT_AUTHOR_EMAIL": "m@e", "GIT_COMMITTER_NAME": "m", "GIT_COMMITTER_EMAIL": "m@e"}


def obj(bare: Path, *args: str, data: bytes = b"") -> str:
    return subprocess.run(["git", "--git-dir", str(bare), *args], input=data, capture_output=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", **ENV}).stdout.decode().strip()


def tag(bare: Path, target: str, kind: str) -> str:
    body = f"object {target}\ntype {kind}\ntag t\ntagger m <m@e> 1 +0000\n\nt\n".encode()
    return obj(bare, "hash-object", "-t", "tag", "-w", "--stdin", data=body)


def planted(bare: Path, kind: str) -> str:
    claim = json.dumps({"node": "T-3", "agent": "mallory", "clone": "evil-1", "branch": "main", "state": "held",
                        "ttl_s": 1, "seq": 1, "since": "", "stolen_from": "", "nonce": "ab"}).encode()
    blob = obj(bare, "hash-object", "-w", "--stdin", data=claim)
    tree = obj(bare, "mktree", data=f"100644 blob {blob}\tclaim.json\n".encode())
    commit = obj(bare, "commit-tree", tree, "-m", "x")
    return {"tree": tree, "tag-commit": tag(bare, commit, "commit"), "tag-tree": tag(bare, tree, "tree"),
            "tag-tag-commit": tag(bare, tag(bare, commit, "commit"), "tag"), "tag-blob": tag(bare, blob, "blob")}[kind]


def cli(*args: str, cwd: Path):
    return run_cli(*args, cwd=cwd, timeout=120)


@pytest.mark.parametrize("kind", ["tree", "tag-commit", "tag-tree", "tag-tag-commit", "tag-blob"])
def test_a_claim_ref_that_is_no_commit_is_unreadable_and_repair_clears_it(tmp_path, kind):
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin}\n")
    bare = Path(git(first, "config", "--get", "remote.origin.url").strip())
    git(bare, "update-ref", "refs/leafwise/claims/T-3", planted(bare, kind))
    shown = run_cli("team", "status", "--json", cwd=second, timeout=120)
    rows = {row["node_id"]: row["state"] for row in shown.json["result"]["claims"]}
    assert rows == {"T-3": "unreadable"}, shown.stdout
    time.sleep(1.5)  # past the planted TTL, as this clone observes it
    started = cli("start", "T-3", "--agent", "bob", cwd=second)
    assert started.code == 3 and "GitError" not in started.stdout + started.stderr, started.stdout + started.stderr
    assert cli("team", "repair", cwd=second).code == 0
    again = cli("start", "T-3", "--agent", "bob", cwd=second)
    assert again.code == 0, again.stdout + again.stderr
    assert obj(bare, "cat-file", "-t", "refs/leafwise/claims/T-3") == "commit"
