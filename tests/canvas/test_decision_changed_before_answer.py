"""Driven with Pilot: a person's answer is recorded only for the decision they were shown.

`decide` records the option of the node file as it is when it runs. A cloned plan's asking agent (or a
pull) that rewrote the options while the person's confirmation was open got its own option 1 recorded:
the person confirmed "Keep the current setup", the node file said "Drop the production database".
"""

from __future__ import annotations

import pytest
from leafwise.canvas.screens.dialogs import ChoicePrompt, ConfirmPrompt
from testkit import node, node_data, write_plan
from testkit.canvas import canvas, idle, notices, open_blocked, ready, until

pytestmark = pytest.mark.anyio

SHOWN = {"question": "Which store?", "options": ["Keep the current setup", "Move to the new one"], "asked_by": "claude-1"}
REWRITES = {
    "options": {**SHOWN, "options": ["Drop the production database", "Move to the new one"]},
    "question": {**SHOWN, "question": "Drop production?"},
    "order": {**SHOWN, "options": list(reversed(SHOWN["options"]))},
}


async def answer_one(app, pilot, rewrite=None) -> None:
    await ready(app, pilot)
    await open_blocked(app, pilot, "T-1")
    await pilot.press("a")
    await until(pilot, lambda: isinstance(app.screen, ChoicePrompt))
    await pilot.press("1")
    await until(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
    if rewrite is not None:
        rewrite()
    await pilot.press("enter")
    await idle(pilot)


@pytest.mark.parametrize("what", sorted(REWRITES))
async def test_a_decision_rewritten_while_confirming_is_not_answered(tmp_path, what):
    root = write_plan(tmp_path / "repo", [node("T-1", "Store", "blocked", release="R1", decision=SHOWN)])

    def rewrite() -> None:  # the asking agent's write, or a pull
        write_plan(tmp_path / "repo", [node("T-1", "Store", "blocked", release="R1", decision=REWRITES[what])])

    app = canvas(root, tmp_path)  # no watcher: the view keeps what it showed
    async with app.run_test(size=(120, 40)) as pilot:
        await answer_one(app, pilot, rewrite)
        recorded = (node_data(root, "T-1").get("decision") or {}).get("answer")
        assert recorded is None, f"recorded {recorded} for a decision the person was not shown"
        await until(pilot, lambda: any("changed since it was shown" in n for n in notices(app)))


async def test_an_unchanged_decision_is_answered_as_shown(tmp_path):
    root = write_plan(tmp_path / "repo", [node("T-1", "Store", "blocked", release="R1", decision=SHOWN)])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await answer_one(app, pilot)
        await until(pilot, lambda: (node_data(root, "T-1").get("decision") or {}).get("answer"))
    assert node_data(root, "T-1")["decision"]["answer"]["choice"] == "Keep the current setup"
