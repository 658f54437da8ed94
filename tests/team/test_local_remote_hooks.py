"""A team remote on the local file system (file:// or a plain path) is a repository someone else may
control (a shared folder, a mounted disk). git serves it by starting `receive-pack` / `upload-pack` on
this machine, in that repository, as the person pushing, with that repository's config and hooks and
without the runner's `-c` settings: none of them may run.

Generated over the payload kinds: each hook a push can run (in the remote's hooks folder, or in a
`core.hooksPath` folder of its own config), and each config setting that names a command or changes
the remote's files. Every case first shows the payload is live (plain `git push`/`fetch` fires it), then
runs the same step through the runner: no marker, and the step did its work (or, where the remote's
config makes a push impossible without running its code, the push is refused and says why). The slow
test runs team mode's every remote step with every payload planted at once.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from leafwise.store import git as runner
from testkit import run_cli
from testkit.gitserver import GIT_ENV, bare_repo, clone, git, seed_plan


def plain_git(cwd: Path, *args: str) -> None:
    """git as a person runs it, no hardening; its verdict does not matter (a payload may fail the push)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=cwd, env={**env, **GIT_ENV}, capture_output=True, timeout=60, check=False)


def touch(marks: Path, name: str) -> str:
    return f"touch {shlex.quote(str(marks / name))}"


def hook(folder: Path, name: str, marks: Path) -> None:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\n{touch(marks, name)}\n")
    path.chmod(0o755)


def checked_out(repo: Path) -> Path:
    """Make the bare `repo` a repository with a work tree, its `main` checked out and pushes updating it."""
    tree = repo.parent / "remote-tree"
    tree.mkdir(exist_ok=True)
    git(repo, "config", "core.bare", "false")
    git(repo, "config", "core.worktree", str(tree))
    git(repo, "config", "receive.denyCurrentBranch", "updateInstead")
    return tree


@dataclass(frozen=True)
class Payload:
    plant: Callable[[Path, Path], None]  # (the bare repository, the marks folder)
    step: str = "push"  # what fires it: "push" (a claim ref), "push-main" (the checked-out branch), "fetch"
    refused: str = ""  # the runner's push is refused, saying this (no way to push without running it)
    live: bool = True  # plain git fires it (False: git itself ignores it in a repository's config)


def _hook_payload(name: str, step: str = "push") -> Payload:
    return Payload(lambda repo, marks: hook(repo / "hooks", name, marks), step)


def _own_hooks_path(repo: Path, marks: Path) -> None:
    for name in ("pre-receive", "update", "post-receive", "post-update", "reference-transaction"):
        hook(repo / "evil-hooks", name, marks)
    git(repo, "config", "core.hooksPath", str(repo / "evil-hooks"))


def _push_to_checkout(repo: Path, marks: Path) -> None:
    checked_out(repo)
    hook(repo / "hooks", "push-to-checkout", marks)


def _proc_receive(repo: Path, marks: Path) -> None:
    hook(repo / "hooks", "proc-receive", marks)
    git(repo, "config", "receive.procReceiveRefs", "refs/leafwise")  # every claim push goes to the hook


def _auto_gc(repo: Path, marks: Path) -> None:
    hook(repo / "hooks", "pre-auto-gc", marks)
    for key, value in (("receive.autogc", "true"), ("gc.autoPackLimit", "1"), ("transfer.unpackLimit", "1"),
                       ("gc.autoDetach", "false")):
        git(repo, "config", key, value)
    git(repo, "repack", "-q", "-d")  # one pack now: the next push's own pack is one more than the limit


def _fsmonitor(repo: Path, marks: Path) -> None:
    checked_out(repo)  # updating the checked-out files reads the index, which runs the fsmonitor
    git(repo, "config", "core.fsmonitor", f"{touch(marks, 'fsmonitor')}; false")


def _alternate_refs(repo: Path, marks: Path) -> None:
    alternate = bare_repo(repo.parent, "alternate.git")
    (repo / "objects" / "info" / "alternates").write_text(f"{alternate / 'objects'}\n")
    git(repo, "config", "core.alternateRefsCommand", f"{touch(marks, 'alternate-refs')}; true")


