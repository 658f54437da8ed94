"""Driven with Pilot: the header, the next-task line and the blocked view count the same
blocked work."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.blocked import BlockedScreen
from leafwise.canvas.screens.plan import PlanScreen
from leafwise.canvas.widgets.next_task import NextTaskBar
from leafwise.canvas.widgets.plan_header import PlanHeader
from testkit import node, write_plan
from testkit.canvas import answer_prompt, canvas, open_blocked, ready, tree, until

pytestmark = pytest.mark.anyio


def header_text(app) -> str:
    return app.screen.query_one(PlanHeader).render().plain


def next_text(app) -> str:
    return app.screen.query_one(NextTaskBar).render().plain


async def test_a_blocked_task_that_gets_a_child_is_still_counted_blocked_everywhere(tmp_path):
    root = tmp_path / "repo"
    write_plan(root, [node("T-1", "Checkout", release="R1"),
                      node("T-2", "Payment step", parent="T-1"),
                      node("T-3", "Address step", parent="T-1"),
                      node("T-4", "Receipt", parent="T-1", status="blocked", blocked_reason="copy missing")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert tree(app).reveal("T-2")
        await pilot.press("B")
        await answer_prompt(app, pilot, "Waiting for the bank")
        await until(pilot, lambda: app.state.nodes["T-2"].status == "blocked")
        await until(pilot, lambda: "⊘ 2 blocked" in header_text(app))
        assert tree(app).reveal("T-2")
        await pilot.press("c")
        await answer_prompt(app, pilot, "Card form")
        await until(pilot, lambda: app.state.nodes["T-2"].children)
        # the header and the next line redraw once per burst, together: the header counts the new node then
        await until(pilot, lambda: "5 nodes" in header_text(app))
        # T-2 is an epic now, still blocked: the blocked view lists it, so the header counts it.
        assert "⊘ 2 blocked" in header_text(app), header_text(app)
        assert "⊘ 2 blocked" in next_text(app), next_text(app)
        listing = await open_blocked(app, pilot)
        assert {o.id for o in listing.options if o is not None and o.id} == {"T-2", "T-4"}
        assert "2 blocked" in str(app.screen.query_one("#blocked-summary").render())
        assert "⊘ 2 blocked" in header_text(app)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PlanScreen))


async def test_an_open_decision_is_counted_where_the_blocked_view_lists_it(tmp_path):
    root = tmp_path / "repo"
    write_plan(root, [node("T-1", "Checkout", release="R1"),
                      node("T-2", "Payment step", parent="T-1", status="blocked",
                           blocked_reason="Decision needed: which bank?",
                           decision={"question": "which bank?", "options": ["A", "B"], "asked_by": "claude-1"}),
                      node("T-5", "Shipping", release="R1", status="blocked", blocked_reason="carrier contract"),
                      node("T-6", "Rates", parent="T-5")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: "⊘ 2 blocked" in header_text(app))
        assert "⊘ 2 blocked" in next_text(app) and "1 decision for you" in next_text(app)
        await open_blocked(app, pilot)
        assert isinstance(app.screen, BlockedScreen)
        assert str(app.screen.query_one("#blocked-summary").render()).startswith("2 blocked")
