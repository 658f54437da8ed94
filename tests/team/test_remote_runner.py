"""The git runner's network entry, `run_git_remote`: the transports and subcommands it allows, and the
protections of `run_git` it keeps (no hooks, no config-named programs, no prompt, the deadline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from leafwise.store import git as runner
from testkit.gitserver import bare_repo, git


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    (work / "a.txt").write_text("a\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "a")
    runner.forget()
    return work


def test_only_the_team_subcommands_run(clone):
    for name in ("status", "clone", "config", "gc", "submodule", "ls-files"):
        with pytest.raises(ValueError, match="REMOTE_SUBCOMMANDS"):
            runner.run_git_remote(clone, name)


@pytest.mark.parametrize("arg", ["--receive-pack=touch /tmp/x", "--upload-pack=x", "--exec=x", "ext::sh -c id",
                                 "fd::3", "--textconv"])
def test_options_that_name_a_program_are_refused(clone, arg):
    with pytest.raises(ValueError):
        runner.run_git_remote(clone, "push", arg, "origin", "main")


def test_a_push_to_file_runs_no_client_hook_and_no_config_program(clone, tmp_path):
    bare = bare_repo(tmp_path)
    planted = tmp_path / "ran"
    hook = clone / ".git" / "hooks" / "pre-push"
    hook.write_text(f"#!/bin/sh\ntouch {planted}\n")
    hook.chmod(0o755)
    git(clone, "config", "core.sshCommand", f"touch {planted}")
    git(clone, "config", "credential.helper", f"!touch {planted}")
    git(clone, "remote", "add", "origin", bare.as_uri())
    git(clone, "config", "remote.origin.receivepack", f"touch {planted}; git-receive-pack")
    answer = runner.run_git_remote(clone, "push", "--porcelain", "--", bare.as_uri(), "HEAD:refs/heads/main")
    assert answer.code == 0, answer.text
    assert not planted.exists(), "a hook or a program named by the clone's config ran"
    assert git(bare, "rev-parse", "main").strip() == git(clone, "rev-parse", "HEAD").strip()


def test_a_transport_outside_the_list_is_refused_by_git(clone):
    answer = runner.run_git_remote(clone, "ls-remote", "--", "ftp://127.0.0.1/x")
    assert answer.code != 0


def test_a_refused_push_is_an_answer_with_its_words(clone, tmp_path):
    bare = bare_repo(tmp_path, strict=False)
    assert runner.run_git_remote(clone, "push", "--", bare.as_uri(), "HEAD:refs/leafwise/x").code == 0
    git(clone, "commit", "-q", "--allow-empty", "-m", "b")  # a create-only push of the same commit is "up to date"
    again = runner.run_git_remote(clone, "push", "--porcelain", "--force-with-lease=refs/leafwise/x:",
                                  "--", bare.as_uri(), "HEAD:refs/leafwise/x")
    assert again.code != 0 and "stale info" in again.text


def test_plumbing_takes_a_small_input_on_stdin(clone):
    blob = runner.run_git_remote(clone, "hash-object", "-w", "--stdin", stdin=b"claim\n")
    assert blob.code == 0
    sha = blob.out.decode().strip()
    assert runner.run_git_remote(clone, "cat-file", "blob", sha).out == b"claim\n"
    with pytest.raises(runner.GitError, match="input"):
        runner.run_git_remote(clone, "hash-object", "--stdin", stdin=b"x" * (runner.MAX_INPUT + 1))


def test_a_silent_server_is_stopped_at_the_deadline(clone):
    import socket

    with socket.socket() as server:  # accepts, never answers
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        with pytest.raises(runner.GitError, match="longer than"):
            runner.run_git_remote(clone, "ls-remote", "--", f"git://127.0.0.1:{port}/x", deadline=1.0)
