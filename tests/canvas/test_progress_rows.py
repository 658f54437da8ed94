"""Driven with Pilot: the progress view's in-progress rows read right."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.progress import ProgressScreen
from testkit import node, write_plan
from testkit.canvas import canvas, ready, until

pytestmark = pytest.mark.anyio


async def test_in_progress_rows_space_the_agent_and_count_one_leaf_as_a_leaf(tmp_path):
    root = tmp_path / "repo"
    write_plan(root, [node("T-1", "Checkout", "in-progress", release="R1"),
                      node("T-2", "Place order with bank transfer", "in-progress", parent="T-1",
                           assignee="claude-1"),
                      node("T-3", "Receipt", "done", parent="T-1"),
                      node("T-4", "Shipping", "in-progress", release="R1"),
                      node("T-5", "Rates", parent="T-4"), node("T-6", "Labels", parent="T-4")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ProgressScreen)
                    and app.screen.query_one("#progress-list").option_count > 3)
        listing = app.screen.query_one("#progress-list")
        rows = {o.id: o.prompt.plain for o in listing.options if o.id and o.id.startswith("flight:")}
        assert "Place order with bank transfer  @claude-1" in rows["flight:T-2"], rows
        assert rows["flight:T-1"].rstrip().endswith("1 open leaf left"), rows
        assert rows["flight:T-4"].rstrip().endswith("2 open leaves left"), rows
