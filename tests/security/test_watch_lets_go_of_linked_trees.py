"""A watcher asked `watch.folder_links` only when it started (h22g, issue 22). A tree that changes under a
live watcher went on being watched: a folder holding a link to a 3,000-folder tree, moved in where
docs/a was, made the MCP server hold 3,036 of the user's inotify watches for as long as it lived
(watchfiles' notify follows the link), and the canvas and `next --wait` the same. Every watcher now
asks `watch.FolderGuard` as long as it watches (a stat per folder per look), lets the watch go when
the tree is no longer one a watch may take, and compares stat walks from then on: it still sees a write.

The real MCP server over stdio (the SDK's client), the canvas through Pilot with its real watcher, and
`next --wait` as a real CLI process; the inotify watches counted in /proc."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from testkit import node, write_plan
from testkit.canvas import canvas, live, row_text, tree, until
from testkit.mcp_stdio import mcp_session
from testkit.watching import inotify_watches

pytestmark = pytest.mark.slow


def children_watches() -> int:
    """The inotify watches held by this process's children (the MCP server)."""
    me, total = os.getpid(), 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) == me:
                total += inotify_watches(int(pid))
        except (OSError, ValueError, IndexError):
            pass
    return total


def plan(tmp_path: Path) -> Path:
    root = write_plan(tmp_path / "plan", [node("T-1", "Epic", release="R1"), node("T-2", "Alpha", parent="T-1")])
    (root / ".leafwise/docs/a").mkdir(parents=True)
    (root / ".leafwise/docs/a/keep.md").write_text("kept\n")
    return root


def big_tree(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    for i in range(1_500):
        (outside / f"d{i % 30}" / f"e{i}").mkdir(parents=True)
    return outside


def move_in_link(root: Path, outside: Path) -> None:
    """docs/a replaced by a folder holding a link to `outside` (no link count moves)."""
    held = root.parent / "held"
    held.mkdir()
    (held / "tree").symlink_to(outside)
    shutil.rmtree(root / ".leafwise/docs/a")
    os.rename(held, root / ".leafwise/docs/a")


def retitle(root: Path, old: str, new: str) -> None:
    path = root / ".leafwise/nodes/T-2.yaml"
    path.write_text(path.read_text().replace(old, new))


def test_the_mcp_server_lets_the_tree_go_and_still_sees_a_write(tmp_path):
    root, outside = plan(tmp_path), big_tree(tmp_path)

    async def go() -> tuple[int, int, str]:
        async with mcp_session(root, seconds=120) as session:
            await session.call_tool("get_next_task", {})
            before = children_watches()
            move_in_link(root, outside)
            time.sleep(1)
            await session.call_tool("get_next_task", {})  # the call that sees the tree changed
            time.sleep(1)
            await session.call_tool("get_next_task", {})
            after = children_watches()
            retitle(root, '"Alpha"', '"Alpha two"')
            answer = (await session.call_tool("get_next_task", {})).structured_content
            return before, after, answer["result"]["task"]["title"]

    before, after, title = anyio.run(go)
    assert before < 50
    assert after < 50, f"the server still holds {after} inotify watches"
    assert title == "Alpha two"


@pytest.mark.anyio
async def test_the_canvas_lets_the_tree_go_and_still_sees_a_write(tmp_path):
    root, outside = plan(tmp_path), big_tree(tmp_path)
    app = canvas(root, tmp_path, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await live(app, pilot)
        assert tree(app).reveal("T-2")
        before = inotify_watches(os.getpid())
        move_in_link(root, outside)
        await until(pilot, lambda: inotify_watches(os.getpid()) < before + 50, timeout=10,
                    what="the canvas to let the linked tree's watches go")
        await pilot.pause(1.5)
        assert inotify_watches(os.getpid()) < before + 50
        retitle(root, '"Alpha"', '"Alpha two"')
        await until(pilot, lambda: "Alpha two" in row_text(app, "T-2"), timeout=10, what="the write seen")


def test_next_wait_lets_the_tree_go_and_still_wakes(tmp_path):
    root = write_plan(tmp_path / "plan", [node("T-1", "Epic", release="R1"),
                                          node("T-2", "Bravo", "blocked", parent="T-1", blocked_reason="waits")])
    (root / ".leafwise/docs/a").mkdir(parents=True)
    outside = big_tree(tmp_path)
    waiting = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "next", "--wait", "40"],
                               cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "LEAFWISE_AGENT": ""})
    try:
        time.sleep(2)
        move_in_link(root, outside)
        time.sleep(3)
        held = inotify_watches(waiting.pid)
        path = root / ".leafwise/nodes/T-2.yaml"
        path.write_text(path.read_text().replace('status: "blocked"', 'status: "draft"')
                        .replace("blocked_reason:", "#blocked_reason:"))
        out, err = waiting.communicate(timeout=60)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    assert held < 50, f"next --wait still held {held} inotify watches"
    assert waiting.returncode == 0 and "T-2" in out.splitlines()[0], out + err
