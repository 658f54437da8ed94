"""Driven with Pilot: the detail pane shows a person's words on a node (answered decisions, the earlier
ones, comments) as the agent reads them (`views.message_lines`), not as the raw YAML mappings."""

from __future__ import annotations

import pytest
from leafwise.commands.core.views import message_lines, messages
from testkit import node, write_plan
from testkit.canvas import canvas, ready, until

pytestmark = pytest.mark.anyio

ANSWER = {"option": 1, "choice": "A: keep it, deprecated", "by": "pat", "at": "2026-12-04T18:38:22Z",
          "note": "one more release"}
EARLIER = {"question": "Rename the flag?", "options": ["yes", "no"], "asked_by": "agent-3",
           "asked": "2026-12-04T18:30:00Z",
           "answer": {"option": 2, "choice": "no", "by": "pat", "at": "2026-12-04T18:31:00Z"}}


async def test_the_pane_shows_each_word_as_the_agent_reads_it(tmp_path):
    task = node("T-1", "Bash completion", release="R1",
                decision={"question": "Keep the old API?", "options": ["A: keep it, deprecated", "B: remove it"],
                          "asked_by": "agent-1", "asked": "2026-12-04T18:38:00Z", "answer": ANSWER},
                decisions=[EARLIER], comments=[{"by": "sam", "at": "2026-12-04T18:40:00Z", "text": "use zsh 5.9"}])
    root = write_plan(tmp_path / "repo", [task])
    app = canvas(root, tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await ready(app, pilot)
        app.screen.reveal("T-1")
        fields = lambda: str(app.screen.query_one("#detail-fields").render())  # noqa: E731
        await until(pilot, lambda: "said" in fields(), what="the words in the pane")
        shown = fields()
        expected = message_lines(messages(app.state.plan.nodes["T-1"]))
        assert len(expected) == 3
        for line in expected:
            assert line.strip() in " ".join(shown.split()), (line, shown)
        assert "asked_by" not in shown and "'option'" not in shown and "option:" not in shown

