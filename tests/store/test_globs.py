"""Globs from plan files are matched in linear time (`store/globs.py`), never by a backtracking regex."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from leafwise.store.globs import first_match, ignore_matches, matches
from testkit import source_files, walked

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("glob", "path", "expected"), [
    ("secrets", "a/b/secrets/key.pem", True), ("secrets", "secrets", True), ("docs/", "docs/api.md", True),
    ("doc", "docs/api.md", False), ("**/*.min.js", "x/y/z.min.js", True), ("**/*.min.js", "z.min.js", True),
    ("?.txt", "a.txt", True), ("?.txt", "ab.txt", False), ("src/*.py", "src/a.py", True),
    ("src/*.py", "src/sub/a.py", False), ("src/**", "src/sub/a.py", True), ("./build/", "build/x", True),
    ("a/**/b", "a/b", True), ("a/**/b", "a/x/y/b", True), ("a/**/b", "a/xb", False), ("*.pem", "k/x.pem", True),
])
def test_off_limits_globs_read_like_gitignore(glob: str, path: str, expected: bool) -> None:
    assert ignore_matches(glob, path) is expected
    assert (first_match(path, ["nothing", glob]) == glob) is expected


@pytest.mark.parametrize(("glob", "path", "expected"), [
    ("src/**/*.py", "src/a.py", True), ("src/**/*.py", "src/x/y/a.py", True), ("*.py", "src/a.py", False),
    ("src/a?.py", "src/ab.py", True), ("src/a?.py", "src/a/.py", False), ("**", "", True), ("a", "", False),
    ("a.b", "axb", False),  # a dot is a dot, not a regex's any character
])
def test_file_globs_match_the_whole_path(glob: str, path: str, expected: bool) -> None:
    assert matches(glob, path) is expected


@pytest.mark.parametrize("glob", ["**" * 12 + "zz", "**/" * 12 + "zz", "*" * 24 + "zz", "**/*" * 8 + "zz"])
def test_a_hostile_glob_against_a_long_path_is_quick(glob: str) -> None:
    path = "a/" * 5000
    start = time.thread_time()  # this thread's CPU: a busy machine's waits do not count
    assert not ignore_matches(glob, path) and not matches(glob, path)
    assert time.thread_time() - start < 0.5


@pytest.mark.slow
def test_no_store_or_commands_module_builds_a_regex_from_a_glob() -> None:
    """The old shape: a loop turning `**`, `*` and `?` into `.*`, `[^/]*` and `[^/]`."""
    found = []
    for folder in ("store", "commands"):
        for path in source_files(ROOT / folder):
            strings = {n.value for n in walked(path.read_text(encoding="utf-8"))
                       if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            if {"[^/]*", "[^/]"} <= strings or {"(?:.*/)?"} <= strings:
                found.append(str(path.relative_to(ROOT)))
    assert found == []


def oracle(glob: str, path: str) -> bool:
    """The same language as a regex (fine here: tiny globs and paths, never a plan's)."""
    import re

    out = "".join("(?:.*/)?" if part == "**/" else ".*" if part == "**" else "[^/]*" if part == "*"
                  else "[^/]" if part == "?" else re.escape(part)
                  for part in re.findall(r"\*\*/|\*\*|\*|\?|.", glob, re.S))
    return re.fullmatch(out, path, re.S) is not None


@pytest.mark.slow
def test_the_matcher_agrees_with_a_regex_on_small_random_globs() -> None:
    import random

    rnd = random.Random(7)
    for _ in range(20_000):
        glob = "".join(rnd.choice("ab/*?.") for _ in range(rnd.randint(0, 7)))
        path = "".join(rnd.choice("ab/.") for _ in range(rnd.randint(0, 9)))
        assert matches(glob, path) is oracle(glob, path), (glob, path)
