"""`doctor` says when git ignores plan files (`commands/domain/doctor.py` `_ignored_check`).

Found in session 19's attack (h22k): a pull request's `.gitignore` of `.leafwise/nodes/*` with `!` lines for
the node files already there. In every clone that merged it, `add` and `edit` worked, `validate` and
`doctor` were clean, and no new node was ever committed: `git add -A` left each one out, so the team never
saw the work planned after the merge. Now doctor warns, naming a hidden file and how to find the rule.
"""

from __future__ import annotations

import subprocess

import pytest
from testkit import node, run_cli, write_plan

RULES = {"nodes glob with exceptions": ".leafwise/nodes/*\n!.leafwise/nodes/T-1.yaml\n!.leafwise/nodes/T-2.yaml\n",
         "every yaml": "*.yaml\n!.leafwise/project.yaml\n!.leafwise/nodes/T-[12].yaml\n",
         "docs": ".leafwise/docs/\n"}


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=e", "-c", "user.email=e@x", *args], cwd=cwd, check=True,
                   capture_output=True)


def _doctor(root) -> dict:
    checks = run_cli("doctor", "--json", cwd=root).json["result"]["checks"]
    return next(c for c in checks if c["name"] == "ignored")


@pytest.mark.parametrize("rule", list(RULES))
def test_doctor_warns_of_plan_files_git_never_commits(tmp_path, rule):
    origin = write_plan(tmp_path / "origin", [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1")])
    _git(origin, "init", "-q")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "plan")
    assert _doctor(origin)["severity"] == "ok"
    (origin / ".gitignore").write_text(RULES[rule])
    _git(origin, "add", ".gitignore")
    _git(origin, "commit", "-qm", "ignore")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(origin), str(clone))
    assert run_cli("add", "New work", "--parent", "T-1", cwd=clone).code == 0
    assert run_cli("doc", "T-2", "--write", "-", cwd=clone, stdin="# notes\n").code == 0
    check = _doctor(clone)
    assert check["severity"] == "warning", check
    assert "git ignores" in check["message"] and "git check-ignore -v" in check["message"]


def test_no_check_outside_git(tmp_path):
    root = write_plan(tmp_path / "plain", [node("T-1", "Epic", release="R1")])
    checks = run_cli("doctor", "--json", cwd=root).json["result"]["checks"]
    assert "ignored" not in {c["name"] for c in checks}