def _pack_objects_hook(repo: Path, marks: Path) -> None:
    git(repo, "config", "uploadpack.packObjectsHook", f"{touch(marks, 'pack-objects-hook')}; exec")


PAYLOADS = {
    **{name: _hook_payload(name) for name in ("pre-receive", "update", "post-receive", "post-update",
                                              "reference-transaction")},
    "own core.hooksPath": Payload(_own_hooks_path),
    "push-to-checkout": Payload(_push_to_checkout, "push-main", refused="checked out"),
    "proc-receive": Payload(_proc_receive, refused="proc-receive"),
    "pre-auto-gc": Payload(_auto_gc),
    "core.fsmonitor": Payload(_fsmonitor, "push-main", refused="checked out"),
    "core.alternateRefsCommand": Payload(_alternate_refs),
    "uploadpack.packObjectsHook": Payload(_pack_objects_hook, "fetch", live=False),
}


def steps(kind: str, url: str, ref: str) -> list[tuple[str, ...]]:
    if kind == "fetch":
        return [("fetch", "--no-tags", "--", url, f"+refs/heads/*:refs/{ref}/*"), ("ls-remote", "--", url)]
    target = "refs/heads/main" if kind == "push-main" else f"refs/leafwise/claims/{ref}"
    return [("push", "--porcelain", "--", url, f"HEAD:{target}")]


def new_commit(work: Path, name: str) -> None:
    (work / name).write_text(name + "\n")
    git(work, "add", name)
    git(work, "commit", "-q", "-m", name)


# Every payload over file://; the plain-path form (the same transport by git's rule, checked below) for two.
CASES = [*((name, "file") for name in PAYLOADS), ("pre-receive", "path"), ("core.fsmonitor", "path")]


