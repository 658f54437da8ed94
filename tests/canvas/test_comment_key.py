"""Driven with Pilot: `C` on the highlighted node asks for a comment and runs `comment`, as the person,
in the plan and the blocked view; the key is in the help with its words."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.dialogs import TextPrompt
from leafwise.canvas.screens.help import HelpScreen
from testkit import journal, node, node_data, write_plan
from testkit.canvas import canvas, idle, open_blocked, ready, until

pytestmark = pytest.mark.anyio


@pytest.mark.slow
async def test_c_leaves_a_comment_as_the_person_and_the_help_lists_it(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [
        node("T-1", "Checkout", release="R1"),
        node("T-2", "Payments", "blocked", release="R1", blocked_reason="waiting for the bank")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-1")
        await pilot.pause()
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("escape")  # back: nothing written
        await idle(pilot)
        assert not node_data(root, "T-1").get("comments")
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*"use the sandbox keys", "enter")
        await until(pilot, lambda: node_data(root, "T-1").get("comments"))
        [said] = node_data(root, "T-1")["comments"]
        assert (said["by"], said["text"]) == ("pat", "use the sandbox keys")
        assert (journal(root)[-1]["command"], journal(root)[-1]["actor"]) == ("comment", "pat")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        shown = " ".join(str(s.render()) for s in app.screen.query(".help-section"))
        assert "Comment…" in shown and "carried to its agent" in shown, shown
        await pilot.press("escape")
        await open_blocked(app, pilot, "T-2")  # the blocked view has it too
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*"the bank says Friday", "enter")
        await until(pilot, lambda: node_data(root, "T-2").get("comments"))
        assert node_data(root, "T-2")["comments"][0]["text"] == "the bank says Friday"
        assert node_data(root, "T-2")["status"] == "blocked"
