"""`doctor` says when git ignores the plan's committed verdicts (`.leafwise/verdicts/`, `store/verdicts.py`):
a pull request's `.gitignore` of `.leafwise/verdicts/` left every later verdict (a person's reading of an
agent's work) uncommitted in every clone while doctor said 'git ignores none of the plan's files'
(5540695 listed nodes, docs, diagrams, cycles, project.yaml and the journal only).
"""

from __future__ import annotations

import json
import subprocess

import pytest
from testkit import node, run_cli, write_plan

from leafwise.store import verdicts

RULES = {"folder": ".leafwise/verdicts/\n", "json glob": ".leafwise/*/*.json\n", "nested rule": None}


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=e", "-c", "user.email=e@x", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.mark.parametrize("rule", list(RULES))
def test_doctor_warns_of_verdicts_git_never_commits(tmp_path, rule):
    origin = write_plan(tmp_path / "origin", [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1")])
    _git(origin, "init", "-q")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "plan")
    folder = origin / ".leafwise" / verdicts.FOLDER
    if RULES[rule] is None:
        folder.mkdir()
        (folder / ".gitignore").write_text("*\n!.gitignore\n")
        _git(origin, "add", "-f", str(folder / ".gitignore"))
    else:
        (origin / ".gitignore").write_text(RULES[rule])
        _git(origin, "add", ".gitignore")
    _git(origin, "commit", "-qm", "ignore")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(origin), str(clone))
    made = clone / ".leafwise" / verdicts.FOLDER
    made.mkdir(exist_ok=True)
    (made / "T-2.json").write_text(json.dumps({"node": "T-2"}) + "\n")  # a verdict this clone wrote
    ignored = subprocess.run(["git", "ls-files", "-o", "-i", "--exclude-standard"], cwd=clone, capture_output=True,
                             text=True).stdout
    assert ".leafwise/verdicts/T-2.json" in ignored  # git never commits it
    checks = run_cli("doctor", "--json", cwd=clone).json["result"]["checks"]
    check = next(c for c in checks if c["name"] == "ignored")
    assert check["severity"] == "warning", check
    assert "verdicts/T-2.json" in check["message"]
