"""A local remote is served hardened whatever its folder is called. A folder holding `::`
(`/srv/team::plan.git`) was taken for a remote helper (`<transport>::<address>`), though git's rule is a
scheme-like word at the start: git served it as a path, with its own hooks. A local remote reached through the person's `insteadOf` / `pushInsteadOf` rewrite is served hardened
whatever its folder is called: a base holding a space (`url."/mnt/shared drive/plan.git".insteadOf`)
was read as a cut key (`git config --get-regexp` puts a space between key and value), so the rewrite was
missed, the URL looked remote, and the folder's own hooks ran for every claim push."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from leafwise.store import git as runner
from testkit import run_cli
from testkit.gitserver import git, seed_plan

FOLDERS = ("shared drive", "a\tb", "x  y", "lead space", "dots. in. it", 'quote"d', "semi;colon #hash", "team::x",
           "a::b::c", "ext::x", "file::y")


def hooked_bare(parent: Path, marks: Path) -> Path:
    parent.mkdir(parents=True)
    repo = parent / "plan.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(repo)], check=True)
    for name in ("pre-receive", "update", "post-receive", "reference-transaction"):
        hook = repo / "hooks" / name
        hook.write_text(f"#!/bin/sh\ntouch '{marks}/{name}'\n")
        hook.chmod(0o755)
    return repo


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_rewrite_to_a_local_folder_of_any_name_is_served_hardened(tmp_path, folder):
    marks = tmp_path / "marks"
    marks.mkdir()
    repo = hooked_bare(tmp_path / folder, marks)
    work = seed_plan(hooked_bare(tmp_path / "seed", marks), tmp_path / "work")
    for child in marks.iterdir():  # the seed's own push ran its hooks: live control
        child.unlink()
    git(work, "config", f"url.{repo}.pushInsteadOf", "https://example.invalid/plan.git")
    git(work, "config", f"url.{repo}.insteadOf", "git@example.invalid:")
    runner.forget()
    pushed = runner.run_git_remote(work, "push", "--", "https://example.invalid/plan.git", "HEAD:refs/leafwise/a")
    listed = runner.run_git_remote(work, "ls-remote", "--", "git@example.invalid:")
    assert pushed.code == 0 and "refs/leafwise/a" in listed.text, pushed.text + listed.text
    assert not sorted(p.name for p in marks.iterdir())


def test_team_init_through_a_rewrite_to_a_folder_with_a_space_runs_none_of_its_hooks(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    repo = hooked_bare(tmp_path / "shared drive", marks)
    work = seed_plan(hooked_bare(tmp_path / "seed", marks), tmp_path / "work")
    for child in marks.iterdir():
        child.unlink()
    git(work, "remote", "set-url", "origin", "https://example.invalid/plan.git")
    git(work, "config", f"url.{repo}.insteadOf", "https://example.invalid/plan.git")
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=work, check=True, capture_output=True)
    assert (marks / "pre-receive").exists()  # plain git goes there and runs them: the payload is live
    for child in marks.iterdir():
        child.unlink()
    done = run_cli("team", "init", cwd=work, timeout=120)
    assert done.code == 0, done.stdout + done.stderr
    assert "ok  create-only" in done.stdout and "ok  leased delete" in done.stdout  # the probe reached it
    assert not sorted(p.name for p in marks.iterdir())


@pytest.mark.parametrize("folder", [f for f in FOLDERS if "::" in f])
@pytest.mark.parametrize("as_uri", [False, True])
def test_a_local_remote_named_directly_is_served_hardened(tmp_path, folder, as_uri):
    marks = tmp_path / "marks"
    marks.mkdir()
    repo = hooked_bare(tmp_path / folder, marks)
    work = seed_plan(hooked_bare(tmp_path / "seed", marks), tmp_path / "work")
    url = f"file://{repo}" if as_uri else str(repo)
    plain = subprocess.run(["git", "push", "-q", url, "HEAD:refs/heads/live"], cwd=work, capture_output=True)
    assert plain.returncode == 0 and (marks / "pre-receive").exists(), plain.stderr  # live control
    for child in marks.iterdir():
        child.unlink()
    runner.forget()
    pushed = runner.run_git_remote(work, "push", "--", url, "HEAD:refs/leafwise/a")
    assert pushed.code == 0, pushed.text
    assert not sorted(p.name for p in marks.iterdir())
