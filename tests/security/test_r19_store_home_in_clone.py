"""The person's folders inside a clone's tree (docs/security.md, "Approvals" and "Caches").

A sandbox or devcontainer whose HOME is the repository's top keeps the person's Leafwise folders at
`<top>/.config/leafwise/` and `<top>/.cache/leafwise/`. The approvals file and the cache key were refused
only when a `.leafwise/` lay above them or the approvals file lay inside the plan's own folder; a plan in
a subfolder (a monorepo: `sub/.leafwise/`), or in a submodule of the cloned superproject, has neither. So
a plain clone shipping `.config/leafwise/trust.json` (the digest of a guessable path and a command) ran
that command on `reconcile`, and one shipping `.config/leafwise/cache.key` with a `nodes.marshal` sealed by
it made `next` allocate 16.8 GB and take 53 s (a marshal tuple of 2**31-1). Now nothing a repository
tracks, and nothing inside the work tree of the repository holding the plan, is an approval or a key.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import node, write_plan
from testkit.hostile import run_measured

COMMAND_MARK = "PWNED_trust"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"], "HOME": "/nonexistent"}
LAYOUTS = ("sub", "a/b/c", "submodule")
BOMB = 10 ** 7  # a marshal tuple of this many items: 80 MB the reader must never be asked for


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "protocol.file.allow=always", *args], cwd=cwd, check=True, capture_output=True,
                   env=GIT_ENV)


def plan_in(root: Path, mark: Path) -> None:
    write_plan(root, [node("P1-1", "Checkout", release="R1"),
                      node("P1-2", "Cart page", parent="P1-1", done_when=[{"command": f"touch {mark}"}])], prefix="P1")


def plant_home(top: Path, plan_root: str, command: str) -> None:
    """What an author commits at the top of a repository whose top is someone's HOME."""
    digest = hashlib.sha256(f"{plan_root}\0{command}".encode()).hexdigest()
    (top / ".config" / "leafwise").mkdir(parents=True)
    (top / ".config" / "leafwise" / "trust.json").write_text(json.dumps(
        {"allowed": {digest: {"root": plan_root, "command": command, "at": "2026-01-01T00:00:00Z"}}}))
    key = b"k" * 32
    (top / ".config" / "leafwise" / "cache.key").write_bytes(key)
    folder = top / ".cache" / "leafwise" / "plans" / hashlib.blake2b(plan_root.encode(), digest_size=12).hexdigest()
    folder.mkdir(parents=True)
    body = b"(" + struct.pack("<i", BOMB)
    purpose = f"nodes.marshal {plan_root}".encode()
    seal = hashlib.blake2b(key=key, digest_size=32)
    seal.update(len(purpose).to_bytes(4, "big") + purpose)
    seal.update(body)
    (folder / "nodes.marshal").write_bytes(b"LWC1" + seal.digest() + body)


def build(tmp_path: Path, layout: str) -> tuple[Path, Path]:
    """(the clone's top, its plan root): the source committed, then `git clone`d."""
    mark = tmp_path / COMMAND_MARK
    source, clone = tmp_path / "source", tmp_path / "clone"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    rel = "sub" if layout == "submodule" else layout
    if layout == "submodule":
        inner = tmp_path / "inner"
        inner.mkdir()
        git(inner, "init", "-q", "-b", "main")
        plan_in(inner, mark)
        git(inner, "add", "-A")
        git(inner, "commit", "-q", "-m", "plan")
        git(source, "submodule", "add", "-q", str(inner), "sub")
    else:
        plan_in(source / rel, mark)
    plant_home(source, os.path.realpath(clone / rel), f"touch {mark}")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "home")
    git(tmp_path, "clone", "-q", "--recurse-submodules", str(source), str(clone))
    assert (clone / rel / ".leafwise" / "nodes" / "P1-2.yaml").is_file()
    return clone, clone / rel


def home_env(top: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEAFWISE_", "XDG_", "GIT_"))}
    return {**env, "HOME": str(top), "LEAFWISE_SERVER": "0", "LEAFWISE_AGENT": "", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_clone_that_ships_the_persons_folders_approves_and_seals_nothing(tmp_path: Path, layout: str) -> None:
    top, root = build(tmp_path, layout)
    env = home_env(top)
    code, out, err, cpu, peak_kib = run_measured(["next"], root, env)
    assert code == 0, err
    assert peak_kib < 70 * 1024, f"next read a planted sealed cache: {peak_kib} KiB"
    code, out, err, cpu, peak_kib = run_measured(["reconcile"], root, env)
    assert code == 0, err
    assert not (tmp_path / COMMAND_MARK).exists(), "a planted approval ran the plan's command"
    code, out, err, _, _ = run_measured(["validate"], root, env)
    assert "untrusted_command" in out, out


def test_a_dotfiles_repository_at_home_keeps_the_persons_approvals(tmp_path: Path) -> None:
    """HOME itself a repository that tracks `~/.config/leafwise/` (dotfiles), the plan its own clone beside:
    the approvals are the person's and hold."""
    home = tmp_path / "home"
    home.mkdir()
    git(home, "init", "-q", "-b", "main")
    mark = tmp_path / COMMAND_MARK
    project = home / "code" / "proj"
    project.mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    plan_in(project, mark)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "plan")
    plant_home(home, os.path.realpath(project), f"touch {mark}")
    git(home, "add", "-f", ".config")
    git(home, "commit", "-q", "-m", "dotfiles")
    code, out, err, _, _ = run_measured(["reconcile"], project, home_env(home))
    assert code == 0, err
    assert mark.exists(), "the person's own approval did not hold"
    key = subprocess.run([sys.executable, "-c", "from leafwise.store import cache; print(cache.machine_key() is not None)"],
                         cwd=project, env=home_env(home), capture_output=True, text=True, timeout=60)
    assert key.stdout.strip() == "True", key.stdout + key.stderr  # its cache key too (remembered answers need it)
