"""The store through real files and the real CLI: byte-for-byte edits, broken files,
paths that leave `.leafwise/`, the parse cache, and the crash-safety primitives."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from leafwise.store import PlanPaths, journal, load_plan
from leafwise.store.loader import LoadStats
from leafwise.store.writer import TEMP_PREFIX, Conflict, atomic_write, edit_node, sweep_temp_files
from testkit import node, run_cli, write_plan

HAND_WRITTEN = """\
# A hand-written node: comments, odd quoting, both list styles, unknown keys.
id: T-7   # the id equals the file name
title: 'Login form: "remember me" option'
parent: "T-2"
release: R1
status: draft
assignee: ~
depends_on: [T-2]   # flow list
tags:
  - auth
  - "ui"   # a quoted item
estimate: {points: 3, confidence: low}   # an unknown key, a flow map
notes: |
  Keep this block
    exactly as written.
x_custom:
    nested: yes      # four spaces, a YAML 1.1 boolean
    list:
    - 1
    - 'two'

# a comment between keys
trigger: >-
  folded text
  over two lines
created: 2026-11-29T20:00:00Z
updated: 2026-11-29T20:00:00Z   # stamped by every command
"""


def _without_keys(text: str, keys: set[str]) -> list[str]:
    """The file's lines minus those of the top-level `keys` (a key line and its indented lines)."""
    out, skipping = [], False
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z_][\w-]*):", line)
        if match:
            skipping = match.group(1) in keys
        elif line[:1] not in (" ", "-"):
            skipping = False  # a column-0 comment or blank line ends the block
        if not skipping:
            out.append(line)
    return out


@pytest.fixture
def hand_plan(tmp_path: Path) -> Path:
    write_plan(tmp_path, {"T-2": "id: T-2\ntitle: Parent\nstatus: draft\n", "T-7": HAND_WRITTEN})
    return tmp_path


@pytest.mark.parametrize("assignment, key, value", [
    ("title=Login form", "title", "Login form"),
    ("assignee=bob", "assignee", "bob"),
    ("depends_on=[]", "depends_on", []),
    ("tags=auth,ui,login", "tags", ["auth", "ui", "login"]),
    ("summary=a new key", "summary", "a new key"),
])
def test_edit_changes_one_field_and_keeps_every_other_byte(hand_plan: Path, assignment: str, key: str,
                                                           value) -> None:
    res = run_cli("edit", "T-7", "--set", assignment, cwd=hand_plan)
    assert res.code == 0, res.stderr
    after = (hand_plan / ".leafwise/nodes/T-7.yaml").read_text()
    assert yaml.safe_load(after)[key] == value
    assert _without_keys(after, {key, "updated"}) == _without_keys(HAND_WRITTEN, {key, "updated"})
    stamp = next(line for line in after.splitlines() if line.startswith("updated:"))
    assert stamp.endswith("   # stamped by every command") and "2026-11-29T20:00:00Z" not in stamp


def test_an_edit_that_changes_nothing_leaves_the_file_alone(hand_plan: Path) -> None:
    path = hand_plan / ".leafwise/nodes/T-7.yaml"
    before = path.stat()
    res = run_cli("edit", "T-7", "--set", "release=R1", cwd=hand_plan)
    assert res.code == 0, res.stderr
    assert path.read_text() == HAND_WRITTEN
    assert path.stat().st_ino == before.st_ino  # not even rewritten


