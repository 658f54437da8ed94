"""A watcher that polls (store/polling.py: a plan holding a link to a folder, which no watch may take, or no
inotify left) walked the whole tree every 0.25 s whatever the walk cost (h22g, issue 22). A cloned plan
of 100,000 empty files (a few MB in git) and one link to a folder cost 0.4 CPU s a walk: the canvas
used 5.6 CPU s in 10 idle seconds (56% of a core for as long as it was open), and `next --wait` the
same for up to ten minutes. A poller now waits ten times its last walk's time (`polling.pause`). The
MCP server walked the tree on every call (its watcher is synchronous): each call took 0.5 s; its warm
plan keeps no doc, so its walks, and a wait's, leave docs/ and diagrams/ out (`watch.DOC_DIRS`).

The canvas through Pilot with its real watcher; `next --wait` as a real CLI process, measured by its own
rusage (wait4); the real MCP server over stdio (the SDK's client)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from testkit import node, write_plan
from testkit.canvas import canvas, ready
from testkit.mcp_stdio import mcp_session

pytestmark = pytest.mark.slow

FILES = 60_000


@pytest.fixture(scope="module")
def heavy(tmp_path_factory) -> Path:
    """One plan for the module (60,000 files take a while to make): T-2 blocked, so nothing is free."""
    root = write_plan(tmp_path_factory.mktemp("heavy") / "plan",
                      [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", "blocked", parent="T-1",
                                                               blocked_reason="waits")])
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
async def test_an_idle_canvas_polling_a_big_tree_costs_little(heavy, tmp_path):
    app = canvas(heavy, tmp_path, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        await pilot.pause(2)
        used = time.process_time()
        await pilot.pause(8)
        used = time.process_time() - used
    assert used < 2.0, f"{used:.2f} CPU s in 8 idle seconds"


def test_next_wait_polling_a_big_tree_costs_little(heavy):
    proc = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "next", "--wait", "8"], cwd=heavy,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "LEAFWISE_AGENT": ""})
    _pid, status, usage = os.wait4(proc.pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    assert os.waitstatus_to_exitcode(status) == 0
    assert cpu < 2.5, f"{cpu:.2f} CPU s for an 8-second wait"


def test_the_mcp_servers_calls_on_a_big_polled_tree_stay_quick(heavy):
    added = heavy / ".leafwise/nodes/T-9.yaml"

    async def go() -> tuple[list[float], dict]:
        async with mcp_session(heavy, seconds=120) as session:
            took = []
            for _ in range(4):
                started = time.monotonic()
                await session.call_tool("get_next_task", {})
                took.append(time.monotonic() - started)
            added.write_text('id: "T-9"\ntitle: "Added"\nstatus: "draft"\nparent: "T-1"\n')
            return took, (await session.call_tool("get_next_task", {})).structured_content

    try:
        took, answer = anyio.run(go)
    finally:
        added.unlink(missing_ok=True)  # the module's plan has nothing free, as the other tests need
    assert (answer["result"].get("task") or {}).get("id") == "T-9"  # the write is still seen
    assert sorted(took)[1] < 0.25, [f"{t:.2f}" for t in took]
