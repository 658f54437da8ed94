"""Driven with Pilot: the detail pane's links on plans that list a node twice."""

from __future__ import annotations

import pytest
from leafwise.canvas.widgets.node_detail import NodeDetail
from testkit import node, write_plan
from testkit.canvas import canvas, ready, tree, until

pytestmark = pytest.mark.anyio


def link_rows(detail: NodeDetail) -> list[tuple[str | None, str]]:
    links = detail.query_one("#detail-links")
    return [(option.id, option.prompt.plain) for option in links.options]


async def test_links_survive_a_dependency_listed_twice_the_parent_as_a_dependency_and_a_loop(tmp_path):
    root = tmp_path / "repo"
    write_plan(root, [node("T-1", "Epic", release="R1"),
                      node("T-5", "Payments", parent="T-1"),
                      node("T-9", "Twice", parent="T-1", depends_on=["T-5", "T-5"]),
                      node("T-3", "Waits on its parent", parent="T-1", depends_on=["T-1", "T-5"]),
                      node("T-6", "Loop one", parent="T-1", depends_on=["T-7"]),
                      node("T-7", "Loop two", parent="T-1", depends_on=["T-6"])])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        detail = app.screen.query_one(NodeDetail)
        for key in ("T-9", "T-3", "T-6"):
            assert tree(app).reveal(key)
            await until(pilot, lambda: detail.key == key)
            await pilot.pause()
        assert app.is_running  # no DuplicateID on the way

        assert tree(app).reveal("T-9")
        await until(pilot, lambda: detail.key == "T-9")
        rows = link_rows(detail)
        assert [i for i, _ in rows if i] == ["go:T-1", "go:T-5"]  # parent, then T-5 once
        assert any("Depends on (1 open)" in text for _, text in rows)

        # The parent listed as a dependency shows under both headers, each row a link to it.
        assert tree(app).reveal("T-3")
        await until(pilot, lambda: detail.key == "T-3")
        ids = [i for i, _ in link_rows(detail) if i]
        assert ids == ["go:T-1", "go:T-1|2", "go:T-5"]
        links = detail.query_one("#detail-links")
        links.focus()
        links.highlighted = links.get_option_index("go:T-1|2")
        await pilot.press("enter")
        await until(pilot, lambda: tree(app).cursor_key == "T-1")

        # A loop: T-7 is what T-6 depends on and what needs it.
        assert tree(app).reveal("T-6")
        await until(pilot, lambda: detail.key == "T-6")
        assert [i for i, _ in link_rows(detail) if i] == ["go:T-1", "go:T-7", "go:T-7|2"]
