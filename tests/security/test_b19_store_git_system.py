"""GIT_CONFIG_SYSTEM naming a file a clone brought (a project's `.mcp.json` env or `.envrc` can set it, as
it can GIT_CONFIG_GLOBAL) is not the person's system config: the runner handed its credential helper
(`!touch PWNED; …`) to every push and fetch of team mode (`_person_helpers` reads `--system`). Such a file
is now read by no git call on that repository (GIT_CONFIG_NOSYSTEM=1) and its helpers are never handed on.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from testkit.gitserver import TOKEN, bare_repo, smart_http

LEAFWISE = str(Path(sys.executable).parent / "leafwise")


def test_a_system_config_file_in_the_clone_runs_no_helper(tmp_path: Path) -> None:
    mark = tmp_path / "PWNED"
    srv = tmp_path / "srv"
    srv.mkdir()
    bare_repo(srv)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "LEAFWISE_", "XDG_"))}
    person = tmp_path / "person"
    person.mkdir()
    base.update({"LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": "", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(person),
                 "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a",
                 "GIT_COMMITTER_EMAIL": "a@x"})

    def run(*args: str, cwd: Path, system: Path | None = None) -> subprocess.CompletedProcess:
        env = dict(base)
        if system is not None:
            env.pop("GIT_CONFIG_NOSYSTEM")
            env["GIT_CONFIG_SYSTEM"] = str(system)
        return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=120)

    with smart_http(srv) as url:
        plain = url.replace(f"team:{TOKEN}@", "")
        source = tmp_path / "source"
        source.mkdir()
        run("git", "init", "-q", "-b", "main", cwd=source)
        for args in (["init", "--prefix", "P1"], ["release", "add", "R1", "--title", "R1"], ["add", "Leaf", "--release", "R1"]):
            assert run(LEAFWISE, *args, cwd=source).returncode == 0
        (source / "tools").mkdir()
        (source / "tools" / "gitconfig").write_text(
            f'[credential]\n\thelper = "!touch {mark}; echo username=team; echo password={TOKEN}; :"\n')
        run("git", "remote", "add", "origin", f"{url}/plan.git", cwd=source)
        run("git", "add", "-A", cwd=source)
        run("git", "commit", "-qm", "plan", cwd=source)
        assert run(LEAFWISE, "team", "init", cwd=source).returncode == 0
        run("git", "add", "-A", cwd=source)
        run("git", "commit", "-qm", "team", cwd=source)
        assert run("git", "push", "-q", "origin", "main", cwd=source).returncode == 0
        clone = tmp_path / "clone"
        assert run("git", "clone", "-q", f"{url}/plan.git", str(clone), cwd=tmp_path).returncode == 0
        run("git", "remote", "set-url", "origin", f"{plain}/plan.git", cwd=clone)
        system = clone / "tools" / "gitconfig"
        assert system.is_file() and not mark.exists()

        live = run("git", "ls-remote", "origin", cwd=clone, system=system)  # the payload is live for plain git
        assert live.returncode == 0 and mark.exists(), live.stderr
        mark.unlink()

        for args in (["team", "join"], ["start", "--next", "--agent", "bob"], ["team", "status"], ["team", "sync"]):
            done = run(LEAFWISE, *args, cwd=clone, system=system)
            assert "Traceback" not in done.stderr, done.stderr
            assert not mark.exists(), f"{args}: the clone's system config credential helper ran"
