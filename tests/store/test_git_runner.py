"""The one git runner (store/git.py) with real git: which repository it pins, its deadline, its output cap,
the subcommands it allows, the environment it passes and the person's name it reads."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leafwise.store import git

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}


def sh_git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".leafwise" / "nodes").mkdir(parents=True)
    sh_git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("a\n")
    sh_git(root, "add", "-A")
    sh_git(root, "commit", "-q", "-m", "first")
    git.forget()
    return Path(os.path.realpath(root))


def test_the_repository_is_the_plans_even_from_a_planted_bare_one_inside_it(repo):
    nodes = repo / ".leafwise" / "nodes"
    (nodes / "HEAD").write_text("ref: refs/heads/main\n")
    (nodes / "objects").mkdir()
    (nodes / "refs").mkdir()
    (nodes / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n")
    assert sh_git(nodes, "rev-parse", "--absolute-git-dir").strip() == str(nodes), "git alone takes the planted one"
    pinned = git.pin(nodes)
    assert (pinned.git_dir, pinned.work_tree) == (repo / ".git", repo)
    assert git.run_git(nodes, "rev-parse", "--absolute-git-dir").decode().strip() == str(repo / ".git")
    assert pinned.rel(nodes / "P1-1.yaml") == ".leafwise/nodes/P1-1.yaml"


def test_a_bare_repository_at_the_plan_root_is_never_used(tmp_path):
    root = tmp_path / "plan"
    (root / "objects").mkdir(parents=True)
    (root / "refs").mkdir()
    (root / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
    git.forget()
    with pytest.raises(git.GitError, match="bare"):
        git.pin(root)


def test_a_git_call_past_its_deadline_is_stopped(repo, tmp_path):
    fifo = tmp_path / "never"
    os.mkfifo(fifo)  # git waits for a writer that never comes
    with (repo / ".git" / "config").open("a") as fh:
        fh.write(f"[include]\n\tpath = {fifo}\n")
    began = time.monotonic()
    with pytest.raises(git.GitError, match="longer than"):
        git.run_git(repo, "log", "-n1", "--format=%H", deadline=1)
    assert time.monotonic() - began < 5


def test_output_over_the_cap_is_refused(repo):
    for n in range(200):
        (repo / f"file-{n:03}.txt").write_text("x")
    with pytest.raises(git.GitError, match="more than 500 bytes"):
        git.run_git(repo, "ls-files", "-z", "-co", limit=500)
    assert len(git.run_git(repo, "ls-files", "-z", "-co").split(b"\0")) > 200


def test_only_read_only_subcommands_run(repo):
    for sub in ("status", "fetch", "diff", "clone", "submodule", "-c"):
        with pytest.raises(ValueError, match="SUBCOMMANDS"):
            git.run_git(repo, sub)


def test_the_callers_git_variables_never_reach_git(repo, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    sh_git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "nowhere"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch x'")
    env = git.environment()
    assert not {"GIT_DIR", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS"} & set(env)
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert git.run_git(repo, "ls-files").decode().split() == ["a.txt"]


def test_the_persons_name_comes_from_their_config_through_the_runner(repo, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Pat Person\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("LEAFWISE_USER", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    git.forget()
    assert git.person_name(repo) == "Pat Person"
    assert git.person_name(tmp_path) == "Pat Person"  # no repository: their own config only
    sh_git(repo, "config", "user.name", "Repo Name")
    git.forget()
    assert git.person_name(repo / ".leafwise" / "nodes") == "Repo Name"
    monkeypatch.setenv("LEAFWISE_USER", "  Lee  ")
    assert git.person_name(repo) == "Lee"


@pytest.mark.parametrize("option", ["--filters", "--textconv", "--path=a.txt"])
def test_cat_file_never_runs_a_filter(tmp_path, option):
    from leafwise.store.git import run_git

    (tmp_path / ".leafwise").mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(ValueError, match="store/git.py OPTIONS"):
        run_git(tmp_path, "cat-file", option, "HEAD:a.txt")


@settings(max_examples=80, deadline=None)
@given(option=st.sampled_from(["--filters", "--textconv", "--path"]), cut=st.integers(1, 8),
       value=st.sampled_from(["", "=a.txt"]))
def test_cat_file_refuses_a_refused_option_abbreviated(tmp_path_factory, option, cut, value):
    from leafwise.store.git import run_git

    root = tmp_path_factory.mktemp("repo")
    (root / ".leafwise").mkdir()
    abbreviated = option[: max(3, len(option) - cut)] + value
    with pytest.raises(ValueError, match="store/git.py OPTIONS"):
        run_git(root, "cat-file", abbreviated, "HEAD:a.txt")


@settings(max_examples=150, deadline=None)
@given(word=st.text(st.sampled_from("-abcdefghijklmnopqrstuvwxyz=/ 0123456789"), min_size=1, max_size=23)
       .map(lambda w: "-" + w))
def test_the_read_only_runner_takes_only_the_options_it_names(tmp_path_factory, word):
    """Any word in an option's place that is not one of OPTIONS (`log --output=FILE`, which writes a
    file; `--exec=…`; an abbreviation git would accept) is refused before git starts; after `--` a
    word is a path, whatever its spelling."""
    from leafwise.store.git import OPTIONS, GitError, run_git

    root = tmp_path_factory.mktemp("repo")
    (root / ".leafwise").mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    name = word.partition("=")[0]
    if name in OPTIONS or (word.startswith("-n") and word[2:].isdigit()) or word == "--":
        return
    with pytest.raises(ValueError, match="store/git.py OPTIONS"):
        run_git(root, "log", word, "-n1")
    with pytest.raises(GitError):  # a path, not an option: git only says there is no commit yet
        run_git(root, "log", "-n1", "--", word)
    for written in ("--output=" + str(root / "x"), "--outp=x", "-o" + str(root / "y")):
        if written.partition("=")[0] not in OPTIONS:
            with pytest.raises(ValueError):
                run_git(root, "log", written)
    assert not (root / "x").exists() and not (root / "y").exists()


@pytest.mark.parametrize("option", ["--upload-pack=touch x", "--upload-pa=touch x", "--upl=x", "-u", "-utouch",
                                    "--receive-pa=x", "--exe=x", "--config=core.sshCommand=x", "-c", "ext::sh"])
def test_the_remote_entry_refuses_every_option_it_does_not_name(tmp_path, option):
    from leafwise.store.git import run_git_remote

    (tmp_path / ".leafwise").mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(ValueError, match="REMOTE_OPTIONS"):
        run_git_remote(tmp_path, "ls-remote", option, "--", "file:///nonexistent")
