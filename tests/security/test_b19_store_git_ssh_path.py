"""No git call runs a program a clone committed on PATH (`store/git.py` `outside_path`).

The runner took git itself from a PATH folder outside the clone (fb500eb), but handed git the caller's PATH,
and git runs `ssh` for an ssh remote (and a person's `!` credential helper's words) by name: with
`<clone>/node_modules/.bin` on PATH (JavaScript projects, direnv), the clone's committed `ssh` ran on
`team init` (a marker file; every fetch and push over ssh the same). Every git call now gets PATH without the
relative entries and the folders inside the work trees worked in.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.repos import SYSTEM_PATH, planted_clone, setup_git

REMOTE = "ssh://git@127.0.0.1:1/plan.git"  # nothing listens: only the ssh program matters


@pytest.mark.parametrize("args", [["team", "init"]])
def test_a_clones_ssh_on_path_never_runs(tmp_path: Path, args: list[str]) -> None:
    mark = tmp_path / "PWNED"
    clone = planted_clone(tmp_path, {"node_modules/.bin/ssh": f"#!/bin/sh\ntouch {mark}\nexit 255\n"})
    setup_git(clone, "remote", "set-url", "origin", REMOTE)
    env = {**os.environ, "PATH": f"{clone}/node_modules/.bin:{SYSTEM_PATH}", "LEAFWISE_CONFIG_DIR": str(tmp_path / "config"),
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
