"""Review fixes, driven with Pilot: switching views quickly, and the dependencies view's ways back."""

from __future__ import annotations

import asyncio

import pytest
from leafwise.canvas.screens.agents import AgentsScreen
from leafwise.canvas.screens.dependencies import DependenciesScreen
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.board import BoardScreen
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.screens.reconcile import ReconcileScreen
from testkit.canvas import canvas, ready, tree, until

pytestmark = pytest.mark.anyio


async def bindings_while_composing(app, switch) -> int:
    """Start `switch` (a mode switch or a push) and, at every step of the event loop until the new
    screen's widgets are all mounted, ask its active bindings as its footer and a key press do (they call
    the screen's `check_action`). Returns how many steps found the footer mounted before the rest."""
    from textual.widgets import Footer

    before = app.screen
    waiter = switch()
    early = 0
    for _ in range(200):
        await asyncio.sleep(0)
        screen = app.screen
        if screen is before or not screen.query(Footer):
            continue
        screen.active_bindings  # the footer's and the key dispatch's question: must not raise
        if not all(w.is_mounted for w in screen.query("*")):
            early += 1
    await waiter
    return early


async def test_a_view_answers_check_action_before_its_widgets_are_mounted(demo_plan, tmp_path):
    """p r K pressed 0.15 s apart right after start crashed with NoMatches '#reconcile-list': the view's
    footer is mounted (and asks `check_action`) before the list nested in the view's side panel is."""
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        early = 0
        for mode in ("reconcile", "blocked", "problems", "progress", "board", "agents"):
            early += await bindings_while_composing(app, lambda: app.switch_mode(mode))
            await pilot.pause()
            await app.switch_mode("plan")
        await pilot.pause()
        node = tree(app).cursor_key
        early += await bindings_while_composing(app, lambda: app.push_screen(DependenciesScreen(node)))
        app.pop_screen()
        early += await bindings_while_composing(app, lambda: app.push_screen(PlanScreen()))
        assert early  # the window the crash came from was there
        await pilot.pause(0.3)
        assert app.is_running


async def test_switching_views_quickly_right_after_start(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        for key in "prKbA":
            await pilot.press(key)
            await pilot.pause(0.15)
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        assert app.is_running
