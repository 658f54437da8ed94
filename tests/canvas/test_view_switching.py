"""Driven with Pilot: switching views quickly, and the dependencies view's ways back."""

from __future__ import annotations

import asyncio

import pytest
from leafwise.canvas.screens.agents import AgentsScreen
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.dependencies import DependenciesScreen
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.widgets.next_task import NextTaskBar
from testkit.canvas import canvas, idle, ready, tree, until
from textual.command import CommandList, CommandPalette

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


@pytest.mark.slow
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
        await idle(pilot)
        assert app.is_running


@pytest.mark.slow
async def test_switching_views_quickly_right_after_start(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        for key in "prKbA":
            await pilot.press(key)
            await pilot.pause(0.15)
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        assert app.is_running


def deps_rows(app) -> list[tuple[str | None, str]]:
    """The dependencies tree's visible rows: (the node id a row links to, its text)."""
    tree_widget = app.screen.query_one("#deps-tree")
    rows = []
    for line in range(tree_widget.last_line + 1):
        node = tree_widget.get_node_at_line(line)
        rows.append((node.data[1] if node.data else None, str(node.label)))
    return rows


async def open_dependencies(app, pilot, node_id: str) -> None:
    assert app.screen.reveal(node_id)
    await pilot.press("i")
    await until(pilot, lambda: isinstance(app.screen, DependenciesScreen) and app.screen.node_id == node_id)
    await pilot.pause()


@pytest.mark.slow
async def test_every_way_back_from_the_dependencies_view_reaches_the_plan(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)

        # Esc: back to the plan, where n and / work.
        await open_dependencies(app, pilot, "SHOP-44")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen))
        await pilot.press("slash")
        await until(pilot, lambda: app.screen.query_one("#filter").has_focus)
        await pilot.press("escape")
        await pilot.press("n")
        await until(pilot, lambda: tree(app).cursor_key == app.screen.query_one(NextTaskBar).next_id)

        # o on a node the selected one waits on: the plan, the cursor on that node.
        await open_dependencies(app, pilot, "SHOP-44")
        linked = [nid for nid, _ in deps_rows(app)[1:] if nid and nid != "SHOP-44"]
        assert linked
        while (app.screen.selected_id() or "") != linked[0]:
            await pilot.press("down")
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen) and tree(app).cursor_key == linked[0])

        # Enter does the same; on the root it opens the node itself.
        await open_dependencies(app, pilot, "SHOP-44")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen) and tree(app).cursor_key == "SHOP-44")

        # Another view and back: b, then Esc lands on the plan.
        await open_dependencies(app, pilot, "SHOP-44")
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, BlockedScreen))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen))

        # The palette's "view: Plan".
        await open_dependencies(app, pilot, "SHOP-44")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"view: Plan")
        await until(pilot, lambda: app.screen.query_one(CommandList).highlighted_option is not None)  # a hit
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen))

        # Agents, Enter on a lane: the plan.
        await open_dependencies(app, pilot, "SHOP-44")
        await pilot.press("A")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen)
                    and app.screen.query_one("#agents-list").highlighted_option is not None)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen))

        # A second node's dependencies replace the first's.
        await open_dependencies(app, pilot, "SHOP-40")
        assert "SHOP-40  Guest checkout" in deps_rows(app)[0][1] and app.screen.selected_id() == "SHOP-40"
