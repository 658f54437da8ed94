"""Driven with Pilot: `u` (unblock) and the reconcile view's `x` (reject) ask for an optional note, and the
note reaches the plan the way the command takes it (`unblock --note`, `reconcile --reject --note`)."""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.dialogs import ConfirmPrompt, TextPrompt
from testkit import journal, node, node_data, write_plan
from testkit.canvas import READ_CODE_TIMEOUT, canvas, idle, open_blocked, open_reconcile, ready, until
from testkit.code_samples import LIBRARY
from testkit.repos import commit_all, write_files

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def person(monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    monkeypatch.delenv("LEAFWISE_AGENT", raising=False)


def blocked_plan(tmp_path):
    return write_plan(tmp_path / "repo", [
        node("T-1", "Payments", "blocked", release="R1", blocked_reason="waiting for the bank's keys"),
        node("T-2", "Receipts", "blocked", release="R1", blocked_reason="waiting for the copy")])


@pytest.mark.slow
async def test_u_asks_for_a_note_and_unblock_carries_it_to_the_agent(tmp_path):
    root = blocked_plan(tmp_path)
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot, "T-1")
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        await pilot.press("escape")  # back: nothing written
        await idle(pilot)
        assert node_data(root, "T-1")["status"] == "blocked"
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        await pilot.press(*"keys are in the vault", "enter")
        await until(pilot, lambda: node_data(root, "T-1")["status"] == "draft")
        [said] = node_data(root, "T-1")["comments"]
        assert (said["kind"], said["by"], said["text"]) == ("unblock", "pat", "keys are in the vault")
        event = journal(root)[-1]
        assert (event["command"], event["actor"], event.get("note")) == ("unblock", "pat", "keys are in the vault")
        # Enter with no note unblocks without one (T-2 is now the highlighted row).
        await until(pilot, lambda: app.screen.triage_target() is not None
                    and app.screen.triage_target().id == "T-2")
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
        await pilot.press("enter")
        await until(pilot, lambda: node_data(root, "T-2")["status"] == "draft")
        assert not node_data(root, "T-2").get("comments")


@pytest.mark.slow
async def test_x_in_reconcile_asks_why_and_records_the_note_with_the_rejection(tmp_path):
    project = tmp_path / "project"
    write_files(project, LIBRARY)
    commit_all(project)
    write_plan(project, [node("T-1", "Throttle calls to a rate per second", release="R1")])
    app = canvas(project, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot, 1)
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("escape")
        await idle(pilot)
        assert "reconcile_rejected" not in node_data(project, "T-1")
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*"that is the old prototype", "enter")
        await until(pilot, lambda: "reconcile_rejected" in node_data(project, "T-1"), timeout=READ_CODE_TIMEOUT)
        mark = node_data(project, "T-1")["reconcile_rejected"]
        assert (mark["by"], mark["note"]) == ("pat", "that is the old prototype")
        assert node_data(project, "T-1")["status"] == "draft"
