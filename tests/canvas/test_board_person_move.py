"""Driven with Pilot: a person moving a card to in progress edits its status as the person (no lease, no
claim under their name, as `start` would make for an agent); a card that waits on undone work is not
moved, and the notice gives the person's next step, never an agent's `start --next --agent` line."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.board import BoardScreen, person_command
from leafwise.canvas.screens.dialogs import ConfirmPrompt
from testkit import journal, node, node_data, write_plan
from testkit.canvas import canvas, idle, notices, open_view, ready, until

pytestmark = pytest.mark.anyio


def test_only_an_agents_row_becomes_the_persons_edit():
    assert person_command("draft", "in-progress") == "edit status=in-progress"  # the table's row is `start`
    assert person_command("in-progress", "draft") == "edit status=draft"
    assert person_command("blocked", "draft") == "unblock"
    assert person_command("in-progress", "done") == "complete"


async def board_card(app, pilot, card: str):
    listing = await open_view(app, pilot, "K", BoardScreen, "board-draft")
    listing.focus()
    listing.highlighted = listing.get_option_index(card)
    await pilot.pause()
    return listing


async def test_a_card_to_in_progress_is_the_persons_edit_and_ctrl_z_takes_it_back(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [node("T-1", "Keys", release="R1")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await board_card(app, pilot, "T-1")
        await pilot.press("greater_than_sign")
        await until(pilot, lambda: node_data(root, "T-1")["status"] == "in-progress")
        assert node_data(root, "T-1").get("assignee") is None  # nobody's claim
        assert not (root / ".leafwise" / "claims").exists() or not any((root / ".leafwise" / "claims").iterdir())
        event = journal(root)[-1]
        assert (event["command"], event["actor"]) == ("edit", "pat"), event
        await until(pilot, lambda: app.focused is not None and app.focused.id == "board-in-progress")
        said = notices(app)[-1]
        assert "Started" not in said and "lease" not in said and "--agent" not in said, said
        await pilot.press("ctrl+z")
        await until(pilot, lambda: node_data(root, "T-1")["status"] == "draft")


async def test_a_card_that_waits_on_undone_work_is_not_moved_and_the_notice_is_the_persons(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [node("T-1", "Keys", release="R1"),
                                          node("T-2", "Pay", release="R1", depends_on=["T-1"])])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await board_card(app, pilot, "T-2")
        await pilot.press("greater_than_sign")
        await until(pilot, lambda: any("not moved" in n for n in notices(app)))
        await idle(pilot)
        said = next(n for n in notices(app) if "not moved" in n)
        assert "T-2 waits on T-1 “Keys” (draft)" in said and "Next: finish T-1 first" in said, said
        assert "--agent" not in said and "start --next" not in said, said
        assert node_data(root, "T-2")["status"] == "draft" and not journal(root)


async def test_a_card_back_from_blocked_asks_for_the_note_as_u_does(tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    root = write_plan(tmp_path / "repo", [node("T-1", "Keys", "blocked", release="R1", blocked_reason="ops")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        listing = await open_view(app, pilot, "K", BoardScreen, "board-blocked")
        listing.focus()
        await pilot.pause()
        await pilot.press("less_than_sign")
        await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        await pilot.press(*"bucket is ready", "enter")
        await until(pilot, lambda: node_data(root, "T-1")["status"] == "draft")
        assert node_data(root, "T-1")["comments"][0]["text"] == "bucket is ready"
