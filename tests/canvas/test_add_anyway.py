"""Driven with Pilot: an add the core refuses as a near-duplicate keeps the typed title and offers
"add anyway" (`add --force`, the person's override, journaled as them); a changed title is checked again."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.dialogs import TextPrompt
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.store import find_root, load_plan
from testkit import journal, node, node_data, write_plan
from testkit.canvas import canvas, idle, ready, until

pytestmark = pytest.mark.anyio

TITLE = "Export the orders as CSV"


def children(root) -> list[str]:
    """The ids under T-1, as the store reads them (a child names its parent)."""
    return [n.id for n in load_plan(find_root(explicit=root)).nodes.values() if n.parent == "T-1"]


def prompt_value(app) -> str:
    return app.screen.query_one("#prompt-input").value


@pytest.mark.slow
async def test_a_near_duplicate_add_keeps_the_title_and_adds_it_anyway_on_enter(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [node("T-1", "Reports", release="R1"),
                                          node("T-2", TITLE, parent="T-1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-2")
        await pilot.pause()
        await pilot.press("s")  # a sibling, with the same title
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*TITLE, "enter")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt) and "near-duplicate" in app.screen.title_text)
        assert prompt_value(app) == TITLE  # the typed title is kept
        assert "T-2" in app.screen.prompt and "add anyway" in app.screen.prompt
        assert len(children(root)) == 1  # refused: nothing written
        await pilot.press("escape")  # dropped: still nothing
        await idle(pilot)
        assert isinstance(app.screen, PlanScreen) and len(children(root)) == 1

        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*TITLE, "enter")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt) and "near-duplicate" in app.screen.title_text)
        await pilot.press("enter")  # as it is: add anyway
        await until(pilot, lambda: len(children(root)) == 2)
        [new_id] = set(children(root)) - {"T-2"}
        assert node_data(root, new_id)["title"] == TITLE
        added = journal(root)[-1]
        assert (added["command"], added["actor"], added["node"]) == ("add", "pat", new_id)


@pytest.mark.slow
async def test_a_changed_title_after_a_near_duplicate_is_checked_again(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [node("T-1", "Reports", release="R1"),
                                          node("T-2", TITLE, parent="T-1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-2")
        await pilot.pause()
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*TITLE, "enter")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt) and "near-duplicate" in app.screen.title_text)
        app.screen.query_one("#prompt-input").value = ""
        await pilot.press(*"Email the weekly revenue summary", "enter")
        await until(pilot, lambda: len(children(root)) == 2)
        [new_id] = set(children(root)) - {"T-2"}
        assert node_data(root, new_id)["title"] == "Email the weekly revenue summary"
