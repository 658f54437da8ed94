"""Driven with Pilot: a number key on a blocked task with no decision says why nothing happens."""

from __future__ import annotations

import pytest
from testkit import node, write_plan
from testkit.canvas import canvas, notices, open_blocked, ready, until

pytestmark = pytest.mark.anyio


async def test_a_number_on_a_task_with_no_decision_says_how_to_unblock_it(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "Payments", "blocked", release="R1",
                                               blocked_reason="Waiting for the bank's keys")])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await open_blocked(app, pilot, "T-1")
        await pilot.press("1")
        await until(pilot, lambda: notices(app))
        said = notices(app)[-1]
        assert "T-1 has no open decision" in said and "u unblocks it" in said, said
