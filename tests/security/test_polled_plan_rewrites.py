"""A watcher that polls (store/polling.py: a cloned plan holding a link to a folder, which no watch may
take, or no inotify left) compared each file's (inode, mtime, size): a node file rewritten in place at
the same size with its mtime put back (what `cp -p`, `rsync -t`, `touch -r` and `tar x` do) was no
change to it. The MCP server then answered from the plan it had: `get_next_task` named a task the
file says is done, while `leafwise next` named the next one. The ctime, which no program can set, is
now part of each file's stamp.

A real `git clone` of a plan with `docs/dlink -> ../diagrams`, a real `leafwise mcp` over stdio (the
SDK's client), the CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from testkit import node, write_plan
from testkit.mcp_stdio import mcp_session

pytestmark = pytest.mark.slow

GIT = ["git", "-c", "user.name=m", "-c", "user.email=m@example.com"]


def cloned(tmp_path: Path) -> Path:
    src = write_plan(tmp_path / "src", [node("T-1", "Epic", release="R1"), node("T-2", "Bravo", parent="T-1"),
                                        node("T-3", "Alpha", parent="T-1")])
    (src / ".leafwise/diagrams").mkdir(exist_ok=True)
    (src / ".leafwise/diagrams/d.txt").write_text("x\n")
    (src / ".leafwise/docs").mkdir(exist_ok=True)
    (src / ".leafwise/docs/dlink").symlink_to("../diagrams")  # a link to a folder: the watcher polls
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=src, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=src, check=True)
    subprocess.run([*GIT, "commit", "-qm", "plan"], cwd=src, check=True)
    subprocess.run(["git", "clone", "-q", str(src), str(tmp_path / "clone")], check=True)
    return tmp_path / "clone"


def own_next(root: Path) -> str | None:
    done = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "next", "--json"], cwd=root,
                          capture_output=True, text=True, env={**os.environ, "LEAFWISE_AGENT": ""}, timeout=60)
    return (json.loads(done.stdout)["result"].get("task") or {}).get("id")


def same_size_rewrite(path: Path, old: str, new: str) -> None:
    """`old` replaced by `new` (as long) in place, the file's mtime put back."""
    assert len(old) == len(new)
    st = path.stat()
    text = path.read_text()
    assert old in text
    with path.open("r+") as handle:
        handle.write(text.replace(old, new, 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size


@pytest.mark.parametrize("node_id, old, new", [
    ("T-3", 'status: "draft"', 'status: "done" '),   # the pick's task closed
    ("T-3", 'status: "draft"', 'status: "bogus"'),   # a status no node has: the file is broken now
    ("T-2", 'title: "Bravo"', 'title: "Aaaaa"'),     # a title: the sibling order moves
])
def test_a_polled_plan_sees_a_rewrite_that_put_its_mtime_back(tmp_path, node_id, old, new):
    root = cloned(tmp_path)
    from leafwise.store.watch import folder_links

    assert folder_links(root / ".leafwise") is None  # the payload: no watch may take this tree

    async def go() -> tuple[str | None, str | None]:
        async with mcp_session(root) as session:
            before = (await session.call_tool("get_next_task", {})).structured_content["result"]
            same_size_rewrite(root / ".leafwise/nodes" / f"{node_id}.yaml", old, new)
            after = (await session.call_tool("get_next_task", {})).structured_content["result"]
            return (before.get("task") or {}).get("id"), (after.get("task") or {}).get("id")

    before, after = anyio.run(go)
    assert before == "T-3"
    assert after == own_next(root), (before, after)
