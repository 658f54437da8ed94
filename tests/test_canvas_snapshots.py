"""Screenshots of the main screens at a fixed size (pytest-textual-snapshot), watcher off.

The demo plan is copied to tmp, the display clock and the time zone are
pinned, the cursor does not blink. Snapshots are made with one Textual
version; another version skips them rather than failing on rendering details.
Update with `pytest tests/test_canvas_snapshots.py --snapshot-update`, and look
at the SVGs before committing them.
"""

from __future__ import annotations

import time
from importlib.metadata import version

import pytest
from test_canvas_support import canvas

from leafwise.canvas.widgets.plan_tree import PlanTree

TEXTUAL = "8.2.8"
SIZE = (140, 40)

pytestmark = pytest.mark.skipif(version("textual") != TEXTUAL,
                                reason=f"snapshots were made with textual {TEXTUAL}")


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def settled(pilot) -> None:
    app = pilot.app
    while app.state is None:
        await pilot.pause(0.02)
    await pilot.pause(0.3)  # the detail pane reads journal and docs once the cursor rests
    await app.workers.wait_for_complete()
    await pilot.pause(0.2)
    for field in app.screen.query("Input"):
        field.cursor_blink = False


def shot(demo_plan, tmp_path, **options):
    return canvas(demo_plan, tmp_path, **options)


def test_plan_screen(snap_compare, demo_plan, tmp_path):
    assert snap_compare(shot(demo_plan, tmp_path), terminal_size=SIZE, run_before=settled)


def test_plan_screen_on_a_blocked_decision(snap_compare, demo_plan, tmp_path):
    async def on_decision(pilot):
        await settled(pilot)
        pilot.app.screen.query_one(PlanTree).reveal("SHOP-40")
        await settled(pilot)

    assert snap_compare(shot(demo_plan, tmp_path), terminal_size=SIZE, run_before=on_decision)


def test_blocked_view(snap_compare, demo_plan, tmp_path):
    async def blocked(pilot):
        await settled(pilot)
        await pilot.press("b")
        await settled(pilot)

    assert snap_compare(shot(demo_plan, tmp_path), terminal_size=SIZE, run_before=blocked)


def test_progress_view(snap_compare, demo_plan, tmp_path):
    async def progress(pilot):
        await settled(pilot)
        await pilot.press("p")
        await settled(pilot)

    assert snap_compare(shot(demo_plan, tmp_path), terminal_size=SIZE, run_before=progress)


def test_filter(snap_compare, demo_plan, tmp_path):
    async def filtered(pilot):
        await settled(pilot)
        await pilot.press("slash", *"status:blocked")
        await settled(pilot)

    assert snap_compare(shot(demo_plan, tmp_path), terminal_size=SIZE, run_before=filtered)


def test_help(snap_compare, demo_plan, tmp_path):
    async def help_screen(pilot):
        await settled(pilot)
        await pilot.press("question_mark")
        await settled(pilot)

    assert snap_compare(shot(demo_plan, tmp_path), terminal_size=SIZE, run_before=help_screen)


def test_light_theme(snap_compare, demo_plan, tmp_path):
    (tmp_path / "settings.json").write_text('{"theme": "leafwise-light"}')
    assert snap_compare(shot(demo_plan, tmp_path), terminal_size=SIZE, run_before=settled)


def test_high_contrast_blocked_view(snap_compare, demo_plan, tmp_path):
    (tmp_path / "settings.json").write_text('{"theme": "leafwise-contrast"}')

    async def blocked(pilot):
        await settled(pilot)
        await pilot.press("b")
        await settled(pilot)

    assert snap_compare(shot(demo_plan, tmp_path), terminal_size=SIZE, run_before=blocked)
