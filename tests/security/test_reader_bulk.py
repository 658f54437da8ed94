"""`bulk`'s updates read by the one reader: a file named by the caller that is a link to /dev/zero, a
FIFO or over the updates cap, and standard input over the cap or nested past the depth cap, are a usage
error naming what could not be read, in time, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from leafwise.store import reader
from testkit import journal, node, run_cli, write_plan
from testkit.hostile import hostile_source

DEADLINE = 30


@pytest.mark.parametrize("how", ["dev-zero", "fifo", "oversized", "deep"])
def test_a_hostile_updates_file_is_named_and_nothing_runs(tmp_path, how):
    root = write_plan(tmp_path / "repo", [node("T-1", "A", release="R1")])
    source = tmp_path / "updates.json"
    if how == "dev-zero" and not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    hostile_source(source, how, reader.UPDATES.cap)
    res = run_cli("bulk", str(source), cwd=root, timeout=DEADLINE)
    assert res.code == 2, (res.code, res.stdout, res.stderr)
    assert f"cannot read the updates in {source}: " in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert journal(root) == []


@pytest.mark.parametrize("stdin", ["[" * 3000 + "]" * 3000, " " * (reader.UPDATES.cap + 1) + "[]"],
                         ids=["deep", "oversized"])
def test_standard_input_is_bounded_in_size_and_depth(tmp_path, stdin):
    root = write_plan(tmp_path / "repo", [node("T-1", "A", release="R1")])
    res = run_cli("bulk", "-", cwd=root, stdin=stdin, timeout=DEADLINE)
    assert res.code == 2 and "cannot read the updates: " in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and journal(root) == []


def test_good_updates_from_a_file_still_run(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "A", release="R1")])
    source = tmp_path / "updates.json"
    source.write_text(json.dumps([{"id": "T-1", "set": {"title": "B"}}]))
    res = run_cli("bulk", str(source), "--json", cwd=root, timeout=DEADLINE)
    assert res.code == 0, res.stderr
    assert [s["id"] for s in res.json["result"]["successful"]] == ["T-1"]
