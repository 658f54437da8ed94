"""A cloned repository's `.gitattributes` never makes git run a filter driver (`store/git.py`
`READS_CONTENT`, `_without_filters`).

Found in session 17's attack (h22c): the runner turned off every command a repository's *config* can
name, but a filter driver is named by `.gitattributes`, a committed file, and defined by the person's
own config (git-lfs's `filter.lfs.process`, git-crypt, nbstripout …). `ls-files --modified`, which
`commands/domain/work_tree.py` runs when a `complete` is refused, hashes every file whose stat data
changed through the driver its attribute names: a clone's author chose which of the person's programs
ran on which files (a driver whose `clean` touches a marker file: the marker appeared). Generated over
driver names (`=`, dots, non-ASCII, a leading dash: names `-c` cannot spell) × the driver's kinds.
"""

from __future__ import annotations

import itertools
import os
import subprocess

import pytest
from leafwise.store import git

NAMES = ("demo", "lfs", "x=y", "a.b=c", "dots.in.name", "ünï", "-x", "A")
KINDS = ("clean", "process", "both")


def _git(cwd, *args, env=None):
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def hostile_clone(tmp_path, name: str, kind: str):
    """A repository (committed, then cloned) whose .gitattributes sends every file through `name`,
    and the person's global config defining that driver to leave a marker file."""
    marker = tmp_path / "marker"
    src = tmp_path / "src"
    src.mkdir()
    _git(src, "init", "-q", "-b", "main")
    for i in range(3):
        (src / f"f{i}.txt").write_text(f"line {i}\n")
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    (src / ".gitattributes").write_text(f"* filter={name}\n")
    _git(src, "add", "-A")
    _git(src, "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-qm", "init")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(src), str(clone))
    config = tmp_path / "gitconfig"
    lines = [f'[filter "{quoted}"]']
    if kind in ("clean", "both"):
        lines.append(f'\tclean = "touch {marker}; cat"')
    if kind in ("process", "both"):
        lines.append(f'\tprocess = "touch {marker}"')
        lines.append("\trequired = true")
    config.write_text("\n".join(lines) + "\n")
    for path in clone.glob("f*.txt"):  # stat data changed: git compares the content, through the driver
        os.utime(path, (1_000_000_000, 1_000_000_000))
    (clone / "f1.txt").write_text("changed\n")
    os.utime(clone / "f1.txt", (1_000_000_000, 1_000_000_000))
    return clone, config, marker


@pytest.mark.parametrize(("name", "kind"), list(itertools.product(NAMES, KINDS)))
def test_ls_files_modified_runs_no_filter_driver_a_clone_names(tmp_path, monkeypatch, name, kind):
    clone, config, marker = hostile_clone(tmp_path, name, kind)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    git.forget()
    from leafwise.commands.domain.work_tree import changed_files

    names, whole = changed_files(clone, ".leafwise")  # the real caller: a refused complete's listing
    out = git.run_git(clone, "ls-files", "-z", "--modified", "--", "f0.txt", "f1.txt", "f2.txt")
    assert not marker.exists(), f"the driver {name!r} ({kind}) ran"
    assert whole and names == ["f1.txt"], names  # the listing still names the changed file, and only it
    assert out.split(b"\0")[:-1] == [b"f1.txt"], out
    # the payload is live: plain git runs the driver on the same clone
    for path in clone.glob("f*.txt"):
        os.utime(path, (1_000_000_001, 1_000_000_001))
    subprocess.run(["git", "ls-files", "--modified"], cwd=clone, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_GLOBAL": str(config)})
    assert marker.exists(), "plain git did not run the driver: the case tests nothing"


def test_no_driver_configured_costs_one_listing_and_changes_nothing(tmp_path, monkeypatch):
    clone, config, marker = hostile_clone(tmp_path, "demo", "clean")
    config.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    git.forget()
    assert git.run_git(clone, "ls-files", "-z", "--modified") == b"f1.txt\0"
    assert git.run_git(clone, "ls-files", "-z", "--others") == b""
