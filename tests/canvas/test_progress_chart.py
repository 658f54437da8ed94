"""The burn-up chart draws a release whose leaves were all done on one day (found by hand: it said 'nothing done')."""

from __future__ import annotations

import html
import re

import pytest
from leafwise.canvas.screens.progress import ProgressScreen
from testkit import node, run_cli, write_plan
from testkit.canvas import canvas, idle, ready, until

pytestmark = pytest.mark.anyio


async def test_a_release_done_in_one_day_has_a_burn_up(tmp_path):
    write_plan(tmp_path, [node("T-1", "Epic", release="R1"), node("T-2", "One", parent="T-1"),
                          node("T-3", "Two", parent="T-1")])
    for leaf in ("T-2", "T-3"):
        assert run_cli("start", leaf, "--agent", "a", cwd=tmp_path).code == 0
        assert run_cli("complete", leaf, "--summary", "done", "--agent", "a", cwd=tmp_path).code == 0
    app = canvas(tmp_path, tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await ready(app, pilot)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ProgressScreen) and app.screen.forecasts)
        await idle(pilot)  # the chart is drawn from the forecasts
        svg = app.export_screenshot()
        screen = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
        assert "Burn-up: done leaves by day" in screen
        assert "nothing done yet" not in screen
