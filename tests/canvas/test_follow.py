"""`canvas --follow`: the team's claims polled from the shared remote show in the tree, the detail pane and
a toast; a remote that stops answering is said once and the polls go on.

The poller takes its source through the constructor (`team_source`): the first test hands it a plain
function whose answers the test changes; the last one runs the real source against a real bare
repository and a second clone whose agent runs `leafwise start`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from leafwise.canvas.widgets.node_detail import NodeDetail
from leafwise.commands.team import remote
from leafwise.commands.team.remote import TeamError
from leafwise.commands.team.status import TeamClaim
from testkit import run_cli, write_plan
from testkit.canvas import canvas, idle, notices, ready, row_text, tree, until
from testkit import gitserver

pytestmark = pytest.mark.anyio

NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"},
         {"id": "T-2", "title": "Bravo harbour task", "release": "R1", "status": "draft"}]
TEAM_PROJECT = "settings:\n  team: {remote: origin}\n"


def fields(app) -> str:
    return app.screen.query_one(NodeDetail).query_one("#detail-fields").render().plain


class Remote:
    """A stand-in claim source: answers what the test last put in `claims`, or raises `error`."""

    def __init__(self) -> None:
        self.claims: list[TeamClaim] = []
        self.error: Exception | None = None
        self.asked: list[tuple[Path, bool]] = []

    def __call__(self, root: Path, fetch: bool) -> list[TeamClaim]:
        self.asked.append((root, fetch))
        if self.error is not None:
            raise self.error
        return list(self.claims)


async def test_claims_from_the_remote_mark_rows_and_the_detail_pane(tmp_path):
    root = write_plan(tmp_path / "plan", NODES)
    source = Remote()
    app = canvas(root, tmp_path, follow=True, every=0.2, team_source=source)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.team_polls >= 1, what="the first poll")
        assert source.asked[0] == (root, True)  # the plan's repository, fetched
        assert "@" not in row_text(app, "T-2")

        source.claims = [TeamClaim("T-2", "bob", "laptop-3f2a", "feature/harbour", "held", 4.0)]
        await until(pilot, lambda: "⚑ bob@laptop-3f2a" in row_text(app, "T-2"), what="the claim's mark")
        assert "bob" not in row_text(app, "T-1")
        assert any("T-2 held by bob@laptop-3f2a on feature/harbour" in n for n in notices(app))
        assert tree(app).reveal("T-2")
        await until(pilot, lambda: "bob@laptop-3f2a · held on feature/harbour" in fields(app),
                    what="the detail pane's team line")
        assert "unchanged here since" in fields(app)

        source.claims = [TeamClaim("T-2", "bob", "laptop-3f2a", "feature/harbour", "done", 1.0)]
        await until(pilot, lambda: "✓ bob@laptop-3f2a" in row_text(app, "T-2"), what="the completion")
        await until(pilot, lambda: "done on feature/harbour" in fields(app))
        assert any("T-2 done by bob@laptop-3f2a" in n for n in notices(app))

        source.error = TeamError("remote unreachable (origin): could not read from remote", "unreachable")
        polls = app.team_polls
        await until(pilot, lambda: app.team_polls >= polls + 3, what="three failed polls")
        said = [n for n in notices(app) if n.startswith("Not following the team")]
        assert len(said) == 1 and "could not read from remote" in said[0]  # said once, not once a poll
        assert "✓ bob@laptop-3f2a" in row_text(app, "T-2")  # the last answer stays on screen

        source.error = None
        source.claims = []
        await until(pilot, lambda: "bob" not in row_text(app, "T-2"), what="the released claim")
        assert any(n.startswith("Following the team") for n in notices(app))


async def test_without_follow_nothing_polls(tmp_path):
    root = write_plan(tmp_path / "plan", NODES)
    source = Remote()
    app = canvas(root, tmp_path, team_source=source)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await idle(pilot)  # a follower's first poll starts on mount: it would have run by now
        assert source.asked == [] and not app.following



def team_clones(tmp_path: Path) -> tuple[Path, Path]:
    return gitserver.joined_pair(tmp_path, NODES, TEAM_PROJECT)


def claim_in(clone: Path, node_id: str, agent: str) -> str:
    """`agent` in `clone` runs `leafwise start` (team mode: a create-only push of the claim ref); the clone's id."""
    started = run_cli("start", node_id, "--agent", agent, cwd=clone)
    assert started.code == 0, started
    return remote.clone_id(clone, create=False)


async def test_another_clones_claim_appears_through_the_real_remote(tmp_path):
    first, second = team_clones(tmp_path)
    app = canvas(first, tmp_path, follow=True, every=0.2)  # the real source: commands.team.status.claims
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.team_polls >= 1, what="the first poll")
        assert app.team_error is None, app.team_error
        clone = claim_in(second, "T-1", "bob")
        await until(pilot, lambda: f"⚑ bob@{clone}" in row_text(app, "T-1"), what="the other clone's claim")
        assert "bob" not in row_text(app, "T-2")


async def test_a_plan_without_team_mode_says_how_to_set_it_up(tmp_path):
    root = write_plan(tmp_path / "plan", NODES)
    app = canvas(root, tmp_path, follow=True, every=0.2)  # the real source
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.team_polls >= 2, what="two polls")
        said = [n for n in notices(app) if n.startswith("Not following the team")]
        assert len(said) == 1
        assert "team mode is off" in said[0] and "leafwise team init" in said[0] and "leafwise team join" in said[0]
