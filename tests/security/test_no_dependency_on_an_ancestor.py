"""No command makes a node depend on a node that contains it (`commands/domain/editing.py`
`_check_depends_on`, `_check_parent`; `planning.add`): validate's `dependency_on_ancestor` error, where
neither node can ever close.

Found in session 19's attack (h22h), through the real CLI: `edit P1-2 --set parent=P1-3` on a P1-2 that
depends on P1-3, `edit P1-2 --set depends_on=[P1-1]` (its parent) and `add Child --parent P1-1
--depends-on P1-1` were each accepted; the plan then had an error that refuses `complete` of the node
until a person edits it back. Now each is refused (exit 2) and nothing is written.
"""

from __future__ import annotations

import json

import pytest
from testkit import run_cli, run_cli_in_process, write_plan

NODES = [{"id": "T-1", "title": "Top", "status": "draft", "release": "R1"},
         {"id": "T-2", "title": "Epic", "status": "draft", "parent": "T-1"},
         {"id": "T-3", "title": "Leaf", "status": "draft", "parent": "T-2"},
         {"id": "T-4", "title": "Other", "status": "draft", "release": "R1"},
         {"id": "T-5", "title": "Waits", "status": "draft", "parent": "T-3", "depends_on": ["T-4"]}]
REFUSED = [("edit", "T-3", "--set", "depends_on=[T-2]"), ("edit", "T-3", "--set", "depends_on=[T-1]"),
           ("edit", "T-3", "--add", "depends_on=T-1"), ("edit", "T-3", "--set", "parent=T-4"),
           ("edit", "T-2", "--set", "parent=T-4"), ("add", "Child", "--parent", "T-2", "--depends-on", "T-1"),
           ("add", "Child", "--parent", "T-3", "--depends-on", "T-3")]


def files(root) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (root / ".leafwise" / "nodes").iterdir()}


@pytest.mark.parametrize("args", REFUSED, ids=" ".join)
def test_a_dependency_on_a_containing_node_is_refused(tmp_path, args):
    root = write_plan(tmp_path / "plan", NODES)
    before = files(root)
    res = run_cli_in_process(*args, "--json", cwd=root)
    assert res.code == 2, (args, res.stdout, res.stderr)
    assert files(root) == before
    assert run_cli_in_process("validate", cwd=root).code == 0


def test_bulk_and_the_legitimate_cases(tmp_path):
    root = write_plan(tmp_path / "plan", NODES)
    res = run_cli("bulk", "-", cwd=root, stdin=json.dumps([{"id": "T-3", "set": {"depends_on": ["T-1"]}}]))
    assert res.code == 1 and "neither could ever close" in res.stdout, res.stdout
    for args in (("edit", "T-3", "--set", "depends_on=[T-4]"), ("edit", "T-1", "--set", "depends_on=[T-4]"),
                 ("add", "Child", "--parent", "T-2", "--depends-on", "T-4"), ("edit", "T-4", "--set", "parent=T-3")):
        res = run_cli_in_process(*args, cwd=root)
        assert res.code == 0, (args, res.stdout, res.stderr)
    assert run_cli_in_process("validate", cwd=root).code == 0
