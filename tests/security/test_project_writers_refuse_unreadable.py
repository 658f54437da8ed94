"""The commands that rewrite project.yaml refuse one the loader refuses (`commands/domain/releases.py`
`_rewrite`), and leave its bytes alone.

Found in session 19's attack (h22h), on a cloned plan: a project.yaml holding `extra: !!binary aGk=` in
a release entry (or a key YAML reads as no text, or an anchor) does not load, so the plan has no
releases; the writers read it with ruamel, which takes all of these. `release add R9` and `project set
--name` rewrote the file (the tag kept) and answered ok, while `release edit R1` answered "no release
'R1'" of a release the file lists. A multi-document file was already refused; now every file the loader
refuses is, by the loader's own parse.
"""

from __future__ import annotations

import pytest
from testkit import run_cli, run_cli_in_process, write_plan

HEAD = "schema: 1\npid: p\nname: p\nid_prefix: T\n"
UNREADABLE = {
    "binary tag": "releases:\n- {id: R1, title: One, extra: !!binary aGk=}\n",
    "set tag": "releases:\n- {id: R1, title: One}\nx: !!set {a, b}\n",
    "python tag": "releases:\n- {id: R1, title: One}\nx: !!python/name:os.system\n",
    "number key": "releases:\n- {id: R1, title: One}\n1: x\n",
    "bool key": "releases:\n- {id: R1, title: One, true: x}\n",
    "anchor": "releases:\n- &r {id: R1, title: One}\n- *r\n",
    "duplicate key": "releases:\n- {id: R1, title: One}\nname: q\n",
    "bad int": "releases:\n- {id: R1, title: One, n: !!int abc}\n",
}
WRITERS = [("release", "add", "R9", "--title", "Nine"), ("release", "edit", "R1", "--title", "Uno"),
           ("release", "move", "R1", "--before", "R1"), ("release", "remove", "R1"),
           ("project", "set", "--name", "renamed")]


@pytest.mark.parametrize("body", list(UNREADABLE))
def test_every_project_writer_refuses_a_file_the_loader_refuses(tmp_path, body):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft"}])
    project = root / ".leafwise" / "project.yaml"
    project.write_text(HEAD + UNREADABLE[body])
    before = project.read_bytes()
    assert run_cli_in_process("validate", cwd=root).code == 4
    for args in WRITERS:
        res = run_cli_in_process(*args, "--json", cwd=root)
        assert res.code == 4 and res.json["error"]["code"] == "project_unreadable", (args, res.stdout)
        assert project.read_bytes() == before, args
    res = run_cli("release", "add", "R9", "--title", "Nine", cwd=root)
    assert res.code == 4 and "project.yaml cannot be read" in res.stderr, res.stdout + res.stderr


def test_a_readable_project_file_is_still_rewritten(tmp_path):
    root = write_plan(tmp_path / "plan", [{"id": "T-1", "title": "Task", "status": "draft"}])
    project = root / ".leafwise" / "project.yaml"
    project.write_text(HEAD + "releases:\n- {id: R1, title: One}  # the first\n")
    assert run_cli_in_process("release", "add", "R9", "--title", "Nine", cwd=root).code == 0
    assert "# the first" in project.read_text() and "R9" in project.read_text()
