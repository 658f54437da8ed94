"""`leafwise import` of a file that is there but is no regular file (h22d, issue 22): a FIFO, a link to
/dev/zero. Nothing is read (the one reader refuses both), and the answer says what the file is: it
said "no such file" for a file the person can see, so a person or an agent looked for a typo."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from testkit import node, write_plan

FORMATS = ("csv", "taskmaster", "json", "github", "beads")


def import_line(root, fmt: str, path) -> dict:
    proc = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "import", fmt, str(path),
                           "--dry-run", "--json"], cwd=root, capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL, env={**os.environ, "LEAFWISE_SERVER": "0"})
    return json.loads(proc.stdout)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero"])
def test_an_import_of_a_fifo_or_a_link_names_what_it_is(tmp_path, fmt, kind):
    root = write_plan(tmp_path / "plan", [node("T-1", "Alpha")])
    path = tmp_path / ("export.csv" if fmt == "csv" else "export.json")
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    answer = import_line(root, fmt, path)
    message = answer["error"]["message"]
    assert answer["status"] == "error" and "nothing was imported" in message
    assert "no such file" not in message, message
    assert ("is a FIFO" if kind == "fifo" else "is a symbolic link") in message, message


def test_a_partial_import_counts_an_item_in_a_parent_cycle_once_imported_never_skipped(tmp_path):
    """A CSV whose rows A and B name each other as parent, and C itself: with --partial the three were
    imported (at the top) and also reported skipped ('parent cycle: A → B → A'): 3 rows, 3 added,
    2 skipped; an agent re-imported the 'skipped' ones by hand, twice over."""
    root = write_plan(tmp_path / "plan", [node("T-1", "Alpha")])
    export = tmp_path / "export.csv"
    export.write_text("id,title,parent\nA,cycle a,B\nB,cycle b,A\nC,self parent,C\n")
    proc = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "import", "csv", str(export),
                           "--partial", "--json"], cwd=root, capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL, env={**os.environ, "LEAFWISE_SERVER": "0"})
    result = json.loads(proc.stdout)["result"]
    assert (result["added"], result["skipped"]) == (3, 0), result
    assert sum("parent cycle" in note and "imported at the top" in note for note in result["notes"]) == 2
