"""`canvas --follow` reads the node files of the remote's default branch at a fetched commit: untrusted
input. Only `<node id>.yaml` names are read (a name with a newline would break the line-based batch
query), each through the plan's safe loader and size cap; a file that does not load, is too large, is no
mapping or names another id is left out. A real git repository, a commit holding such files."""

from __future__ import annotations

from leafwise.commands.team import upstream
from leafwise.store.safe_yaml import MAX_NODE_BYTES
from testkit.gitserver import git


def test_only_node_files_that_load_give_a_status(tmp_path):
    nodes = tmp_path / ".leafwise" / "nodes"
    nodes.mkdir(parents=True)
    (nodes / "T-1.yaml").write_text("id: T-1\ntitle: one\nstatus: done\n")
    (nodes / "T-2.yaml").write_text("id: T-2\ntitle: two\nstatus: draft\n")
    (nodes / "T-3.yaml").write_text("id: T-3\nstatus: done\ntitle: " + "x" * (MAX_NODE_BYTES + 10) + "\n")
    (nodes / "T-4.yaml").write_text("- not\n- a mapping\n")
    (nodes / "T-5.yaml").write_text("id: T-6\nstatus: done\n")  # names another node
    (nodes / "T-7.yaml").write_text("id: T-7\nstatus: [done]\n")  # no plain status
    (nodes / "T-8.yaml").write_text("a: &a [*a]\n")  # an alias loop
    (nodes / "zz\nT-1.yaml").write_text("id: T-1\nstatus: cancelled\n")
    (nodes / "evil.yaml").write_text("id: evil\nstatus: done\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "plan")
    sha = git(tmp_path, "rev-parse", "HEAD").strip()
    assert upstream.statuses(tmp_path, sha, nodes) == {"T-1": "done", "T-2": "draft"}
