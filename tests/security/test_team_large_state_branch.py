"""Branch mode on a state branch holding more than a thousand claim files (tombstones within their grace
period, or files a teammate pushed): every `start` wrote the whole tree to `git mktree` on stdin, the
runner took at most 60 KB there, and each one ended `GitError: git mktree: an input of 70452 bytes is more
than 61440`, exit 1, for good. The runner now writes stdin as git reads it (no 60 KB limit, no
deadlock when git answers while it is still written)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from leafwise.store import git as runner
from testkit import run_cli
from testkit.gitserver import git, joined_pair, seed_plan, bare_repo

NODES = [{"id": f"T-{i}", "title": f"task {i} of the team", "status": "draft"} for i in (1, 2, 3)]
ENV = {"GIT_AUTHOR_NAME": "m", "GIT_AUTHOR_EMAIL": "m@e", "GIT_COMMITTER_NAME": "m", "GIT_COMMITTER_EMAIL": "m@e",
       "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}


def obj(bare: Path, *args: str, data: bytes = b"") -> str:
    return subprocess.run(["git", "--git-dir", str(bare), *args], input=data, capture_output=True, check=True,
                          env=ENV).stdout.decode().strip()


@pytest.mark.parametrize("count", [1_100, 20_000])
def test_branch_mode_starts_on_a_state_branch_of_many_claim_files(tmp_path, count):
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin, mode: branch}\n")
    bare = Path(git(first, "config", "--get", "remote.origin.url").strip())
    blob = obj(bare, "hash-object", "-w", "--stdin", data=b"{}")
    tree = obj(bare, "mktree", data="".join(f"100644 blob {blob}\tX-{i}.json\n" for i in range(count)).encode())
    obj(bare, "update-ref", "refs/heads/leafwise/state", obj(bare, "commit-tree", tree, "-m", "state"))
    started = run_cli("start", "--next", "--agent", "bob", cwd=second, timeout=120)
    assert started.code == 0, started.stdout + started.stderr
    names = obj(bare, "ls-tree", "--name-only", "refs/heads/leafwise/state").split()
    assert "T-1.json" in names and len(names) == count + 1


def test_the_runner_takes_a_large_input_and_answers_while_it_is_written(tmp_path):
    work = seed_plan(bare_repo(tmp_path), tmp_path / "work")
    head = git(work, "rev-parse", "HEAD").strip()
    query = f"{head}\n".encode() * 60_000  # 2.5 MB of query; git's answer (60,000 commits) fills its pipe first
    answer = runner.run_git_remote(work, "cat-file", "--batch-check", stdin=query, deadline=30)
    assert answer.code == 0 and answer.out.count(b"commit") == 60_000
    big = b"x" * (3 * 1024 * 1024)
    made = runner.run_git_remote(work, "hash-object", "-w", "--stdin", stdin=big)
    assert made.code == 0 and git(work, "cat-file", "-s", made.out.decode().strip()).strip() == str(len(big))
