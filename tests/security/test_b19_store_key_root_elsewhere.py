"""A cache key a clone ships is never this machine's key, when the plan is named from another folder.

With HOME at a monorepo's top (a sandbox, a devcontainer) and the plan in a subfolder, the clone's
committed `.config/leafwise/cache.key` was refused only when the working folder lay in the clone
(`config_dirs.in_a_clones_tree` judged LEAFWISE_ROOT or the working folder): `leafwise --root <clone>/sub`
run from any other folder took the planted key, and a claim the author sealed with it on their own
machine (`start --ttl 10000`, force-added) held its task for a week instead of an hour. Now every plan
found and repository pinned counts (`config_dirs.worked_in`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"], "HOME": "/nonexistent"}
CLEAN = {k: v for k, v in os.environ.items() if not k.startswith(("LEAFWISE_", "XDG_", "GIT_"))}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


def cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args], cwd=cwd,
                          env={**CLEAN, "LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": "", **env}, capture_output=True,
                          text=True, timeout=120)


def test_a_planted_key_seals_nothing_for_a_plan_named_from_elsewhere(tmp_path: Path) -> None:
    key = os.urandom(32)
    source = tmp_path / "source"
    (source / "sub").mkdir(parents=True)
    (source / ".config" / "leafwise").mkdir(parents=True)
    (source / ".config" / "leafwise" / "cache.key").write_bytes(key)
    attacker = tmp_path / "attacker"
    (attacker / "config").mkdir(parents=True)
    (attacker / "config" / "cache.key").write_bytes(key)  # the author's own machine, with the key they ship
    mine = {"LEAFWISE_CONFIG_DIR": str(attacker / "config"), "LEAFWISE_CACHE_DIR": str(attacker / "cache"),
            "HOME": str(attacker)}
    git(source, "init", "-q", "-b", "main")
    for args in (["init", "--prefix", "P1"], ["release", "add", "R1", "--title", "R1"], ["add", "Leaf", "--release", "R1"],
                 ["start", "P1-1", "--agent", "mallory", "--ttl", "10000"]):
        done = cli(*args, cwd=source / "sub", **mine)
        assert done.returncode == 0, done.stdout + done.stderr
    git(source, "add", "-f", ".")
    git(source, "commit", "-q", "-m", "plan")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(source), str(clone))
    assert (clone / "sub" / ".leafwise" / "claims" / "P1-1.json").is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    shown = cli("--root", str(clone / "sub"), "show", "P1-1", "--json", cwd=elsewhere, HOME=str(clone))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    import json

    expires = datetime.fromisoformat(json.loads(shown.stdout)["result"]["claim"]["expires"].replace("Z", "+00:00"))
    assert expires <= datetime.now(UTC) + timedelta(minutes=61), f"the clone's sealed claim holds until {expires}"
    assert (clone / ".config" / "leafwise" / "cache.key").read_bytes() == key  # the planted key untouched
