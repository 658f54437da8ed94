"""git is never taken from a PATH folder inside the clone worked in, when the working folder is elsewhere.

`program` judged PATH folders against the work trees of the working folder (or LEAFWISE_ROOT) only: run
from another folder with `--root <clone>` (a person's shell, the canvas's serve tabs, an MCP server started
outside the project), `<clone>/node_modules/.bin` on PATH held the clone's committed `git` and `status`,
`reconcile`, `verify` and `doctor` ran it (a marker file). Now every repository pinned counts too.
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


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


@pytest.mark.parametrize("args", [["status"], ["reconcile"], ["verify", "P1-2"], ["doctor"], ["validate"]])
def test_a_clones_path_git_never_runs_from_another_folder(tmp_path: Path, args: list[str]) -> None:
    mark = tmp_path / "PWNED"
    source = tmp_path / "source"
    source.mkdir()
    write_plan(source, [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1")], prefix="P1")
    fake = source / "node_modules" / ".bin" / "git"
    fake.parent.mkdir(parents=True)
    fake.write_text(f"#!/bin/sh\ntouch {mark}\nexec {REAL_GIT} \"$@\"\n")
    fake.chmod(0o755)
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "plan")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(source), str(clone))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PATH": f"{clone}/node_modules/.bin:{SYSTEM}", "LEAFWISE_CONFIG_DIR": str(tmp_path / "config"),
           "LEAFWISE_CACHE_DIR": str(tmp_path / "cache"), "LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": ""}
    env.pop("LEAFWISE_ROOT", None)
    live = subprocess.run(["git", "status"], cwd=clone, env=env, capture_output=True)  # the payload is live
    assert live.returncode == 0 and mark.exists()
    mark.unlink()
    done = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "--root", str(clone), *args],
                          cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert not mark.exists(), f"{args} with --root from another folder ran the clone's git"
