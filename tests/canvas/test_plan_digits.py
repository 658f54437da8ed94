"""Driven with Pilot: in the plan view a digit answers the highlighted node's open decision, through the
same confirm-with-a-note dialog the blocked view uses (`Triage.answer`)."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.dialogs import ConfirmPrompt
from leafwise.canvas.screens.help import HelpScreen
from leafwise.canvas.screens.plan import PlanScreen
from testkit import journal, node, node_data, write_plan
from testkit.canvas import canvas, idle, notices, ready, until

pytestmark = pytest.mark.anyio

QUESTION = "Which payment provider?"


@pytest.mark.slow
async def test_a_digit_in_the_plan_answers_the_open_decision_after_a_confirmation(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [
        node("T-1", "Payments", "blocked", release="R1", blocked_reason=f"Decision needed: {QUESTION}",
             blocked_from="draft",
             decision={"question": QUESTION, "options": ["Stripe", "Adyen"], "asked_by": "claude-1",
                       "asked": "2026-11-28T10:00:00Z"}),
        node("T-2", "Receipts", release="R1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-2")
        await pilot.pause()
        await pilot.press("1")  # no decision here: said, nothing written
        await until(pilot, lambda: any("T-2 has no open decision" in n for n in notices(app)))
        app.screen.reveal("T-1")
        await pilot.pause()
        await pilot.press("question_mark")  # the help says the digits once
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        shown = " ".join(str(s.render()) for s in app.screen.query(".help-section"))
        assert "1–9" in shown and shown.count("Answer by number") == 1 and "Answer 3" not in shown, shown
        await pilot.press("escape")
        await pilot.press("3")  # no such option
        await until(pilot, lambda: any("has 2 options" in n for n in notices(app)))
        await pilot.press("2")
        await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        assert "Adyen" in str(app.screen.query_one(".prompt-question").render())
        await pilot.press("escape")  # back: nothing written
        await idle(pilot)
        assert isinstance(app.screen, PlanScreen) and "answer" not in node_data(root, "T-1")["decision"]
        await pilot.press("2")
        await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        await pilot.press(*"cheaper in the EU", "enter")
        await until(pilot, lambda: node_data(root, "T-1")["status"] != "blocked")
        answer = node_data(root, "T-1")["decision"]["answer"]
        assert answer["option"] == 2
        assert [(e["command"], e["actor"]) for e in journal(root)[-2:]] == [("decide", "pat"), ("unblock", "pat")]
        assert "cheaper in the EU" in str(node_data(root, "T-1"))
