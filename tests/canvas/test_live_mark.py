"""The live mark in the header follows the watcher, which starts and stops on its own schedule."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.widgets.plan_header import PlanHeader
from testkit import node, write_plan
from testkit.canvas import canvas, idle, ready

pytestmark = pytest.mark.anyio


async def test_the_live_mark_on_a_screen_without_its_header_is_nothing_to_draw(tmp_path):
    """A canvas closed while starting: the watcher's last mark finds the header removed already."""
    root = write_plan(tmp_path / "repo", [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        screen = app.screen
        assert isinstance(screen, PlanScreen)
        await screen.query_one(PlanHeader).remove()
        await idle(pilot)
        app.live = True
        screen.refresh_live_mark()
        assert not screen.query(PlanHeader)
