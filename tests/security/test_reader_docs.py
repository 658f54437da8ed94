"""`doc --write FILE` and `doc --write -` read by the one reader: a link to /dev/zero, a FIFO or an
oversized file named by the caller is a usage error naming it, in time; standard input is read up to the
doc cap; writing over a doc in the plan never reads the old one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from leafwise.store import reader
from testkit import journal, node, run_cli, write_plan
from testkit.hostile import hostile_source

DEADLINE = 30


def plan(tmp_path: Path) -> Path:
    return write_plan(tmp_path / "repo", [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1")])


@pytest.mark.parametrize("how", ["dev-zero", "fifo", "oversized"])
def test_a_hostile_file_to_write_from_is_named_and_nothing_is_written(tmp_path, how):
    root = plan(tmp_path)
    source = tmp_path / "notes.md"
    if how == "dev-zero" and not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    hostile_source(source, how, reader.DOC.cap)
    res = run_cli("doc", "T-2", "--write", str(source), cwd=root, timeout=DEADLINE)
    assert res.code == 2, (res.code, res.stdout, res.stderr)
    assert f"cannot read {source}" in res.stderr and "Fix: leafwise doc T-2 --write -" in res.stderr, res.stderr
    assert not (root / ".leafwise" / "docs" / "T-2.md").exists() and journal(root) == []


def test_standard_input_is_read_up_to_the_doc_cap(tmp_path):
    root = plan(tmp_path)
    res = run_cli("doc", "T-2", "--write", "-", cwd=root, stdin="y" * (reader.DOC.cap + 10), timeout=DEADLINE)
    assert res.code == 2 and "over 1,048,576 bytes" in res.stderr, res.stderr
    res = run_cli("doc", "T-2", "--write", "-", cwd=root, stdin="# Leaf\r\n\r\nSteps.\r\n", timeout=DEADLINE)
    assert res.code == 0, res.stderr
    assert (root / ".leafwise" / "docs" / "T-2.md").read_bytes() == b"# Leaf\n\nSteps.\n"


def test_a_fifo_where_the_doc_goes_is_replaced_never_read(tmp_path):
    root = plan(tmp_path)
    doc = root / ".leafwise" / "docs" / "T-2.md"
    os.mkfifo(doc)
    res = run_cli("write-doc", "T-2", "--content", "Plain steps.", "--json", cwd=root, timeout=DEADLINE)
    assert res.code == 0, res.stderr
    assert doc.read_text() == "Plain steps.\n"
    assert res.json["mutation"]["changes"][0]["op"] == "create"
