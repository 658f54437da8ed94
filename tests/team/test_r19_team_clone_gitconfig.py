"""A global git config file the clone brought is not the person's (`store/git.py` `Repo.clone_global`).

In a sandbox or devcontainer whose HOME is the work tree's top, git's global config is `<top>/.gitconfig`:
a file the repository's author commits. The runner keeps the person's global config in force (their
credential helpers answer for the team's host), so a clone shipping `.gitconfig` with
`credential.helper = "!touch PWNED; …"` ran that command on `team join` and every `start` against an
HTTPS remote that asks for credentials (a marker file), as it would for the person's own `git fetch`. The same when
GIT_CONFIG_GLOBAL names the clone's file (a project's MCP server settings or `.envrc` set it). A
global config file that lies in a tree the clone brought is now not read by any git call on that
repository (GIT_CONFIG_GLOBAL=/dev/null), and its helpers are never handed to a push or fetch.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.gitserver import TOKEN, bare_repo, smart_http

LEAFWISE = str(Path(sys.executable).parent / "leafwise")


@pytest.mark.parametrize("how", ["home_is_the_clone", "git_config_global_names_a_clone_file"])
def test_a_clones_own_gitconfig_helper_never_runs(tmp_path: Path, how: str) -> None:
    mark = tmp_path / "PWNED"
    srv = tmp_path / "srv"
    srv.mkdir()
    bare_repo(srv)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "LEAFWISE_", "XDG_"))}
    base.update({"LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": "", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a",
                 "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@x"})

    def run(*args: str, cwd: Path, home: Path, named: Path | None = None) -> subprocess.CompletedProcess:
        env = {**base, "HOME": str(home), **({"GIT_CONFIG_GLOBAL": str(named)} if named else {})}
        return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=120)

    with smart_http(srv) as url:
        plain = url.replace(f"team:{TOKEN}@", "")
        source, person = tmp_path / "source", tmp_path / "person"
        source.mkdir()
        person.mkdir()
        run("git", "init", "-q", "-b", "main", cwd=source, home=person)
        for args in (["init", "--prefix", "P1"], ["release", "add", "R1", "--title", "R1"], ["add", "Leaf", "--release", "R1"]):
            assert run(LEAFWISE, *args, cwd=source, home=person).returncode == 0
        (source / ".gitconfig").write_text(
            f'[credential]\n\thelper = "!touch {mark}; echo username=team; echo password={TOKEN}; :"\n')
        run("git", "remote", "add", "origin", f"{url}/plan.git", cwd=source, home=person)
        run("git", "add", "-A", cwd=source, home=person)
        run("git", "commit", "-qm", "plan", cwd=source, home=person)
        assert run(LEAFWISE, "team", "init", cwd=source, home=person).returncode == 0
        run("git", "add", "-A", cwd=source, home=person)
        run("git", "commit", "-qm", "team", cwd=source, home=person)
        assert run("git", "push", "-q", "origin", "main", cwd=source, home=person).returncode == 0
        clone = tmp_path / "clone"
        assert run("git", "clone", "-q", f"{url}/plan.git", str(clone), cwd=tmp_path, home=person).returncode == 0
        run("git", "remote", "set-url", "origin", f"{plain}/plan.git", cwd=clone, home=person)
        assert (clone / ".gitconfig").is_file() and not mark.exists()

        # as a sandbox whose HOME is the clone, or a project's MCP or direnv settings naming the clone's file
        home, named = (clone, None) if how == "home_is_the_clone" else (person, clone / ".gitconfig")
        live = run("git", "ls-remote", "origin", cwd=clone, home=home, named=named)  # live for plain git
        assert live.returncode == 0 and mark.exists(), live.stderr
        mark.unlink()

        for args in (["team", "join"], ["start", "--next", "--agent", "bob"], ["team", "status"], ["team", "sync"]):
            done = run(LEAFWISE, *args, cwd=clone, home=home, named=named)
            assert "Traceback" not in done.stderr, done.stderr
            assert not mark.exists(), f"{args}: the clone's .gitconfig credential helper ran"
