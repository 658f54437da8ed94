"""The canvas's progress view on a 10-minute-old plan: the rate over the plan's age, no finish date, and
a burn-up axis of times, none repeated (the canvas clock is pinned by testkit)."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

import pytest
from leafwise.canvas.screens.progress import ProgressScreen
from testkit import node, write_plan
from testkit.canvas import FIXED_NOW, canvas, idle, ready, until

pytestmark = pytest.mark.anyio


async def test_a_young_plan_reads_its_own_age(tmp_path):
    start = FIXED_NOW - timedelta(minutes=10)
    created = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    write_plan(tmp_path, [node("T-1", "Epic", release="R1", created=created)]
               + [node(f"T-{i}", f"Leaf {i}", "done" if i < 5 else "draft", parent="T-1", created=created)
                  for i in range(2, 8)])
    lines = [json.dumps({"time": (start + timedelta(minutes=2 * i)).strftime("%Y-%m-%dT%H:%M:%SZ"), "actor": "a",
                         "command": "complete", "node": f"T-{i}", "changes": {"status": ["in-progress", "done"]}})
             for i in range(2, 5)]
    (tmp_path / ".leafwise" / "journal.jsonl").write_text("\n".join(lines) + "\n")
    app = canvas(tmp_path, tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(app, pilot)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ProgressScreen) and app.screen.forecasts)
        await idle(pilot)
        r1 = app.screen.forecasts[0]
        assert r1.finish is None and r1.verdict == "not enough history yet: 3 leaves done in 10 minutes"
        axis = app.screen.axis
        assert axis[0] == "11:50" and axis[-1] == "12:00" and len(axis) == len(set(axis)), axis
        screen = html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")
        assert "Burn-up: done leaves by minute" in screen
        assert "over the plan's whole age (10 minutes)" in screen
        assert "14 days" not in screen and "finish ~" not in screen
