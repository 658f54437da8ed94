"""Driven with Pilot: the undo toast of a reconcile rejection says what comes back, in words."""

from __future__ import annotations

import pytest
from testkit.canvas import answer_prompt, canvas, node_file, open_reconcile, reconcile_list, until

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def person(monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "Pat Person")


@pytest.mark.slow
async def test_undoing_a_reject_says_the_suggestion_shows_again(demo_plan, tmp_path):
    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_reconcile(app, pilot)
        nid = reconcile_list(app).highlighted_option.id  # the first row: a likely lead (nothing in the demo is shipped)
        await pilot.press("x")
        await answer_prompt(app, pilot, "")  # why it is wrong: optional
        await until(pilot, lambda: "reconcile_rejected" in node_file(demo_plan, nid).read_text(), timeout=60)
        await until(pilot, lambda: app.undo_stack)
        await pilot.press("ctrl+z")
        await until(pilot, lambda: any(n.title == "Undone" for n in app.notices), timeout=60)
        said = next(n.message for n in app.notices if n.title == "Undone")
        assert f"{nid}: the rejected suggestion shows again" in said, said
        assert "reconcile_rejected" not in said and "(none)" not in said, said
