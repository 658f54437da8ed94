"""`doctor` on a hostile plan folder: links, a FIFO and an oversized file answer in time, each link
named, nothing read through it; the schema it checks is read by the one reader."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from leafwise.commands.domain.doctor import envelope_schema, envelope_schema_text
from testkit import node, run_cli, write_plan

DEADLINE = 30


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_doctor_names_each_link_and_waits_on_no_fifo(tmp_path):
    root = write_plan(tmp_path, [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1")])
    lw = root / ".leafwise"
    os.symlink("/dev/zero", lw / "nodes" / "T-9.yaml")
    os.symlink("/", lw / "docs" / "everything")  # a linked folder: named, never entered
    os.mkfifo(lw / "docs" / "T-2.md")
    (lw / "nodes" / "T-8.yaml").write_text("title: " + "x" * (300 * 1024) + "\n")
    env = {"LEAFWISE_CONFIG_DIR": str(tmp_path / "config"), "LEAFWISE_CACHE_DIR": str(tmp_path / "cache")}
    res = run_cli("doctor", "--json", cwd=root, env=env, timeout=DEADLINE)
    assert "internal_error" not in res.stdout + res.stderr and "Traceback" not in res.stderr, res.stderr
    links = sorted(c["message"].split(" ")[0] for c in res.json["result"]["checks"] if c["name"] == "symlinks")
    assert links == [".leafwise/docs/everything", ".leafwise/nodes/T-9.yaml"], links


def test_the_envelope_schema_is_read_by_the_reader():
    text = envelope_schema_text()
    assert envelope_schema()["$schema"].endswith("2020-12/schema") and text.lstrip().startswith("{")
