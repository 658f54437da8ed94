"""No watcher takes a tree a cloned plan points it at (store/watch.py `folder_links`, the one rule).

watchfiles' notify follows a link to a folder down the whole tree it names: a plan holding
`docs/usr -> /usr` made the canvas take 15,501 of the user's inotify watches (measured in session 17,
after the loop server alone had been guarded), and the MCP server's and `next --wait`'s watchers the
same; 3,000 folders took one watch each. Each watcher (the canvas's `watch`, the MCP server's
`PlanWatcher`, `next --wait`'s `ChangeWait`) now compares stat walks instead, and still sees a write.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest
from testkit import node, write_plan
from testkit.watching import inotify_watches

from leafwise.store import watch
from leafwise.store.paths import find_root


@pytest.fixture(params=["link_to_usr", "many_folders"])
def hostile(request, tmp_path: Path) -> Path:
    root = write_plan(tmp_path / "p", [node("T-1", "Alpha", release="R1")])
    docs = root / ".leafwise" / "docs"
    docs.mkdir(exist_ok=True)
    if request.param == "link_to_usr":
        (docs / "usr").symlink_to("/usr")
    else:
        for i in range(watch.MAX_FOLDERS + 5):
            (docs / f"d{i}").mkdir()
    return root


def touch_node(root: Path) -> None:
    path = root / ".leafwise" / "nodes" / "T-1.yaml"
    path.write_text(path.read_text().replace("Alpha", "Alpha two"))


def test_the_mcp_servers_watcher_takes_no_linked_tree_and_still_sees_a_write(hostile: Path):
    before = inotify_watches()
    watcher = watch.PlanWatcher(find_root(hostile, None))
    try:
        assert inotify_watches() - before < 20
        touch_node(hostile)
        assert watcher.changes().nodes == {"T-1"}
    finally:
        watcher.close()


def test_next_waits_without_a_watch_on_a_linked_tree(hostile: Path):
    before = inotify_watches()
    with watch.ChangeWait(find_root(hostile, None)) as waiting:
        assert inotify_watches() - before < 20
        threading.Timer(0.3, touch_node, [hostile]).start()
        changes = waiting.wait(10)
    assert changes is not None and changes.nodes == {"T-1"}


def test_the_canvas_watch_takes_no_linked_tree_and_still_sees_a_write(hostile: Path):
    paths = find_root(hostile, None)

    async def go() -> tuple[int, set[str]]:
        stop = asyncio.Event()
        events = watch.watch(paths, stop_event=stop)
        first = asyncio.ensure_future(events.__anext__())
        await asyncio.sleep(0.5)
        held = inotify_watches()
        touch_node(hostile)
        got = await asyncio.wait_for(first, 15)
        stop.set()
        await events.aclose()
        return held, got.nodes

    before = inotify_watches()
    held, nodes = asyncio.run(go())
    assert held - before < 20 and nodes == {"T-1"}
