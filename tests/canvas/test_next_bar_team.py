"""`canvas --follow`: while a task is held in another clone's live claim, the Next bar gives the picker's
Wait for its holder, as `next` does (`status.merge_waiting`, one home), not the merge Wait for the
tasks finished on other branches (which reads as "nothing left"); once that claim goes silent past its
TTL the task is offered, and once it is finished too the bar waits for the merge. Pilot, with the
claim source a stand-in the test changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from leafwise.canvas.widgets.next_task import NextTaskBar
from leafwise.commands.team.status import TeamClaim
from testkit import write_plan
from testkit.canvas import canvas, ready, until

pytestmark = pytest.mark.anyio

NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"},
         {"id": "T-2", "title": "Bravo harbour task", "release": "R1", "status": "draft"},
         {"id": "T-3", "title": "Charlie quay task", "release": "R1", "status": "draft"}]


class Remote:
    """A stand-in claim source: answers what the test last put in `claims`."""

    def __init__(self) -> None:
        self.claims: list[TeamClaim] = []

    def __call__(self, root: Path, fetch: bool) -> list[TeamClaim]:
        return list(self.claims)


def claim(node: str, state: str, stale: bool = False) -> TeamClaim:
    return TeamClaim(node, "bob", "laptop-3f2a", "feature/x", state, 900.0 if stale else 2.0, stale, 600.0)


def bar(app) -> str:
    return app.screen.query_one(NextTaskBar).render().plain


async def test_a_task_held_live_elsewhere_gives_the_holders_wait_not_the_merge_wait(tmp_path):
    source = Remote()
    app = canvas(write_plan(tmp_path / "plan", NODES), tmp_path, follow=True, every=0.2, team_source=source)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        source.claims = [claim("T-1", "done"), claim("T-2", "held"), claim("T-3", "done")]
        await until(pilot, lambda: bar(app).startswith("Wait: bob@laptop-3f2a holds T-2"),
                    what="the holder's Wait while T-2 is held")
        assert "branches that finished" not in bar(app), bar(app)

        source.claims = [claim("T-1", "done"), claim("T-2", "held", stale=True), claim("T-3", "done")]
        await until(pilot, lambda: bar(app).startswith("Next ▸ T-2"), what="a claim silent past its TTL is free")

        source.claims = [claim("T-1", "done"), claim("T-2", "done"), claim("T-3", "done")]
        await until(pilot, lambda: bar(app).startswith("Wait: the branches that finished T-1, T-2, T-3"),
                    what="the merge Wait once nothing is held")
