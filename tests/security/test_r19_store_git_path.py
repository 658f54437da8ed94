"""A relative PATH entry never runs a clone's `git` (docs/security.md, "the git runner").

The runner started the program `git` by name in the clone's work tree. With `.` in PATH, or the empty
entry a stray colon leaves (`PATH=:/usr/bin`, `PATH=/a::/usr/bin`), or a relative folder (`bin`), the
name resolves in that folder (and `<clone>/node_modules/.bin`, an absolute folder JavaScript projects and
direnv put on PATH, holds what the clone committed): a committed, executable `git` at the top of the clone (or in `bin/`) ran on
`validate` and `reconcile` (a marker file). Now git is the first one found in an absolute folder of PATH
outside the repository's work trees (`store/git.py` `program`), for every call and for the program a local remote is served by.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import node, write_plan

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"], "HOME": "/nonexistent"}
REAL_GIT = shutil.which("git")
SYSTEM = os.pathsep.join(sorted({os.path.dirname(REAL_GIT), "/usr/bin", "/bin"}))
SPELLINGS = {"dot_first": f".:{SYSTEM}", "empty_first": f":{SYSTEM}", "empty_middle": f"/nonexistent::{SYSTEM}",
             "dot_slash": f"./:{SYSTEM}", "relative_folder": f"bin:{SYSTEM}",
             "absolute_node_modules_bin": f"{{clone}}/node_modules/.bin:{SYSTEM}"}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a clone whose top and `bin/` hold an executable `git` that leaves a marker, the marker)."""
    base = tmp_path_factory.mktemp("gitpath")
    mark = base / "PWNED"
    source = base / "source"
    source.mkdir()
    write_plan(source, [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1")], prefix="P1")
    fake = f"#!/bin/sh\ntouch {mark}\nexec {REAL_GIT} \"$@\"\n"
    for where in (source / "git", source / "bin" / "git", source / "node_modules" / ".bin" / "git"):
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(fake)
        where.chmod(0o755)
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "plan")
    target = base / "clone"
    git(base, "clone", "-q", str(source), str(target))
    assert os.access(target / "git", os.X_OK)
    return target, mark


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_relative_path_entry_never_runs_the_clones_git(clone: tuple[Path, Path], tmp_path: Path, spelling: str) -> None:
    root, mark = clone
    mark.unlink(missing_ok=True)
    env = {**os.environ, "PATH": SPELLINGS[spelling].format(clone=root), "LEAFWISE_CONFIG_DIR": str(tmp_path / "config"),
           "LEAFWISE_CACHE_DIR": str(tmp_path / "cache"), "LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": ""}
    for args in (["validate"], ["reconcile"], ["doctor"]):
        done = subprocess.run([sys.executable, "-m", "leafwise.commands.surfaces.cli", *args], cwd=root, env=env,
                              capture_output=True, text=True, timeout=60)
        assert "Traceback" not in done.stderr, done.stderr
        assert not mark.exists(), f"{args} with PATH={SPELLINGS[spelling]!r} ran the clone's git"
    served = subprocess.run([sys.executable, "-c", (
        "import sys; from pathlib import Path; from leafwise.store import git\n"
        "answer = git.run_git_remote(Path('.'), 'ls-remote', '--', sys.argv[1])\n"
        "sys.exit(answer.code)"), (root / ".git").as_uri()], cwd=root, env=env, capture_output=True, text=True,
        timeout=60)
    assert served.returncode == 0, served.stderr
    assert not mark.exists(), f"a local remote's service with PATH={SPELLINGS[spelling]!r} ran the clone's git"
