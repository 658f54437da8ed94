"""No git call runs a program a clone committed on PATH (`store/git.py` `outside_path`).

The runner took git itself from a PATH folder outside the clone (fb500eb), but handed git the caller's PATH,
and git runs `ssh` for an ssh remote (and a person's `!` credential helper's words) by name: with
`<clone>/node_modules/.bin` on PATH (JavaScript projects, direnv), the clone's committed `ssh` ran on
`team init` (a marker file; every fetch and push over ssh the same). Every git call now gets PATH without the
relative entries and the folders inside the work trees worked in.
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
REMOTE = "ssh://git@127.0.0.1:1/plan.git"  # nothing listens: only the ssh program matters


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


@pytest.mark.parametrize("args", [["team", "init"]])
def test_a_clones_ssh_on_path_never_runs(tmp_path: Path, args: list[str]) -> None:
    mark = tmp_path / "PWNED"
    source = tmp_path / "source"
    source.mkdir()
    write_plan(source, [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1")], prefix="P1")
    fake = source / "node_modules" / ".bin" / "ssh"
    fake.parent.mkdir(parents=True)
    fake.write_text(f"#!/bin/sh\ntouch {mark}\nexit 255\n")
    fake.chmod(0o755)
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "plan")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(source), str(clone))
    git(clone, "remote", "set-url", "origin", REMOTE)
    env = {**os.environ, "PATH": f"{clone}/node_modules/.bin:{SYSTEM}", "LEAFWISE_CONFIG_DIR": str(tmp_path / "config"),
           "LEAFWISE_CACHE_DIR": str(tmp_path / "cache"), "LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": ""}
    for name in [k for k in env if k.startswith("GIT_") or k == "LEAFWISE_ROOT"]:
        env.pop(name)
    live = subprocess.run(["git", "ls-remote", "origin"], cwd=clone, env=env, capture_output=True)  # the payload is live
    assert live.returncode != 0 and mark.exists()
    mark.unlink()
    done = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert not mark.exists(), f"{args} ran the clone's ssh"
