"""The canvas as a workbench, driven with Pilot on real plans: board moves, editing keys, undo, dependencies,
agents, forecast, the person as actor, and hostile plan text through every new view and dialog."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.agents import AgentsScreen
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.board import BoardScreen
from leafwise.canvas.screens.dependencies import DependenciesScreen
from leafwise.canvas.screens.progress import ProgressScreen
from testkit import journal, node, write_plan
from testkit.canvas import canvas, idle, node_file, notices, open_view, ready, until
from textual.command import CommandList

pytestmark = pytest.mark.anyio

HOSTILE = ("[@click=app.screenshot('x.svg','/tmp')]x [link=http://x]link[/link] [bold]B[/bold] "
           "\x1b]8;;http://evil\x07esc\x1b[31mred \u202eRTL override\u2066 zero\u200bwidth " + "long " * 80)


@pytest.mark.slow
async def test_board_moves_a_card_through_the_core_as_the_person(demo_plan, tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await open_view(app, pilot, "K", BoardScreen, "board-draft")
        card = app.screen.selected()
        assert card is not None and card.status == "draft"
        await pilot.press("greater_than_sign")
        await until(pilot, lambda: "status: in-progress" in node_file(demo_plan, card.id).read_text())
        # The person's edit of the status, journaled as them (never an agent's `start` under their name).
        moved = [e for e in journal(demo_plan) if e["command"] == "edit" and e["node"] == card.id]
        assert moved and moved[-1]["actor"] == "pat" and moved[-1]["changes"]["status"] == ["draft", "in-progress"]
        # The cursor followed the card into its new column.
        listing = app.screen.query_one("#board-in-progress")
        await until(pilot, lambda: app.focused is listing and app.screen.selected().id == card.id)
        # A refused move says why: a task held by an agent cannot go back to draft from here.
        listing.highlighted = listing.get_option_index("SHOP-26")
        await pilot.press("less_than_sign")
        await until(pilot, lambda: any("refused" in n for n in notices(app)))
        assert "status: in-progress" in node_file(demo_plan, "SHOP-26").read_text()


@pytest.mark.slow
async def test_add_child_rename_priority_and_undo(demo_plan, tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("SHOP-44")
        await pilot.press("R")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        app.screen.query_one("#prompt-input").value = ""
        await pilot.press(*"Order email, renamed", "enter")
        await until(pilot, lambda: "Order email, renamed" in node_file(demo_plan, "SHOP-44").read_text())
        assert journal(demo_plan)[-1]["actor"] == "pat"
        await until(pilot, lambda: app.undo_stack)
        await pilot.press("ctrl+z")
        await until(pilot, lambda: "Order email, renamed" not in node_file(demo_plan, "SHOP-44").read_text())
        assert "Order confirmation email" in node_file(demo_plan, "SHOP-44").read_text()
        app.screen.reveal("SHOP-44")
        await pilot.press("P")
        await until(pilot, lambda: app.screen.query("#pick-list"))
        await pilot.press(*"high", "enter")
        await until(pilot, lambda: "priority: high" in node_file(demo_plan, "SHOP-44").read_text())
        app.screen.reveal("SHOP-4")
        await pilot.press("c")
        await until(pilot, lambda: app.screen.query("#prompt-input"))
        await pilot.press(*"A brand new child", "enter")
        await until(pilot, lambda: any(e["command"] == "add" for e in journal(demo_plan)))
        added = next(e for e in reversed(journal(demo_plan)) if e["command"] == "add")
        assert "parent: SHOP-4" in node_file(demo_plan, added["node"]).read_text()


@pytest.mark.slow
async def test_add_and_remove_a_dependency_with_the_picker(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("SHOP-66")
        await pilot.press("plus")
        await until(pilot, lambda: app.screen.query("#pick-list"))
        await pilot.press(*"SHOP-44", "enter")  # the exact id ranks first
        await until(pilot, lambda: "SHOP-44" in node_file(demo_plan, "SHOP-66").read_text())
        app.screen.reveal("SHOP-66")
        await pilot.press("minus")
        await until(pilot, lambda: app.screen.query("#pick-list"))
        await pilot.press(*"SHOP-44", "enter")
        await until(pilot, lambda: "SHOP-44" not in node_file(demo_plan, "SHOP-66").read_text())


@pytest.mark.slow
async def test_dependencies_agents_and_forecast_views(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("SHOP-40")
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, DependenciesScreen))
        text = str(app.screen.query_one("#deps-summary").render())
        assert "Holds up 0 open leaves" in text and "Critical path of release R1" in text
        labels = [str(n.label) for n in app.screen.query_one("#deps-tree").root.children]
        assert labels == ["Waits on", "Waited on by"]
        await pilot.press("escape")
        agents = await open_view(app, pilot, "A", AgentsScreen, "agents-list")
        assert "claude-1" in str(agents.get_option_at_index(0).prompt)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ProgressScreen) and app.screen.forecasts)
        listing = app.screen.query_one("#progress-list")
        rows = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert any("on track" in r and r.startswith("R1") for r in rows)


@pytest.mark.slow
async def test_hostile_text_never_becomes_markup_or_escape_sequences(tmp_path):
    root = tmp_path / "repo"
    write_plan(root, [
        node("T-1", HOSTILE, "in-progress", release="R1"),
        node("T-2", HOSTILE, "blocked", parent="T-1", blocked_reason=HOSTILE, assignee="[red]bob[/red]",
             decision={"question": HOSTILE, "options": [HOSTILE, "[link=x]two[/]"], "asked_by": HOSTILE}),
        node("T-3", HOSTILE, "draft", parent="T-1", depends_on=["T-2"]),
    ])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-2")
        for keys in (["B"], ["e"], ["a"], ["x"], ["R"], ["D"], ["m"], ["plus"], ["P"]):
            await pilot.press(*keys)
            await idle(pilot)  # the dialog is drawn
            await pilot.press("escape")
            await idle(pilot)
        app.notify(HOSTILE, title=HOSTILE)
        views = (("b", BlockedScreen), ("K", BoardScreen), ("A", AgentsScreen), ("p", ProgressScreen))
        for view, screen_type in views:
            await pilot.press(view)
            await until(pilot, lambda: isinstance(app.screen, screen_type))
            await idle(pilot)  # the view is filled and drawn
            if view == "b":
                await pilot.press("2")  # the confirmation dialog quotes the option
                await idle(pilot)
                await pilot.press("escape")
            await pilot.press("escape")
        app.screen.reveal("T-2")
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, DependenciesScreen))
        await idle(pilot)
        await pilot.press("ctrl+p", *"T-2")
        await until(pilot, lambda: app.screen.query(CommandList) and app.screen.query_one(CommandList).option_count)
        await idle(pilot)
        await pilot.press("escape")
        await idle(pilot)
        svg = app.export_screenshot()
        assert app.is_running  # nothing crashed (a MarkupError would have ended the app)
    assert "\x1b" not in svg and "\u202e" not in svg, svg[max(0, svg.find("\x1b") - 300):svg.find("\x1b") + 50]
    assert not (tmp_path / "x.svg").exists() and not any(tmp_path.glob("*.svg"))
    assert not (root / ".leafwise" / "journal.jsonl").exists()  # no dialog wrote anything
