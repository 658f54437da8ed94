"""The loop server's warm plan against a tree that changes under it (h22g, issue 22).

- The server looked at the tree's folders again only when a folder's link count moved. A link to a
  folder made in docs/ moves none (a link is no folder), nor does a folder moved in where another was
  (and btrfs keeps every folder's count at 1): a folder holding `usr -> /usr` moved in as docs/a took
  the server from 5 to 12,663 of the user's inotify watches, and it went on serving. Each folder's
  mtime, ctime and inode now count too (`watch.folder_stamp`).
- A write through another name of a node file (a hard link outside the plan) reaches no watch of the
  plan's folder (watchfiles saw no event for the link, the write or a chmod): the served `next` named
  a task its file said was done, while the call's own run named the next one. The files with more
  than one name are stat'ed on every call (`PlanWatcher._relinked`), for the loop server and the MCP
  server alike.

Real `git clone`s, the real console script in subprocesses (tests/commands/test_loop_server.py's probe
says whether a line was served), a real `leafwise mcp` through the SDK's client."""

from __future__ import annotations

import importlib.util
import os
import shutil
import time
from pathlib import Path

import anyio
import pytest
from testkit import node, wait_until, write_plan
from testkit.mcp_stdio import mcp_session
from testkit.watching import inotify_watches, write_through

_spec = importlib.util.spec_from_file_location(
    "loop_server_tests_for_tree_moves", Path(__file__).parents[1] / "commands" / "test_loop_server.py")
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
runtime = base.runtime  # a runtime folder of the test's own, its servers stopped at the end
call, serving, server_pids = base.call, base.serving, base.server_pids

_hostile = importlib.util.spec_from_file_location(
    "loop_server_hostile_for_tree_moves", Path(__file__).with_name("test_loop_server_hostile.py"))
hostile = importlib.util.module_from_spec(_hostile)
_hostile.loader.exec_module(hostile)
cloned = hostile.cloned

pytestmark = pytest.mark.slow


def plan(root: Path) -> Path:
    write_plan(root, [node("T-1", "Epic", release="R1"), node("T-2", "Bravo", parent="T-1"),
                      node("T-3", "Alpha", parent="T-1")])
    docs = root / ".leafwise" / "docs"
    (docs / "a").mkdir(parents=True)
    (docs / "a" / "keep.md").write_text("kept\n")
    (docs / "b" / "c").mkdir(parents=True)
    (docs / "b" / "c" / "keep.md").write_text("kept\n")
    return root


def link_in_docs(docs: Path, outside: Path) -> None:
    (docs / "usr").symlink_to(outside)


def link_deeper(docs: Path, outside: Path) -> None:
    (docs / "b" / "c" / "usr").symlink_to(outside)


def folder_moved_in(docs: Path, outside: Path) -> None:
    """docs/a replaced by a folder (one link count, as docs/a had) holding a link to `outside`."""
    held = docs.parent.parent / "held"
    held.mkdir()
    (held / "usr").symlink_to(outside)
    before = (os.lstat(docs).st_nlink, os.lstat(docs / "a").st_nlink)
    shutil.rmtree(docs / "a")
    os.rename(held, docs / "a")
    assert (os.lstat(docs).st_nlink, os.lstat(docs / "a").st_nlink) == before  # no link count moved


@pytest.mark.parametrize("change", [link_in_docs, link_deeper, folder_moved_in], ids=lambda f: f.__name__)
def test_a_link_to_a_folder_made_under_a_warm_server_ends_it(tmp_path, runtime, change):
    outside = tmp_path / "outside"
    for i in range(300):  # a tree the watch must not take: 300 folders
        (outside / f"d{i}").mkdir(parents=True)
    root = cloned(plan(tmp_path / "src"), tmp_path / "clone")
    serving(root)
    (pid,) = server_pids(runtime)
    before = inotify_watches(pid)
    change(root / ".leafwise" / "docs", outside)
    time.sleep(0.5)
    out, _err, code, how = call(root, "next", "--json")
    assert code == 0 and '"id": "T-3"' in out
    assert how == "ran", "a server over a tree holding a link to a folder answered"
    wait_until(lambda: not server_pids(runtime), timeout=30, what="the server to exit")
    assert before < 50


def hard_linked(tmp_path: Path) -> tuple[Path, Path]:
    root = cloned(plan(tmp_path / "src"), tmp_path / "clone")
    other = tmp_path / "elsewhere.yaml"
    os.link(root / ".leafwise" / "nodes" / "T-3.yaml", other)  # before any watch starts
    return root, other


CHANGES = [('status: "draft"', 'status: "done"'),   # the pick's task closed
           ('title: "Alpha"', 'title: "Zulu"'),      # the sibling order moves
           ('status: "draft"', 'status: "nope"')]    # the file is broken now


@pytest.mark.parametrize("old, new", CHANGES)
def test_a_served_next_sees_a_write_through_another_name(tmp_path, runtime, old, new):
    root, other = hard_linked(tmp_path)
    serving(root)
    assert '"id": "T-3"' in call(root, "next", "--json")[0]
    write_through(other, old, new)
    served, own = call(root, "next"), call(root, "next", served=False)
    assert served[3] == "served" and own[3] == "ran"
    assert served[:3] == own[:3]


@pytest.mark.parametrize("old, new", CHANGES)
def test_the_mcp_server_sees_a_write_through_another_name(tmp_path, old, new):
    root, other = hard_linked(tmp_path)

    async def go() -> tuple[dict, dict]:
        async with mcp_session(root) as session:
            first = (await session.call_tool("get_next_task", {})).structured_content
            write_through(other, old, new)
            return first, (await session.call_tool("get_next_task", {})).structured_content

    first, after = anyio.run(go)
    assert first["result"]["task"]["id"] == "T-3"
    own = call(root, "next", "--json", served=False)[0]
    import json

    own_env = json.loads(own)
    assert (after["result"].get("task") or {}).get("id") == (own_env["result"].get("task") or {}).get("id")
    assert after["status"] == own_env["status"]
