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
    git._PINNED.clear()
    assert upstream.statuses(repo, sha, nodes) == expected
