"""A remote where a ref Leafwise writes is a symbolic ref (someone with the remote's folder made
`refs/leafwise/claims/T-3 -> refs/heads/main`, or branch mode's `refs/heads/leafwise/state -> main`): the
host writes the ref it points at. Before, a person's `team repair` (the `Fix:` an unreadable claim
names) deleted the team's main branch, and one `start --next` in branch mode fast-forwarded main to a
commit holding only `T-1.json`. Now a delete is never sent through a symbolic ref (refs.push asks the
remote first) and a commit is never made on a state branch whose tip holds anything but claim files."""

from __future__ import annotations

import subprocess
from contextlib import nullcontext
from pathlib import Path

import pytest

from testkit import run_cli
from testkit.gitserver import daemon, git, joined_pair, set_url

NODES = [{"id": f"T-{i}", "title": f"task {i} of the team", "status": "draft"} for i in (1, 2, 3)]


def bare_of(work: Path) -> Path:
    return Path(git(work, "config", "--get", "remote.origin.url").strip())


def main_tree(bare: Path) -> list[str]:
    return git(bare, "ls-tree", "--name-only", "refs/heads/main").split()


def cli(*args: str, cwd: Path):
    return run_cli(*args, cwd=cwd, timeout=120)


@pytest.mark.parametrize("served", [False, True], ids=["path", "git-daemon"])
@pytest.mark.parametrize("target", ["refs/heads/main", "refs/tags/v1", "refs/leafwise/claims/T-1"])
def test_team_repair_never_deletes_through_a_symbolic_claim_ref(tmp_path, target, served):
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin}\n")
    bare = bare_of(first)
    assert cli("start", "T-1", "--agent", "alice", cwd=first).code == 0
    git(bare, "update-ref", "refs/tags/v1", "refs/heads/main")
    git(bare, "symbolic-ref", "refs/leafwise/claims/T-3", target)
    before = git(bare, "for-each-ref", "--format=%(objectname) %(refname)", target)
    with daemon(tmp_path) if served else nullcontext() as prefix:
        if served:
            set_url(second, f"{prefix}/{bare.name}")
        shown = cli("team", "status", cwd=second)
        assert "unreadable" in shown.stdout, shown.stdout + shown.stderr  # T-3's copy is no T-3 claim
        done = cli("team", "repair", cwd=second)
    assert done.code == 0, done.stdout + done.stderr
    assert git(bare, "for-each-ref", "--format=%(objectname) %(refname)", target) == before
    assert "symbolic ref to " + target in done.stdout, done.stdout
    assert ".leafwise" in main_tree(bare)


@pytest.mark.parametrize("seen", [False, True], ids=["fresh-clone", "clone-that-saw-the-state"])
def test_branch_mode_never_commits_on_a_state_branch_that_is_main(tmp_path, seen):
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin, mode: branch}\n")
    bare = bare_of(first)
    if seen:
        assert cli("start", "T-1", "--agent", "alice", cwd=second).code == 0
    git(bare, "update-ref", "-d", "refs/heads/leafwise/state") if seen else None
    git(bare, "symbolic-ref", "refs/heads/leafwise/state", "refs/heads/main")
    tip = git(bare, "rev-parse", "refs/heads/main")
    for args in (("start", "--next", "--agent", "bob"), ("team", "sync"), ("team", "repair")):
        cli(*args, cwd=second)
        assert git(bare, "rev-parse", "refs/heads/main") == tip, args
    started = cli("start", "--next", "--agent", "bob", cwd=second)
    assert started.code != 0 and "not a state branch" in started.stdout + started.stderr or seen, started.stdout
    assert ".leafwise" in main_tree(bare)


def test_a_plain_claim_delete_still_lands(tmp_path):
    """The check costs a look, never a refusal of a plain ref: an unreadable claim is still deleted."""
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin}\n")
    bare = bare_of(first)
    blob = subprocess.run(["git", "--git-dir", str(bare), "hash-object", "-w", "--stdin"], input=b"{}",
                          capture_output=True, check=True).stdout.decode().strip()
    git(bare, "update-ref", "refs/leafwise/claims/T-3", blob)
    done = cli("team", "repair", cwd=second)
    assert done.code == 0 and "deleted T-3" in done.stdout, done.stdout + done.stderr
    assert "refs/leafwise/claims/T-3" not in git(bare, "for-each-ref")


def test_a_stray_file_on_the_state_branch_blocks_no_claim(tmp_path):
    """Only a folder or a submodule (main's `.leafwise/`) marks another branch: a stray file at the top of
    the state branch is dropped by the next claim commit, as before."""
    first, second = joined_pair(tmp_path, NODES, "settings:\n  team: {remote: origin, mode: branch}\n")
    bare = bare_of(first)
    assert cli("start", "T-1", "--agent", "alice", cwd=first).code == 0
    tip = git(bare, "rev-parse", "refs/heads/leafwise/state").strip()
    listing = git(bare, "ls-tree", tip)
    blob = subprocess.run(["git", "--git-dir", str(bare), "hash-object", "-w", "--stdin"], input=b"hi\n",
                          capture_output=True, check=True).stdout.decode().strip()
    tree = subprocess.run(["git", "--git-dir", str(bare), "mktree"], input=(listing + f"100644 blob {blob}\tREADME.md\n")
                          .encode(), capture_output=True, check=True).stdout.decode().strip()
    commit = subprocess.run(["git", "--git-dir", str(bare), "commit-tree", tree, "-p", tip, "-m", "readme"],
                            capture_output=True, check=True, env={"GIT_AUTHOR_NAME": "m", "GIT_AUTHOR_EMAIL": "m@e",
                                                                  "GIT_COMMITTER_NAME": "m", "GIT_COMMITTER_EMAIL": "m@e",
                                                                  "PATH": "/usr/bin:/bin"}).stdout.decode().strip()
    git(bare, "update-ref", "refs/heads/leafwise/state", commit)
    started = cli("start", "--next", "--agent", "bob", cwd=second)
    assert started.code == 0, started.stdout + started.stderr
