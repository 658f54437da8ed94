"""Driven with Pilot: the project's name never pushes the header's own words off its line.

A cloned plan's project name of 40 fullwidth letters and '✓ plan valid   ● live' filled the header's
one line: the real '✖ invalid plan: 1 problem (v)' and '● live' were cut off, the planted words shown
where they stand.
"""

from __future__ import annotations

import re

import pytest
from leafwise.canvas.widgets.plan_header import PlanHeader
from testkit import node, write_plan
from testkit.canvas import canvas, ready, until

pytestmark = pytest.mark.anyio

NAMES = {
    "wide letters": "Ｓｈｏｐ" * 10 + " ✓ plan valid   ● live",
    "long": "Shop " * 16 + "✓ plan valid",
    "emoji": "🛒" * 40,
}


@pytest.mark.parametrize("width", [80, 120, 200])
@pytest.mark.parametrize("name", sorted(NAMES))
async def test_the_problem_badge_and_the_watch_stay_on_the_header(tmp_path, name, width):
    root = write_plan(tmp_path / "repo", [node("T-1", "a", "draft", release="R1"),
                                           node("T-2", "b", "draft", release="R9")])  # R9: no such release
    project = root / ".leafwise" / "project.yaml"
    project.write_text(re.sub(r"(?m)^name: .*$", f'name: "{NAMES[name]}"', project.read_text()), encoding="utf-8")
    app = canvas(root, tmp_path)
    async with app.run_test(size=(width, 30)) as pilot:
        await ready(app, pilot)
        header = app.screen.query_one(PlanHeader)
        await until(pilot, lambda: getattr(app, "plan_check", None) is not None, what="the plan's check")
        await pilot.pause(0.2)
        line = header.render_line(0).text
        assert "invalid plan" in line, line
        if width >= 120:  # (on 80 columns the header's own words alone fill the line)
            assert "● live" in line or "○ not watching" in line, line
        assert NAMES[name][:2] in line  # the name still shows, cut
