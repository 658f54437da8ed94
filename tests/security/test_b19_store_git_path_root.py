"""git is never taken from a PATH folder inside the clone worked in, when the working folder is elsewhere.

`program` judged PATH folders against the work trees of the working folder (or LEAFWISE_ROOT) only: run
from another folder with `--root <clone>` (a person's shell, the canvas's serve tabs, an MCP server started
outside the project), `<clone>/node_modules/.bin` on PATH held the clone's committed `git` and `status`,
`reconcile`, `verify` and `doctor` ran it (a marker file). Now every repository pinned counts too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit.repos import REAL_GIT, SYSTEM_PATH, planted_clone

@pytest.mark.parametrize("args", [["status"], ["reconcile"], ["verify", "P1-2"], ["doctor"], ["validate"]])
def test_a_clones_path_git_never_runs_from_another_folder(tmp_path: Path, args: list[str]) -> None:
    mark = tmp_path / "PWNED"
    clone = planted_clone(tmp_path, {"node_modules/.bin/git": f"#!/bin/sh\ntouch {mark}\nexec {REAL_GIT} \"$@\"\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PATH": f"{clone}/node_modules/.bin:{SYSTEM_PATH}", "LEAFWISE_CONFIG_DIR": str(tmp_path / "config"),
           "LEAFWISE_CACHE_DIR": str(tmp_path / "cache"), "LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": ""}
    env.pop("LEAFWISE_ROOT", None)
    live = subprocess.run(["git", "status"], cwd=clone, env=env, capture_output=True)  # the payload is live
    assert live.returncode == 0 and mark.exists()
    mark.unlink()
    done = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "--root", str(clone), *args],
                          cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert not mark.exists(), f"{args} with --root from another folder ran the clone's git"
