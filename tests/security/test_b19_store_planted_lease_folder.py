"""A file or link a clone force-adds at the verify leases' folder (`.leafwise/.cache/verify-leases`, git-ignored,
Leafwise's own) never stops `verify --next`: a regular file there made it exit 1 'File exists' for good,
a link 'is a symbolic link' (b49fa88 cleared only what lies at a lease's own name). The name goes
(`atomic.make_own_folder`), what a link names is never touched.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"], "HOME": "/nonexistent"}
KINDS = ("file", "link_to_a_folder", "dangling_link")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


@pytest.mark.parametrize("kind", KINDS)
def test_a_cloned_entry_at_the_lease_folder_never_stops_verify_next(tmp_path: Path, kind: str) -> None:
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n")
    source = tmp_path / "source"
    source.mkdir()
    write_plan(source, [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1"),
                        node("P1-3", "Pay button", parent="P1-1")], prefix="P1")
    cache = source / ".leafwise" / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    planted = cache / "verify-leases"
    if kind == "file":
        planted.write_text("x\n")
    else:
        planted.symlink_to(outside if kind == "link_to_a_folder" else tmp_path / "nowhere")
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-f", ".")
    git(source, "commit", "-q", "-m", "planted")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(source), str(clone))
    assert os.path.lexists(clone / ".leafwise" / ".cache" / "verify-leases")

    first = run_cli("verify", "--next", "--agent", "bob", "--json", cwd=clone, env=env, timeout=60)
    assert first.code == 0, first.stdout + first.stderr
    second = run_cli("verify", "--next", "--agent", "carol", "--json", cwd=clone, env=env, timeout=60)
    assert second.code == 0, second.stdout + second.stderr
    taken = {first.json["result"]["id"], second.json["result"]["id"]}
    assert taken == {"P1-2", "P1-3"}, (first.stdout, second.stdout)
    leases = clone / ".leafwise" / ".cache" / "verify-leases"
    assert leases.is_dir() and not leases.is_symlink()
    assert all((leases / f"{n}.json").is_file() for n in taken)
    assert sorted(os.listdir(outside)) == ["keep.txt"] and (outside / "keep.txt").read_text() == "keep\n"