@pytest.mark.parametrize(("name", "url_kind"), CASES)
def test_a_local_remotes_payload_never_runs_through_the_runner(tmp_path, name, url_kind):
    payload = PAYLOADS[name]
    repo = bare_repo(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    new_commit(work, "a")
    git(work, "push", "-q", str(repo), "main")
    marks = tmp_path / "marks"
    marks.mkdir()
    payload.plant(repo, marks)
    url = repo.as_uri() if url_kind == "file" else str(repo)

    new_commit(work, "b")
    for args in steps(payload.step, url, "control"):  # plain git: the payload is live
        plain_git(work, *args)
    fired = sorted(p.name for p in marks.iterdir())
    assert bool(fired) == payload.live, f"plain git ran {fired}"
    for mark in marks.iterdir():
        mark.unlink()

    runner.forget()
    new_commit(work, "c")
    for args in steps(payload.step, url, "x"):
        answer = runner.run_git_remote(work, *args)
        if payload.refused:
            assert answer.code != 0 and payload.refused in answer.text, answer.text
        else:
            assert answer.code == 0, answer.text
    assert sorted(p.name for p in marks.iterdir()) == [], f"the runner let the remote run {name}"
    if payload.step == "push" and not payload.refused:
        head = git(work, "rev-parse", "HEAD").strip()
        assert git(repo, "rev-parse", "refs/leafwise/claims/x").strip() == head


def test_a_url_rewritten_to_a_local_path_is_served_hardened(tmp_path):
    """The person's `insteadOf` / `pushInsteadOf` decide where git goes: the runner decides by the same rules."""
    repo = bare_repo(tmp_path)
    work = seed_plan(repo, tmp_path / "work")
    marks = tmp_path / "marks"
    marks.mkdir()
    hook(repo / "hooks", "pre-receive", marks)
    git(work, "config", f"url.{repo.parent.as_uri()}/.pushInsteadOf", "https://example.invalid/")
    git(work, "config", f"url.{repo}.insteadOf", "git@example.invalid:")
    runner.forget()
    pushed = runner.run_git_remote(work, "push", "--", "https://example.invalid/plan.git", "HEAD:refs/leafwise/a")
    fetched = runner.run_git_remote(work, "ls-remote", "--", "git@example.invalid:")
    assert pushed.code == 0 and "refs/leafwise/a" in fetched.text, pushed.text + fetched.text
    assert not any(marks.iterdir())


@pytest.mark.parametrize(("url", "local"), [
    ("file:///srv/plan.git", True), ("FILE:///srv/plan.git", True), ("/srv/plan.git", True),
    ("../plan.git", True), ("plan.git", True), ("./a:b", True), ("ssh://host/plan.git", False),
    ("git@host:plan.git", False), ("https://host/plan.git", False), ("git://host/plan.git", False),
    ("ext::sh -c x", False), ("host:/srv/plan.git", False), ("/srv/team::plan.git", True),
    ("file:///srv/a::b.git", True), ("./x::y", True), ("a+b.c-d::x", False), ("x::/srv/p.git", False)])
def test_local_transport_follows_gits_rule(url, local):
    assert runner.local_transport(url) is local


def leafwise(*args: str, cwd: Path):
    return run_cli(*args, cwd=cwd, timeout=120)


def plant_all(repo: Path, marks: Path) -> None:
    """Every payload that lets a push succeed when it does not run, planted at once."""
    for name, payload in PAYLOADS.items():
        if not payload.refused:
            payload.plant(repo, marks)
    # A work tree on another branch: a push updating checked-out files would change it.
    tree = checked_out(repo)
    git(repo, "config", "core.fsmonitor", f"{touch(marks, 'fsmonitor')}; false")
    (repo / "info").mkdir(exist_ok=True)
    (repo / "info" / "attributes").write_text("* filter=evil\n")
    git(repo, "config", "filter.evil.smudge", f"{touch(marks, 'smudge')}; cat")
    assert not any(tree.iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("url_kind", ["file", "path"])
@pytest.mark.parametrize("mode", ["refs", "branch"])
def test_team_mode_over_a_hostile_local_remote_runs_none_of_it(tmp_path, mode, url_kind):
    repo = bare_repo(tmp_path)
    first = seed_plan(repo, tmp_path / "clone-0", tasks=3)
    second = clone(repo.as_uri(), tmp_path / "clone-1")
    url = repo.as_uri() if url_kind == "file" else str(repo)
    for work in (first, second):
        git(work, "remote", "set-url", "origin", url)
    marks = tmp_path / "marks"
    marks.mkdir()
    plant_all(repo, marks)
    runner.forget()

    project_file = first / ".leafwise" / "project.yaml"
    if mode == "refs":
        init = leafwise("team", "init", cwd=first)
        assert init.code == 0 and "refs/leafwise/claims" in init.stdout, init.stdout + init.stderr
    else:  # branch mode, as a host that refuses custom refs gets it
        project_file.write_text(project_file.read_text() +
                                "settings:\n  team: {remote: origin, namespace: refs/leafwise, mode: branch}\n")
        assert leafwise("team", "join", cwd=first).code == 0
    (second / ".leafwise" / "project.yaml").write_text(project_file.read_text())  # as a pull brings it
    joined = leafwise("team", "join", cwd=second)
    assert joined.code == 0, joined.stdout + joined.stderr

    steps_ = [(first, ("start", "T-1", "--agent", "alice")), (first, ("heartbeat", "T-1", "--agent", "alice")),
              (second, ("start", "--next", "--agent", "bob")),
              (first, ("complete", "T-1", "--summary", "ok", "--agent", "alice")),
              (second, ("team", "sync")), (second, ("team", "status")), (first, ("team", "doctor"))]
    for work, args in steps_:
        answer = leafwise(*args, cwd=work)
        assert answer.code == 0, (args, answer.stdout, answer.stderr)
    assert sorted(p.name for p in marks.iterdir()) == [], "the remote's hooks or config ran"
    claims = git(repo, "for-each-ref", "--format=%(refname)", "refs/leafwise", "refs/heads/leafwise")
    assert claims.strip(), "the claims reached the remote"
    assert not any((tmp_path / "remote-tree").iterdir()), "a push changed the remote's checked-out files"