def test_a_corrupt_node_file_is_reported_with_its_line_and_the_others_load(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Fine one"), node("T-3", "Fine too")])
    (tmp_path / ".leafwise/nodes/T-2.yaml").write_text("id: T-2\ntitle: Broken\nstatus: [draft\ntags: []\n")
    res = run_cli("validate", "--json", cwd=tmp_path)
    assert res.code == 4
    problems = res.json["error"]["details"]["problems"]["items"]
    broken = [p for p in problems if p["node"] == "T-2"]
    assert broken and broken[0]["code"] == "yaml_error"
    assert broken[0]["file"] == ".leafwise/nodes/T-2.yaml" and broken[0]["line"] in (3, 4)
    listed = run_cli("list", "--json", cwd=tmp_path)
    assert listed.code == 0
    assert sorted(i["id"] for i in listed.json["result"]["items"]) == ["T-1", "T-3"]
    shown = run_cli("show", "T-2", cwd=tmp_path)
    assert shown.code == 5 and "cannot be read" in shown.stderr and "Fix: " in shown.stderr


def test_a_schema_error_names_the_key_line(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Fine")])
    (tmp_path / ".leafwise/nodes/T-2.yaml").write_text("id: T-2\ntitle: Bad\n\n# why\nstatus: finished\n")
    res = run_cli("validate", "--json", cwd=tmp_path)
    problem = next(p for p in res.json["error"]["details"]["problems"]["items"] if p["node"] == "T-2")
    assert problem["code"] == "schema_error" and problem["line"] == 5


def test_paths_that_leave_the_plan_are_refused(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Task", docs=["../secret.md"])])
    (tmp_path / "secret.md").write_text("TOP SECRET\n")
    res = run_cli("show", "../../x", cwd=tmp_path)
    assert res.code == 2 and "Fix: " in res.stderr
    res = run_cli("edit", "T-1", "--set", "docs=[../../etc/passwd]", cwd=tmp_path)
    assert res.code == 2 and "leaves .leafwise" in res.stderr
    res = run_cli("doc", "T-1", "--json", cwd=tmp_path)
    assert "TOP SECRET" not in res.stdout
    assert res.json["result"]["docs"][0]["missing"] is True
    res = run_cli("validate", "--json", cwd=tmp_path)
    assert any(p["code"] == "unsafe_path" for p in res.json["error"]["details"]["problems"]["items"])


def test_the_cache_reparses_only_the_file_that_changed(tmp_path: Path) -> None:
    write_plan(tmp_path, [node(f"T-{i}", f"Task {i}") for i in range(1, 31)])
    paths = PlanPaths(tmp_path)
    first = LoadStats()
    load_plan(paths, stats=first)
    assert (first.files, first.parsed) == (30, 30)
    again = LoadStats()
    load_plan(paths, stats=again)
    assert again.parsed == 0
    assert run_cli("edit", "T-7", "--set", "title=Renamed", cwd=tmp_path).code == 0
    after = LoadStats()
    plan = load_plan(paths, stats=after)
    assert after.parsed == 1 and plan.nodes["T-7"].title == "Renamed"


def test_a_cache_written_by_other_loader_code_is_read_again(tmp_path: Path, monkeypatch) -> None:
    """A file the loader now refuses (here: a merge key) is not served from a cache made before."""
    from leafwise.store import cache

    write_plan(tmp_path, [node("T-1", "fine"), node("T-2", "merged")])
    merged = tmp_path / ".leafwise" / "nodes" / "T-2.yaml"
    merged.write_text(merged.read_text() + "<<: {summary: pasted}\n")
    monkeypatch.setattr(cache, "cache_version", lambda: (cache.CACHE_FORMAT, 1))  # an older loader's cache
    paths = PlanPaths(tmp_path)
    stale = load_plan(paths)
    assert stale.problems and "T-2" not in stale.nodes  # refused by today's loader either way
    monkeypatch.undo()
    fresh = LoadStats()
    plan = load_plan(paths, stats=fresh)
    assert fresh.parsed == 2 and "T-2" not in plan.nodes and "merge keys" in str(plan.problems[0].message)
    again = LoadStats()
    load_plan(paths, stats=again)
    assert again.parsed == 0  # the cache written under today's code is used


# --- crash-safety primitives --------------------------------------------------

def test_atomic_write_leaves_no_temp_file_and_exclusive_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "f.yaml"
    atomic_write(target, b"one\n")
    atomic_write(target, b"two\n")
    from leafwise.store.writer import Exists

    with pytest.raises(Exists):
        atomic_write(target, b"three\n", exclusive=True)
    assert target.read_bytes() == b"two\n"
    assert os.listdir(tmp_path) == ["f.yaml"]


def test_sweep_removes_temp_files_of_dead_writers_only(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Task")])
    paths = PlanPaths(tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    orphan = paths.nodes / f"{TEMP_PREFIX}{dead}-abc.tmp"
    mine = paths.nodes / f"{TEMP_PREFIX}{os.getpid()}-def.tmp"
    for path in (orphan, mine):
        path.write_text("id: T-1\ntit")
    assert sweep_temp_files(paths, dry_run=True) == [orphan]
    assert orphan.exists()
    assert sweep_temp_files(paths) == [orphan]
    assert not orphan.exists() and mine.exists()
    plan = load_plan(paths)  # temp files are never read as nodes
    assert list(plan.nodes) == ["T-1"] and not plan.problems


def test_a_torn_journal_line_costs_only_itself(tmp_path: Path) -> None:
    write_plan(tmp_path, [])
    paths = PlanPaths(tmp_path)
    journal.append(paths, {"command": "one"})
    with open(paths.journal, "ab") as fh:
        fh.write(b'{"command": "torn", "no')  # a writer died mid-line
    journal.append(paths, {"command": "two"})
    assert [e["command"] for e in journal.read(paths)] == ["one", "two"]
    lines = paths.journal.read_bytes().splitlines()
    assert len(lines) == 3 and json.loads(lines[-1])["command"] == "two"


def test_edit_with_a_base_refuses_a_field_another_writer_changed(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Task", tags=["a"])])
    paths = PlanPaths(tmp_path)
    base = dict(load_plan(paths).nodes["T-1"].data)
    edit_node(paths, "T-1", None, lambda doc: doc.__setitem__("tags", ["a", "b"]))  # another writer
    with pytest.raises(Conflict) as caught:
        edit_node(paths, "T-1", None, lambda doc: doc.__setitem__("tags", ["a", "c"]), base=base)
    assert caught.value.field == "tags"
    # a change to a field nobody else touched still applies on top of theirs
    edit_node(paths, "T-1", None, lambda doc: doc.__setitem__("title", "Renamed"), base=base)
    data = load_plan(paths).nodes["T-1"].data
    assert data["tags"] == ["a", "b"] and data["title"] == "Renamed"


def test_round_trip_keeps_a_file_whose_keys_it_cannot_cut(tmp_path: Path) -> None:
    """A key that is not at column 0 in the usual way still edits correctly (full ruamel dump)."""
    text = textwrap.dedent("""\
        {id: T-1, title: Flow mapping node, status: draft}
    """)
    write_plan(tmp_path, {"T-1": text})
    res = run_cli("edit", "T-1", "--set", "title=Still works", cwd=tmp_path)
    assert res.code == 0, res.stderr
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/T-1.yaml").read_text())["title"] == "Still works"
