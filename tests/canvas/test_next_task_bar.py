"""Driven with Pilot: a long next-task title stays on the Next line."""

from __future__ import annotations

import pytest
from leafwise.canvas.widgets.next_task import NextTaskBar
from testkit import node, write_plan
from testkit.canvas import canvas, ready, until
from textual.geometry import Region

pytestmark = pytest.mark.anyio


def drawn_lines(widget) -> list[str]:
    """The text each terminal line of `widget` shows now."""
    return [strip.text for strip in widget.render_lines(Region(0, 0, *widget.outer_size))]


@pytest.mark.parametrize("title", ["Take payment " * 40, "Line one\nline two\nline three " + "x" * 300])
async def test_a_long_next_title_is_cut_and_the_held_line_stays(tmp_path, title):
    root = tmp_path / "repo"
    write_plan(root, [node("T-1", "Checkout", release="R1"),
                      node("T-2", title[:500], parent="T-1", priority="high"),
                      node("T-3", "Address step", parent="T-1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        bar = app.screen.query_one(NextTaskBar)
        await until(pilot, lambda: bar.next_id == "T-2")
        await pilot.pause()
        first, second = drawn_lines(bar)
        assert first.lstrip().startswith("Next ▸ T-2") and first.rstrip().endswith("…"), first
        assert "No task is held by an agent right now" in second, second
