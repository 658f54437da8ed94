"""Undoing an add takes back the new node and nothing else: the parent stays exactly as it was.

Real app (Pilot), real plan files in tmp, real core commands; the files and the journal are read back.
"""

from __future__ import annotations

import pytest
from testkit import journal, node, node_data, write_plan
from testkit.canvas import answer_prompt, canvas, ready, until

pytestmark = pytest.mark.anyio

SINCE = "2026-11-20T09:00:00Z"


async def add_child_then_undo(app, pilot, root, under: str, title: str) -> str:
    app.screen.reveal(under)
    await pilot.pause()
    await pilot.press("c")
    await answer_prompt(app, pilot, title)
    await until(pilot, lambda: any(e["command"] == "add" for e in journal(root)) and app.undo_stack)
    await app.workers.wait_for_complete()
    added = next(e["node"] for e in journal(root) if e["command"] == "add")
    before = len(app.notices)
    await pilot.press("ctrl+z")
    await until(pilot, lambda: any(n.title.startswith(("Undone", "Undo")) for n in app.notices[before:]))
    await app.workers.wait_for_complete()
    return added


async def test_undo_of_a_child_added_under_a_blocked_leaf_leaves_the_leaf_blocked(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [
        node("T-1", "Epic", "in-progress", release="R1"),
        node("T-2", "Plain task", "blocked", parent="T-1", blocked_reason="waiting for the keys",
             blocked_from="in-progress", blocked_since=SINCE),
        node("T-3", "Other", "in-progress", parent="T-1"),
    ])
    before = node_data(root, "T-2")
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        added = await add_child_then_undo(app, pilot, root, "T-2", "Child of plain")
        assert node_data(root, added)["status"] == "cancelled"
        after = node_data(root, "T-2")
        for name in ("status", "blocked_reason", "blocked_from", "blocked_since", "updated"):
            assert after.get(name) == before.get(name), name
        assert not any(e["command"] == "cascade" or e.get("cascade") for e in journal(root)
                       if e["command"] != "add"), journal(root)
        assert not any(e["node"] in ("T-1", "T-2") for e in journal(root) if e["command"] != "add")
        assert "Not undone" not in app.notices[-1].message


async def test_undo_of_a_child_added_under_a_done_epic_closes_the_epic_again(tmp_path, monkeypatch):
    """The add reopened the done epic (done → in progress); the undo's cancel closes it to done again."""
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [
        node("T-1", "Epic", "done", release="R1", summary="all shipped"),
        node("T-2", "Shipped task", "done", parent="T-1", summary="shipped"),
    ])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.query_one("PlanTree")  # the tree is there
        added = await add_child_then_undo(app, pilot, root, "T-1", "One more thing")
        assert node_data(root, added)["status"] == "cancelled"
        assert node_data(root, added)["parent"] == "T-1"  # cancelled where it was added
        assert node_data(root, "T-1")["status"] == "done"
        assert node_data(root, "T-2")["status"] == "done"
