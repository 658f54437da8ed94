"""A watcher that polls (store/polling.py: a plan holding a link to a folder, which no watch may take, or no
inotify left) walked the whole tree every 0.25 s whatever the walk cost (h22g, issue 22). A cloned plan
of 100,000 empty files (a few MB in git) and one link to a folder cost 0.4 CPU s a walk: the canvas
used 5.6 CPU s in 10 idle seconds (56% of a core for as long as it was open), and `next --wait` the
same for up to ten minutes. A poller now waits ten times its last walk's time (`polling.pause`).

The canvas through Pilot with its real watcher; `next --wait` as a real CLI process, measured by its own
rusage (wait4)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit import node, write_plan
from testkit.canvas import canvas, ready

pytestmark = pytest.mark.slow

FILES = 60_000


def heavy_plan(tmp_path: Path, *, blocked: bool = False) -> Path:
    root = write_plan(tmp_path / "plan", [node("T-1", "Epic", release="R1"),
                                          node("T-2", "Leaf", "blocked" if blocked else "draft", parent="T-1",
                                               **({"blocked_reason": "waits"} if blocked else {}))])
    docs = root / ".leafwise" / "docs"
    for i in range(FILES // 1000):
        folder = docs / f"f{i}"
        folder.mkdir(parents=True)
        for j in range(1000):
            (folder / f"{j}.md").touch()
    (root / ".leafwise" / "diagrams").mkdir(exist_ok=True)
    (docs / "dlink").symlink_to("../diagrams")  # a link to a folder: no watch may take this tree
    return root


@pytest.mark.anyio
async def test_an_idle_canvas_polling_a_big_tree_costs_little(tmp_path):
    root = heavy_plan(tmp_path)
    app = canvas(root, tmp_path, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        await pilot.pause(2)
        used = time.process_time()
        await pilot.pause(8)
        used = time.process_time() - used
    assert used < 2.0, f"{used:.2f} CPU s in 8 idle seconds"


def test_next_wait_polling_a_big_tree_costs_little(tmp_path):
    root = heavy_plan(tmp_path, blocked=True)
    proc = subprocess.Popen([sys.executable, "-m", "leafwise.commands.surfaces.cli", "next", "--wait", "8"], cwd=root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "LEAFWISE_AGENT": ""})
    _pid, status, usage = os.wait4(proc.pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    assert os.waitstatus_to_exitcode(status) == 0
    assert cpu < 2.5, f"{cpu:.2f} CPU s for an 8-second wait"
