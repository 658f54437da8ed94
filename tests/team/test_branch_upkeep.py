"""Branch mode's upkeep, on a host that accepts only branches and tags (a pre-receive hook), through the
real CLI in two clones: `team sync` deletes a done claim's file from the state branch past its grace
period (only when done in this branch, in one leased commit), and a state branch deleted on the remote
(a person tidying branches, a mirror push) is named with `Fix: leafwise team repair`, which pushes it back."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import bare_repo, clone, daemon, git, seed_plan


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


@pytest.fixture
def two(tmp_path: Path):
    repo = bare_repo(tmp_path, strict=True)
    a = seed_plan(repo, tmp_path / "clone-0", tasks=3)
    with daemon(tmp_path) as prefix:  # a served host: a local remote's hooks never run for Leafwise
        git(a, "remote", "set-url", "origin", f"{prefix}/plan.git")
        init = leafwise("team", "init", cwd=a)
        assert init.code == 0 and "branch mode" in init.stdout, init.stdout + init.stderr
        git(a, "add", "-A")
        git(a, "commit", "-q", "-m", "team mode")
        git(a, "push", "-q", "origin", "main")
        b = clone(f"{prefix}/plan.git", tmp_path / "clone-1")
        assert leafwise("team", "join", cwd=b).code == 0
        yield [a, b]


def state_files(work: Path) -> list[str]:
    return git(work, "ls-tree", "--name-only", "refs/remotes-leafwise/origin/leafwise/state").split()


@pytest.mark.slow
def test_sync_cleans_a_tombstone_file_only_past_its_grace_period_and_only_when_done_here(two):
    a, b = two
    for task, agent in (("T-1", "alice"), ("T-2", "ann")):
        assert leafwise("start", task, "--agent", agent, cwd=a).code == 0
    assert leafwise("complete", "T-1", "--summary", "ok", "--agent", "alice", cwd=a).code == 0
    kept = leafwise("team", "sync", "--grace-days", "0", "--json", cwd=b)  # not done in b's plan
    assert kept.code == 0 and kept.json["result"]["cleaned"] == [], kept.stderr
    kept = leafwise("team", "sync", "--json", cwd=a)  # done here, but not 7 days ago
    assert kept.json["result"]["cleaned"] == []
    gone = leafwise("team", "sync", "--grace-days", "0", "--json", cwd=a)
    assert gone.code == 0 and gone.json["result"]["cleaned"] == ["T-1"], gone.stdout + gone.stderr
    assert state_files(a) == ["T-2.json"], "ann's live claim stays"
    assert "cleaned 1 done claim(s) [skip ci]" in git(a, "log", "-1", "--format=%s", "refs/remotes-leafwise/origin/leafwise/state")
    assert leafwise("heartbeat", "T-2", "--agent", "ann", cwd=a).code == 0


def test_a_deleted_state_branch_is_named_and_repair_restores_it(two, tmp_path):
    a, b = two
    assert leafwise("start", "T-1", "--agent", "alice", cwd=a).code == 0
    plain = clone((a.parent / "plan.git").as_uri(), tmp_path / "plain")
    git(plain, "push", "-q", "origin", "--delete", "leafwise/state")  # a person tidying "stray" branches
    assert "leafwise/state" not in git(plain, "ls-remote", "origin")
    beat = leafwise("heartbeat", "T-1", "--agent", "alice", cwd=a)
    assert beat.code == 3 and "Fix: leafwise team repair" in beat.stderr, beat.stdout + beat.stderr
    dry = leafwise("team", "repair", "--dry-run", "--json", cwd=a)
    assert dry.code == 0 and dry.json["result"]["missing"] == ["T-1"] and dry.json["result"]["restored"] == []
    fixed = leafwise("team", "repair", "--json", cwd=a)
    assert fixed.code == 0 and fixed.json["result"]["restored"] == ["T-1"], fixed.stdout + fixed.stderr
    assert "leafwise/state" in git(plain, "ls-remote", "origin")
    assert leafwise("heartbeat", "T-1", "--agent", "alice", cwd=a).code == 0
    taken = leafwise("start", "T-1", "--agent", "bob", cwd=b)
    assert taken.code == 3 and "held by alice@" in taken.stdout + taken.stderr
    again = leafwise("team", "repair", "--json", cwd=a)
    assert again.code == 0 and again.json["result"]["missing"] == []
