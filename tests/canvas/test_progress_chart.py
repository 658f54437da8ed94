"""The burn-up chart draws a release whose leaves were all done at once (found by hand: it said 'nothing
done'), with the step its history's span implies (`forecast.burnup_step`)."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

import pytest
from leafwise.canvas.app import make_canvas
from leafwise.canvas.screens.progress import ProgressScreen
from leafwise.commands.core.forecast import MINUTE
from testkit import node, run_cli, write_plan
from testkit.canvas import idle, ready, until

pytestmark = pytest.mark.anyio


@pytest.mark.slow
async def test_a_release_done_at_once_has_a_burn_up(tmp_path):
    write_plan(tmp_path, [node("T-1", "Epic", release="R1"), node("T-2", "One", parent="T-1"),
                          node("T-3", "Two", parent="T-1")])
    for leaf in ("T-2", "T-3"):
        assert run_cli("start", leaf, "--agent", "a", cwd=tmp_path).code == 0
        assert run_cli("complete", leaf, "--summary", "done", "--agent", "a", cwd=tmp_path).code == 0
    # The CLI stamped the plan and the journal with the wall clock: the canvas looks a minute later,
    # so the whole history spans about a minute and the chart goes by minute.
    now = datetime.now(UTC) + MINUTE
    app = make_canvas(tmp_path, watch=False, settings_path=tmp_path / "settings.json", clock=lambda: now)
    async with app.run_test(size=(140, 45)) as pilot:
        await ready(app, pilot)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ProgressScreen) and app.screen.forecasts)
        await idle(pilot)  # the chart is drawn from the forecasts
        item = next(f for f in app.screen.forecasts if f.release == "R1")
        assert item.step == MINUTE and item.burnup[-1][1] == 2, item.burnup
        svg = app.export_screenshot()
        screen = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
        assert "Burn-up: done leaves by minute" in screen
        assert "R1 (2/2)" in screen and "nothing done yet" not in screen
