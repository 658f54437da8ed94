"""A node whose file is there but does not load (a merge left conflict markers in it) is no missing
node: its children are no orphans and a dependency on it is not dangling. validate names the broken
file's own fix, never `edit CHILD --set parent=null`, which would flatten the tree (the team trial)."""

from __future__ import annotations

from testkit import node, run_cli, write_plan

CONFLICTED = """id: T-1
title: Epic
<<<<<<< HEAD
status: done
=======
status: in-progress
>>>>>>> agent-b
"""


def test_references_to_a_file_that_does_not_load_are_not_dangling(tmp_path):
    write_plan(tmp_path, [node("T-1", "Epic", "in-progress"), node("T-2", "Child", parent="T-1"),
                          node("T-3", "Later", depends_on=["T-1"])])
    (tmp_path / ".leafwise/nodes/T-1.yaml").write_text(CONFLICTED)
    res = run_cli("validate", "--json", cwd=tmp_path)
    problems = res.json["error"]["details"]["problems"]["items"]
    assert [(p["code"], p["node"]) for p in problems] == [("merge_conflict", "T-1")], problems
    assert "parent=null" not in run_cli("validate", cwd=tmp_path).stdout
