"""Every writer of project.yaml reads it by the loader's rules first (releases.project_for_edit): a cloned
project.yaml the loader refuses (a `!!binary` value, a key that is no text, an anchor, a duplicate key) was
rewritten by `team init` and by an import's releases as if it held no settings or releases (h22h, after
f7a2af2 closed the release and project commands). Now each refuses with exit 4 and the bytes stay as they
were; a CRLF file keeps its line ends. The real CLI, a real bare remote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from testkit import run_cli

PLANTED = {"binary": "notes: !!binary aGk=\n", "number key": "1: one\n", "anchor": "a: &x 1\nb: *x\n",
           "duplicate key": "name: one\nname: two\n"}


def plan(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    assert run_cli("init", "--prefix", "P", cwd=root).code == 0
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=root, check=True)
    return root


@pytest.mark.parametrize("planted", PLANTED, ids=list(PLANTED))
def test_team_init_and_an_import_leave_a_refused_project_file_alone(tmp_path: Path, planted: str) -> None:
    root = plan(tmp_path)
    project = root / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + PLANTED[planted])
    before = project.read_bytes()
    issues = [{"number": 1, "title": "One", "body": "", "state": "OPEN", "labels": [], "assignees": [],
               "milestone": {"title": "v1"}}]
    (tmp_path / "issues.json").write_text(json.dumps(issues))
    for argv in (("team", "init"), ("import", "github", str(tmp_path / "issues.json"))):
        done = run_cli(*argv, "--json", cwd=root)
        assert done.code == 4 and json.loads(done.stdout)["error"]["code"] == "project_unreadable", (argv, done.stdout)
        assert project.read_bytes() == before


def test_an_import_keeps_a_crlf_project_file_crlf(tmp_path: Path) -> None:
    root = plan(tmp_path)
    project = root / ".leafwise" / "project.yaml"
    project.write_bytes(project.read_bytes().replace(b"\n", b"\r\n"))
    issues = [{"number": 1, "title": "One", "body": "", "state": "OPEN", "labels": [], "assignees": [],
               "milestone": {"title": "v1"}}]
    (tmp_path / "issues.json").write_text(json.dumps(issues))
    assert run_cli("import", "github", str(tmp_path / "issues.json"), cwd=root).code == 0
    text = project.read_bytes()
    assert b"v1" in text and text.count(b"\n") == text.count(b"\r\n")
