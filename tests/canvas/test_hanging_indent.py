"""Driven with Pilot: wrapped lines start under their text (a hanging indent), in the blocked view,
the reconcile detail and the help; a path in the reconcile detail is never broken in the middle."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.help import HelpScreen
from testkit import node, write_plan
from testkit.canvas import canvas, idle, open_blocked, open_reconcile, ready, reconcile_list, until
from textual.geometry import Region

pytestmark = pytest.mark.anyio

REASON = ("Waiting for legal to confirm whether we register for EU OSS VAT before launch, and for finance "
          "to open the account with the tax office in Dublin")


def shown(widget) -> list[str]:
    """The lines a widget draws now, as text."""
    width, height = widget.size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


def after(lines: list[str], start: str) -> list[str]:
    """The line that starts with `start` (stripped) and the lines after it."""
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(start))
    return lines[at:]


@pytest.mark.slow
async def test_a_blocked_reason_wraps_under_itself(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "VAT calculation by customer country", "blocked",
                                               release="R1", blocked_reason=REASON)])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(90, 35)) as pilot:
        await ready(app, pilot)
        listing = await open_blocked(app, pilot, "T-1")
        await pilot.pause()
        lines = after(shown(listing), "Waiting for legal")
        start = lines[0].index("Waiting")
        assert lines[1].strip() and lines[1][:start].strip() == "", lines[:3]  # under the reason's first word


@pytest.mark.slow
async def test_the_reconcile_detail_hangs_its_rows_and_keeps_paths_whole(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_reconcile(app, pilot)
        await until(pilot, lambda: reconcile_list(app).highlighted_option is not None)
        await idle(pilot)
        option = reconcile_list(app).highlighted_option
        item = next(s for s in app.screen.suggestions if s["id"] == option.id)
        side = app.screen.query_one("#reconcile-detail")
        lines = shown(side)
        for ev in item["evidence"]:
            where = f"{ev['path']}:{ev['line']}" if ev["line"] is not None else ev["path"]
            name = where.rsplit("/", 1)[-1]  # the file name and line, never split across two lines
            assert any(name in line for line in lines), (name, lines)
        snippet = next(ev["snippet"] for ev in item["evidence"] if ev["snippet"])
        first = snippet.split()[0]
        rows = after(lines, first)
        indent = rows[0].index(first)
        assert len(snippet) > side.size.width - indent  # it wraps at this size...
        assert rows[1][:indent].strip() == "" and rows[1].strip(), rows[:2]  # ...under its own first word


async def test_help_wraps_a_long_tooltip_under_its_description(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "Payments", release="R1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(64, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen.query(".help-section"))
        await idle(pilot)
        lines = [line for section in app.screen.query(".help-section") for line in shown(section)]
        at = next(i for i, line in enumerate(lines) if "Next task —" in line)
        start = lines[at].index("Next task")
        assert lines[at + 1][:start].strip() == "" and lines[at + 1].strip(), lines[at:at + 2]
