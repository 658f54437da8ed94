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
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.repos import REAL_GIT, SYSTEM_PATH, planted_clone

SPELLINGS = {"dot_first": f".:{SYSTEM_PATH}", "empty_first": f":{SYSTEM_PATH}", "empty_middle": f"/nonexistent::{SYSTEM_PATH}",
             "dot_slash": f"./:{SYSTEM_PATH}", "relative_folder": f"bin:{SYSTEM_PATH}",
             "absolute_node_modules_bin": f"{{clone}}/node_modules/.bin:{SYSTEM_PATH}"}


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a clone whose top and `bin/` hold an executable `git` that leaves a marker, the marker)."""
    base = tmp_path_factory.mktemp("gitpath")
    mark = base / "PWNED"
    fake = f"#!/bin/sh\ntouch {mark}\nexec {REAL_GIT} \"$@\"\n"
    target = planted_clone(base, {"git": fake, "bin/git": fake, "node_modules/.bin/git": fake})
    assert os.access(target / "git", os.X_OK)
    return target, mark


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_relative_path_entry_never_runs_the_clones_git(clone: tuple[Path, Path], tmp_path: Path, spelling: str) -> None:
    root, mark = clone
    mark.unlink(missing_ok=True)
    env = {**os.environ, "PATH": SPELLINGS[spelling].format(clone=root), "LEAFWISE_CONFIG_DIR": str(tmp_path / "config"),
           "LEAFWISE_CACHE_DIR": str(tmp_path / "cache"), "LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": ""}
    for args in (["validate"], ["reconcile"], ["doctor"]):
        done = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args], cwd=root, env=env,
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
