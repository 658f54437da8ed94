"""A plan file written with CRLF line ends keeps them through every edit (`store/roundtrip.py`
`keep_line_ends`, in `splice` and the project writer).

Found in session 19's attack (h22h): a cloned plan whose node and project files have CRLF line ends
(a Windows checkout, `core.autocrlf`). After `edit --set title=…` the node file had mixed ends: the
lines spliced back CRLF, the changed and added ones LF; after `release edit` project.yaml was LF but
for one stray `\\r\\n` on a commented line. Git showed every line changed. Now each file keeps the ends
it had; an LF file stays LF.
"""

from __future__ import annotations

import pytest
from testkit import run_cli_in_process, write_plan

EDITS = [("edit", "T-1", "--set", "title=Edited"), ("comment", "T-1", "--text", "a note"),
         ("block", "T-1", "--reason", "waiting"), ("unblock", "T-1"), ("edit", "T-1", "--add", "tags=x"),
         ("complete", "T-1", "--summary", "done it")]


def ends(data: bytes) -> set[str]:
    lines = data.split(b"\n")[:-1]
    return {"crlf" if line.endswith(b"\r") else "lf" for line in lines}


@pytest.mark.parametrize("crlf", [True, False])
def test_node_and_project_files_keep_their_line_ends(tmp_path, crlf):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft", "release": "R1"}])
    want = {"crlf"} if crlf else {"lf"}
    node = root / ".leafwise" / "nodes" / "T-1.yaml"
    project = root / ".leafwise" / "project.yaml"
    for path in (node, project):
        text = path.read_bytes().replace(b"\r\n", b"\n") + b"# a person's comment\n"
        path.write_bytes(text.replace(b"\n", b"\r\n") if crlf else text)
    for args in EDITS:
        res = run_cli_in_process(*args, cwd=root)
        assert res.code == 0, (args, res.stdout, res.stderr)
        assert ends(node.read_bytes()) == want, (args, node.read_bytes())
    for args in (("release", "add", "R9", "--title", "Nine"), ("release", "edit", "R1", "--title", "Uno"),
                 ("project", "set", "--name", "renamed")):
        res = run_cli_in_process(*args, cwd=root)
        assert res.code == 0, (args, res.stdout, res.stderr)
        assert ends(project.read_bytes()) == want, (args, project.read_bytes())
    assert b"# a person's comment" in project.read_bytes()
    assert run_cli_in_process("validate", cwd=root).code == 0
