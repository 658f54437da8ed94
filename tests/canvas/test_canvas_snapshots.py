"""Screenshots of the main screens at a fixed size (pytest-textual-snapshot), watcher off.

The demo plan is copied to tmp, the display clock and the time zone are
pinned, the cursor does not blink. They run on every Textual version that
pyproject.toml allows (the range is narrowed to what they were made with).
Update with `pytest tests/canvas/test_canvas_snapshots.py --snapshot-update`,
and look at the SVGs before committing them.
"""

from __future__ import annotations

import pytest
from leafwise.canvas.widgets.plan_tree import PlanTree
from testkit.canvas import canvas, settled

SIZE = (140, 40)


# Snapshots run as the canvas does by default, without the opt-in background build of the views
# (CanvasApp(prebuild=True)): it draws nothing visible; tests/canvas/test_canvas_prebuild.py covers it.
pytestmark = pytest.mark.usefixtures("utc")


def after_keys(*keys: str):
    """A run_before that lets the app settle, presses `keys`, and settles again."""
    async def run_before(pilot) -> None:
        await settled(pilot)
        await pilot.press(*keys)
        await settled(pilot)

    return run_before


def test_plan_screen(snap_compare, demo_plan, tmp_path):
    assert snap_compare(canvas(demo_plan, tmp_path), terminal_size=SIZE, run_before=settled)


def test_plan_screen_on_a_blocked_decision(snap_compare, demo_plan, tmp_path):
    async def on_decision(pilot):
        await settled(pilot)
        pilot.app.screen.query_one(PlanTree).reveal("SHOP-40")
        await settled(pilot)

    assert snap_compare(canvas(demo_plan, tmp_path), terminal_size=SIZE, run_before=on_decision)


def test_blocked_view(snap_compare, demo_plan, tmp_path):
    assert snap_compare(canvas(demo_plan, tmp_path), terminal_size=SIZE, run_before=after_keys("b"))


# The progress view's snapshot is test_canvas_view_snapshots.py's test_view[progress-leafwise-dark].


@pytest.mark.slow
def test_filter(snap_compare, demo_plan, tmp_path):
    assert snap_compare(canvas(demo_plan, tmp_path), terminal_size=SIZE,
                        run_before=after_keys("slash", *"status:blocked"))


def test_help(snap_compare, demo_plan, tmp_path):
    assert snap_compare(canvas(demo_plan, tmp_path), terminal_size=SIZE, run_before=after_keys("question_mark"))


def test_light_theme(snap_compare, demo_plan, tmp_path):
    (tmp_path / "settings.json").write_text('{"theme": "leafwise-light"}')
    assert snap_compare(canvas(demo_plan, tmp_path), terminal_size=SIZE, run_before=settled)


def test_high_contrast_blocked_view(snap_compare, demo_plan, tmp_path):
    (tmp_path / "settings.json").write_text('{"theme": "leafwise-contrast"}')

    assert snap_compare(canvas(demo_plan, tmp_path), terminal_size=SIZE, run_before=after_keys("b"))
