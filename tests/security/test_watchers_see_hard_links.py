"""A write through another name of a plan file (a hard link outside the plan's folder) reaches no watch
of the folder: inotify tells the folder of the name written through, and nothing else (watchfiles saw
no event for the link, the write or a chmod). The loop server and the MCP server look at such files on
every call (tests/security/test_loop_server_tree_moves.py); the canvas kept the old title on screen
and `next --wait` slept through a task that became free (h22g, issue 22). Both now look at the files
with more than one name every second (`watch.relinked`, `LINKED_POLL_MS`).

The canvas through Pilot with its real watcher; `next --wait` as a real CLI process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit import node, write_plan
from testkit.canvas import canvas, live, row_text, tree, until
from testkit.watching import write_through

pytestmark = pytest.mark.slow


@pytest.mark.anyio
async def test_the_canvas_shows_a_write_through_another_name(tmp_path):
    root = write_plan(tmp_path / "plan", [node("T-1", "Epic", release="R1"), node("T-2", "Bravo", parent="T-1"),
                                          node("T-3", "Alpha", parent="T-1")])
    other = tmp_path / "elsewhere.yaml"
    os.link(root / ".leafwise/nodes/T-3.yaml", other)
    app = canvas(root, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        assert tree(app).reveal("T-3")
        await until(pilot, lambda: "Alpha" in row_text(app, "T-3"))
        write_through(other, 'title: "Alpha"', 'title: "Zulu renamed"')
        await until(pilot, lambda: "Zulu renamed" in row_text(app, "T-3"), timeout=8,
                    what="the canvas to show the title written through the other name")


def test_next_wait_wakes_for_a_write_through_another_name(tmp_path):
    root = write_plan(tmp_path / "plan", [node("T-1", "Epic", release="R1"),
                                          node("T-2", "Bravo", "blocked", parent="T-1", blocked_reason="waits")])
    other = tmp_path / "elsewhere.yaml"
    os.link(root / ".leafwise/nodes/T-2.yaml", other)
    started = time.monotonic()
    waiting = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "next", "--wait", "30"],
                               cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "LEAFWISE_AGENT": ""})
    time.sleep(2)  # the call has checked the plan and is waiting
    text = other.read_text()
    with other.open("r+") as handle:
        handle.write(text.replace('status: "blocked"', 'status: "draft"').replace("blocked_reason:", "#locked_reason:"))
        handle.truncate()
    out, err = waiting.communicate(timeout=60)
    took = time.monotonic() - started
    assert waiting.returncode == 0, out + err
    assert "T-2" in out.splitlines()[0], out
    assert took < 10, f"{took:.1f} s: it slept through the change"
