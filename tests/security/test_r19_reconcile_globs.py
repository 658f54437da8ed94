"""A `done_when` glob from a plan file costs reconcile a few integer operations per character of
each path, whatever its length and shape (`store/globs.py`); one over `MAX_GLOB` is not checked."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from leafwise.store import globs
from leafwise.store.globs import ignore_matches, matches
from testkit.repos import LEAFWISE, run

MAX_GLOB = getattr(globs, "MAX_GLOB", 1024)

PATHS = [f"src/some/folder/file_number_{i}_with_a_name.txt" for i in range(2000)]
SHAPES = {  # a glob near the cap of each token kind: literals after `**`, folders, stars, one-character marks
    "literal": lambda n: "**" + "a" * (n - 3) + "z",
    "folders": lambda n: "**/" * (n // 3) + "z",
    "stars": lambda n: "*a" * (n // 2),
    "marks": lambda n: "**" + "?" * (n - 3) + "z",
    "mixed": lambda n: ("**/*?a" * n)[:n - 1] + "z",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_glob_at_the_cap_against_thousands_of_paths_is_quick(shape: str) -> None:
    glob = SHAPES[shape](MAX_GLOB)
    assert len(glob) <= MAX_GLOB
    start = time.thread_time()
    assert not any(matches(glob, p) or ignore_matches(glob, p) for p in PATHS)
    assert time.thread_time() - start < 1.0, shape


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_glob_over_the_cap_matches_nothing(shape: str) -> None:
    glob = SHAPES[shape](MAX_GLOB * 20)
    start = time.thread_time()
    assert not any(matches(glob, p) or ignore_matches(glob, p) for p in PATHS + ["z"])
    assert time.thread_time() - start < 0.5


def _git(cwd: Path, *args: str) -> None:
    run(cwd, "git", *args)


def test_reconcile_of_a_cloned_plan_with_a_20000_character_glob_answers(tmp_path: Path) -> None:
    """Before, a 20,000-character `done_when` glob against 2,000 committed files passed reconcile's
    60 s deadline ("reconcile wrote nothing"), on every run."""
    src = tmp_path / "src"
    src.mkdir()
    _git(src, "init", "-q", "-b", "main")
    run(src, LEAFWISE, "init", "--prefix", "P1")
    run(src, LEAFWISE, "release", "add", "R1", "--title", "R1")
    run(src, LEAFWISE, "add", "Order export", "--release", "R1")
    run(src, LEAFWISE, "add", "Export orders as CSV", "--parent", "P1-1")
    (src / "files").mkdir()
    for i in range(2000):
        (src / "files" / f"file_number_{i}.txt").write_text("x\n")
    node = src / ".leafwise" / "nodes" / "P1-2.yaml"
    long_glob = "**" + "a" * 20000 + "z"
    node.write_text(node.read_text() + f"done_when:\n  - file: \"{long_glob}\"\n  - file: \"{SHAPES['mixed'](MAX_GLOB)}\"\n")
    _git(src, "add", "-A")
    _git(src, "commit", "-q", "-m", "plant")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(src), str(clone)], check=True, capture_output=True)
    env = {"LEAFWISE_RECONCILE_DEADLINE": "20"}
    start = time.monotonic()
    done = subprocess.run([LEAFWISE, "reconcile", "--json", "--explain"], cwd=clone, capture_output=True, text=True,
                          timeout=120, env={**os.environ, **env, "HOME": str(clone)})
    took = time.monotonic() - start
    assert done.returncode == 0, done.stdout + done.stderr
    assert took < 10, took
    assert "not checked: a glob is at most" in done.stdout
    assert "result" in json.loads(done.stdout)
