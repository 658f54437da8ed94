"""A `complete` refused because another clone took the task (over `git daemon` on 127.0.0.1) names the
agent's changed files left in the work tree and, in its one next action, sets them aside: a stash that
keeps them out of the branch, with the next task as its Or."""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import pytest

from testkit import run_cli_in_process, wait_until
from testkit.gitserver import daemon, git, team_clones


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


@pytest.mark.slow
def test_a_refused_complete_names_the_changed_files_and_sets_them_aside(tmp_path: Path):
    with daemon(tmp_path) as prefix:
        a, b = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, tasks=2)
        assert leafwise("start", "T-1", "--agent", "alice", "--ttl", "0.02", cwd=a).code == 0
        (a / "README.md").write_text("alice's half-done work\n")  # an untracked file
        (a / "src").mkdir()
        (a / "src" / "code.py").write_text("x = 1\n")
        git(a, "add", "src/code.py")  # a staged one
        assert leafwise("team", "status", cwd=b).code == 0
        seen = time.monotonic()
        wait_until(lambda: leafwise("start", "T-1", "--agent", "bob", cwd=b).code == 0, 30,
                   what="bob takes the silent claim")
        assert time.monotonic() - seen > 1.2
        late = leafwise("complete", "T-1", "--summary", "late", "--agent", "alice", "--json", cwd=a)
        assert late.code == 3 and late.json["error"]["code"] == "lease_lost", late.stdout
        assert late.json["error"]["details"]["changed_files"] == ["README.md", "src/code.py"]
        step = late.json["_next_action"]
        assert step["marker"] == "fix" and step["command"].startswith("git stash push --include-untracked -m ")
        assert step["command"].endswith("-- . ':(exclude).leafwise'")
        assert step["or"] == "leafwise start --next --agent alice"
        text = leafwise("complete", "T-1", "--summary", "late", "--agent", "alice", cwd=a)
        assert "2 changed file(s) of your work on T-1 stay in the work tree: README.md, src/code.py" in text.stdout
        assert text.last_lines[-2:] == [f"Fix: {step['command']}", "Or: leafwise start --next --agent alice"]
        git(a, *shlex.split(step["command"])[1:])  # the Fix, run as written
        left = git(a, "status", "--porcelain").splitlines()
        assert left == [" M .leafwise/journal.jsonl"], "a clean tree for the next task; the plan stays as it is"
        assert "leafwise: T-1, refused to alice" in git(a, "stash", "list")


@pytest.mark.slow
def test_a_refused_complete_with_a_clean_tree_keeps_its_step(tmp_path: Path):
    with daemon(tmp_path) as prefix:
        a, b = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, tasks=2)
        assert leafwise("start", "T-1", "--agent", "alice", "--ttl", "0.02", cwd=a).code == 0
        assert leafwise("team", "status", cwd=b).code == 0
        wait_until(lambda: leafwise("start", "T-1", "--agent", "bob", cwd=b).code == 0, 30,
                   what="bob takes the silent claim")
        late = leafwise("complete", "T-1", "--summary", "late", "--agent", "alice", "--json", cwd=a)
        assert late.code == 3 and "changed_files" not in late.json["error"]["details"]
        assert late.json["_next_action"]["command"] == "leafwise start --next --agent alice"
