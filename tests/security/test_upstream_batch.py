"""What a follower reads of the remote's node files is each file's own (`commands/team/upstream.py` `_batch`).

Found in session 17's attack (h22c): `cat-file --batch` answers a header and a body for every object,
and the reader skipped the body only of blobs: a folder (a tree) named like a node file in the
remote's `.leafwise/nodes/` left its bytes to be read as the next header, so every later file of the
batch was lost or read from the wrong bytes (a commit with `T-5.yaml/inner`: the statuses of T-6 and
T-7, one of them done, were gone; `canvas --follow` saw nothing open or done there). Generated: folders,
symbolic links and files named like node files, in every order, against the statuses git holds.
"""

from __future__ import annotations

import subprocess

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leafwise.commands.team import upstream
from leafwise.store import git

KINDS = ("file", "folder", "link", "broken")


def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(KINDS), min_size=2, max_size=8))
def test_each_node_file_is_read_from_its_own_bytes(tmp_path_factory, kinds):
    repo = tmp_path_factory.mktemp("remote")
    _git(repo, "init", "-q", "-b", "main")
    nodes = repo / ".leafwise" / "nodes"
    nodes.mkdir(parents=True)
    expected = {}
    for i, kind in enumerate(kinds, start=1):
        name = f"T-{i}.yaml"
        status = ("draft", "done", "in-progress")[i % 3]
        if kind == "file":
            (nodes / name).write_text(f"id: T-{i}\ntitle: t{i}\nstatus: {status}\n")
            expected[f"T-{i}"] = status
        elif kind == "folder":  # its tree's bytes hold a header-like line and a node's text
            (nodes / name).mkdir()
            (nodes / name / f"x\n{'0' * 40} blob 40\nid: T-{i + 1}\nstatus: done").write_text("y")
        elif kind == "link":
            (nodes / name).symlink_to("../../README")
        else:
            (nodes / name).write_text(": : not yaml [\n")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-qm", "x")
    sha = _git(repo, "rev-parse", "HEAD").decode().strip()
    git.forget()
    assert upstream.statuses(repo, sha, nodes) == expected


def _claim(node_id: str) -> bytes:
    from leafwise.commands.team.refs import ClaimState

    return ClaimState(node=node_id, agent="bot", clone="c1", branch="main", state="held", ttl_s=600.0).as_json()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.booleans(), min_size=2, max_size=6))
def test_each_claim_is_read_from_its_own_commit(tmp_path_factory, trees):
    """The claim refs' batch reader (`commands/team/refs.py` `_read_batch`) had the same fault: a claim
    commit whose `claim.json` is a folder made every later claim of the batch unreadable."""
    from leafwise.commands.team import refs

    repo = tmp_path_factory.mktemp("claims")
    _git(repo, "init", "-q", "-b", "main")
    wanted, expected = {}, {}
    for i, as_tree in enumerate(trees, start=1):
        node_id = f"T-{i}"
        work = repo / node_id
        work.mkdir()
        if as_tree:
            (work / refs.CLAIM_FILE).mkdir()
            (work / refs.CLAIM_FILE / f"x\n{'0' * 40} blob 120\n").write_bytes(_claim(f"T-{i + 1}"))
        else:
            (work / refs.CLAIM_FILE).write_bytes(_claim(node_id))
        _git(work, "init", "-q")
        _git(work, "add", "-A")
        _git(work, "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-qm", node_id)
        sha = _git(work, "rev-parse", "HEAD").decode().strip()
        _git(repo, "fetch", "-q", str(work), f"HEAD:refs/leafwise/claims/{node_id}")
        wanted[node_id] = sha
        expected[node_id] = None if as_tree else "held"
    git.forget()
    refs.forget()
    read = refs.read_commits(repo, wanted)
    assert {n: (s.state if s else None) for n, s in read.items()} == expected
