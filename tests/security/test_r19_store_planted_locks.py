"""A lock or lease file a clone brings as anything but a regular file (docs/security.md, "Confinement").

`.leafwise/.locks/` is ignored, but a force-added folder at a lock's name (`journal.lock/x`) arrives with
every `git clone`: the open of a folder fails, so every command that writes stopped for good at its
journal lock — after it had written the node (`add` left a node the journal never heard of) — while
doctor and repair said nothing needed repair. The lock is Leafwise's own state: whatever is at its name
goes, what a link there names is never touched. The same for a lease (`claims/P1-2.json/x`): `start P1-2`
and `start --next` failed with "Is a directory" (naming a temp file), and `repair`, asked to release it,
failed the same way (`store/atomic.py` `clear_planted`, the one rule for both).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from testkit import journal, node, run_cli, write_plan

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"], "HOME": "/nonexistent"}
KINDS = ("empty_folder", "folder_with_a_file", "nested_folders", "folder_with_a_link_out", "link_to_a_folder")
NAMES = ("journal", "project", "P1-2")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


def build(tmp_path: Path, folder: str, names: tuple[str, ...], suffix: str, kind: str) -> tuple[Path, Path]:
    """(the clone, the outside folder): `kind` planted at each name in `.leafwise/<folder>/`, committed, cloned."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n")
    source = tmp_path / "source"
    source.mkdir()
    write_plan(source, [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1"),
                        node("P1-3", "Pay button", parent="P1-1")], prefix="P1")
    where = source / ".leafwise" / folder
    where.mkdir(parents=True, exist_ok=True)
    for name in names:
        plant(where / f"{name}{suffix}", kind, outside)
        (where / f"{name}.keep").write_text("")  # git keeps no empty folder: a file beside it for that kind
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-f", ".")
    git(source, "commit", "-q", "-m", "planted")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(source), str(clone))
    for name in names:
        if kind == "empty_folder":
            plant(clone / ".leafwise" / folder / f"{name}{suffix}", kind, outside)  # a folder made after the clone
        assert os.path.lexists(clone / ".leafwise" / folder / f"{name}{suffix}")
    return clone, outside


def plant(lock: Path, kind: str, outside: Path) -> None:
    if kind == "link_to_a_folder":
        lock.symlink_to(outside, target_is_directory=True)
        return
    lock.mkdir()
    if kind == "folder_with_a_file":
        (lock / "x").write_text("x\n")
    elif kind == "nested_folders":
        (lock / "a" / "b").mkdir(parents=True)
        (lock / "a" / "b" / "x").write_text("x\n")
    elif kind == "folder_with_a_link_out":
        (lock / "out").symlink_to(outside, target_is_directory=True)


@pytest.mark.parametrize("kind", KINDS)
def test_a_cloned_folder_at_a_lock_name_never_stops_a_write(tmp_path: Path, env: dict[str, str], kind: str) -> None:
    clone, outside = build(tmp_path, ".locks", NAMES, ".lock", kind)
    added = run_cli("add", "Receipt", "--parent", "P1-1", cwd=clone, env=env, timeout=30)
    assert added.code == 0, added.stderr
    started = run_cli("start", "P1-2", "--agent", "bob", cwd=clone, env=env, timeout=30)
    assert started.code == 0, started.stderr
    released = run_cli("release", "add", "R9", "--title", "Later", cwd=clone, env=env, timeout=30)
    assert released.code == 0, released.stderr
    assert [e.get("command") for e in journal(clone)][-3:] == ["add", "start", "release add"]
    assert sorted(os.listdir(outside)) == ["keep.txt"] and (outside / "keep.txt").read_text() == "keep\n"
    for name in NAMES:
        assert (clone / ".leafwise" / ".locks" / f"{name}.lock").is_file()


@pytest.mark.parametrize("kind", KINDS)
def test_a_cloned_folder_at_a_lease_name_never_stops_a_start_or_a_repair(tmp_path: Path, env: dict[str, str],
                                                                         kind: str) -> None:
    clone, outside = build(tmp_path, "claims", ("P1-2", "P1-3"), ".json", kind)
    started = run_cli("start", "--next", "--agent", "bob", cwd=clone, env=env, timeout=30)
    assert started.code == 0, started.stderr
    other = "P1-3" if "Started P1-2" in started.stdout else "P1-2"
    named = run_cli("start", other, "--agent", "carol", cwd=clone, env=env, timeout=30)
    assert named.code == 0, named.stderr
    assert all((clone / ".leafwise" / "claims" / f"{n}.json").is_file() for n in ("P1-2", "P1-3"))
    (tmp_path / "again").mkdir()
    again, _ = build(tmp_path / "again", "claims", ("P1-2", "P1-3"), ".json", kind)
    repaired = run_cli("repair", cwd=again, env=env, timeout=30)
    assert repaired.code == 0, repaired.stderr
    assert not any(os.path.lexists(again / ".leafwise" / "claims" / f"{n}.json") for n in ("P1-2", "P1-3"))
    assert sorted(os.listdir(outside)) == ["keep.txt"] and (outside / "keep.txt").read_text() == "keep\n"


@pytest.mark.parametrize("kind", KINDS)
def test_a_cloned_folder_at_a_verify_lease_name_never_stops_verify_next(tmp_path: Path, env: dict[str, str],
                                                                        kind: str) -> None:
    """The same for a verify lease (`store/verify_leases.py`): `verify --next` failed with "Is a directory"."""
    clone, outside = build(tmp_path, ".cache/verify-leases", ("P1-2", "P1-3"), ".json", kind)
    first = run_cli("verify", "--next", "--agent", "bob", "--json", cwd=clone, env=env, timeout=60)
    assert first.code == 0, first.stdout + first.stderr
    second = run_cli("verify", "--next", "--agent", "carol", "--json", cwd=clone, env=env, timeout=60)
    assert second.code == 0, second.stdout + second.stderr
    taken = {first.json["result"]["id"], second.json["result"]["id"]}
    assert taken == {"P1-2", "P1-3"}, (first.stdout, second.stdout)
    assert all((clone / ".leafwise" / ".cache" / "verify-leases" / f"{n}.json").is_file() for n in taken)
    assert sorted(os.listdir(outside)) == ["keep.txt"] and (outside / "keep.txt").read_text() == "keep\n"
