"""Screenshots of the workbench views (board, dependencies, agents, progress and forecast) in the three themes.

Same rules as test_canvas_snapshots.py: the demo plan copied to tmp, the display clock and the time zone
pinned, a fixed size, the watcher off. Update with `--snapshot-update` and read the SVGs' text first.
"""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.agents import AgentsScreen
from leafwise.canvas.screens.board import BoardScreen
from leafwise.canvas.screens.dependencies import DependenciesScreen
from leafwise.canvas.screens.progress import ProgressScreen
from leafwise.themes import DEFAULT_THEME, THEMES
from testkit.canvas import canvas, settled, until

SIZE = (140, 40)
VIEWS = {"board": ("K", BoardScreen), "dependencies": ("i", DependenciesScreen), "agents": ("A", AgentsScreen),
         "progress": ("p", ProgressScreen)}


# Snapshots run as the canvas does by default, without the opt-in background build of the views
# (CanvasApp(prebuild=True)): it draws nothing visible; tests/canvas/test_canvas_prebuild.py covers it.
pytestmark = pytest.mark.usefixtures("utc")


def open_view(view: str):
    key, screen_type = VIEWS[view]

    async def run_before(pilot) -> None:
        await settled(pilot)
        if view == "dependencies":
            pilot.app.screen.reveal("SHOP-38")  # waits on work, and a decision waits on it
            await settled(pilot)
        await pilot.press(key)
        await until(pilot, lambda: isinstance(pilot.app.screen, screen_type))
        await settled(pilot)

    return run_before


# Every view in the default theme is in the fast set; the other themes' screenshots in the slow one.
@pytest.mark.parametrize("theme", [pytest.param(theme, marks=() if theme == DEFAULT_THEME else pytest.mark.slow)
                                   for theme in sorted(THEMES)])
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_view(snap_compare, demo_plan, tmp_path, view, theme):
    (tmp_path / "settings.json").write_text(f'{{"theme": "{theme}"}}')
    assert snap_compare(canvas(demo_plan, tmp_path), terminal_size=SIZE, run_before=open_view(view))
