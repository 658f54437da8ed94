"""Driven with Pilot: the footer keeps `? Help` (and what fits) at any width."""

from __future__ import annotations

import html
import re

import pytest
from testkit.canvas import canvas, ready, settled

pytestmark = pytest.mark.anyio

TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>')


def screen_lines(app) -> list[str]:
    """The screen's text as drawn, line by line (from the app's own SVG export)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, text in TEXT.findall(app.export_screenshot()):
        rows.setdefault(float(y), []).append((float(x), html.unescape(text).replace("\xa0", " ")))
    return ["".join(t for _, t in sorted(row)) for _, row in sorted(rows.items())]


def footer_line(app) -> str:
    return screen_lines(app)[-1]


async def check_views(app, pilot, size: tuple[int, int]) -> dict[str, str]:
    shown = {}
    for key in ("", "r", "K", "b", "p", "v", "A", "escape"):
        if key:
            await pilot.press(key)
        await settled(pilot, step=0.1)  # the view is drawn and its footer fitted to the width
        line = footer_line(app)
        shown[key or "plan"] = line
        # "? Help" and "q Quit" whole, right before the palette key; nothing cut off.
        assert re.search(r"  \? Help  q Quit ▏Commands palette\s*$", line), (size, key, line)
        assert len(line.rstrip()) <= size[0]
    return shown


@pytest.mark.slow
async def test_the_footer_keeps_help_and_quit_and_drops_keys_that_do_not_fit(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        narrow = await check_views(app, pilot, (80, 24))
        assert narrow["plan"].startswith(" / Filter  n Next task")  # the view's own keys first
        assert narrow["r"].startswith(" ⏎ Open  esc Back to plan  a Accept")
        await pilot.resize_terminal(140, 40)
        wide = await check_views(app, pilot, (140, 40))
        assert "R Run again  b Blocked" in wide["r"] and "v Problems  K Board" in wide["plan"]
        await pilot.resize_terminal(80, 24)
        await settled(pilot, step=0.1)
        assert footer_line(app).startswith(" / Filter") and "? Help  q Quit" in footer_line(app)
