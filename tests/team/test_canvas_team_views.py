"""`canvas --follow`: the team's claims show beyond the tree and the detail pane: the Next ▸ bar counts
them as `next` does (another clone's held or done task is not offered), the board puts a task held in
another clone in its in-progress column with the holder's mark, and the agents view gives that agent a
lane. Pilot, with the claim source a stand-in the test changes (through the constructor), and once
the real source against a real bare repository and a second clone whose agent runs `leafwise start`."""

from __future__ import annotations

from pathlib import Path

import pytest
from leafwise.canvas.screens.agents import AgentsScreen
from leafwise.canvas.screens.board import BoardScreen
from leafwise.canvas.widgets.next_task import NextTaskBar
from leafwise.commands.team import remote
from leafwise.commands.team.status import TeamClaim
from testkit import gitserver, run_cli, write_plan
from testkit.canvas import canvas, ready, until

pytestmark = pytest.mark.anyio

NODES = [{"id": "T-1", "title": "Alpha lighthouse task", "release": "R1", "status": "draft"},
         {"id": "T-2", "title": "Bravo harbour task", "release": "R1", "status": "draft"},
         {"id": "T-3", "title": "Charlie quay task", "release": "R1", "status": "draft"}]
TEAM_PROJECT = "settings:\n  team: {remote: origin}\n"


class Remote:
    """A stand-in claim source: answers what the test last put in `claims`."""

    def __init__(self) -> None:
        self.claims: list[TeamClaim] = []

    def __call__(self, root: Path, fetch: bool) -> list[TeamClaim]:
        return list(self.claims)


def bar(app) -> str:
    return app.screen.query_one(NextTaskBar).render().plain


def held(node: str, agent: str, clone: str, state: str = "held", age: float = 2.0, stale: bool = False) -> TeamClaim:
    return TeamClaim(node, agent, clone, "feature/x", state, age, stale, 600.0)


async def test_the_next_bar_passes_by_what_other_clones_hold_or_finished(tmp_path):
    source = Remote()
    app = canvas(write_plan(tmp_path / "plan", NODES), tmp_path, follow=True, every=0.2, team_source=source)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: "Next ▸ T-1" in bar(app), what="T-1 first while nobody holds anything")
        source.claims = [held("T-1", "bob", "laptop-3f2a"), held("T-2", "cy", "ci-7", state="done")]
        await until(pilot, lambda: "Next ▸ T-3" in bar(app), what="the bar's pick counting the team's claims")
        assert "T-1" in bar(app) and "⚑ bob@laptop-3f2a" in bar(app), bar(app)
        source.claims = [held("T-1", "bob", "laptop-3f2a", stale=True, age=900.0)]  # silent past its TTL
        await until(pilot, lambda: "Next ▸ T-1" in bar(app), what="a stale claim is free to take, as next says")


async def test_the_board_and_the_agents_view_show_other_clones_claims(tmp_path):
    source = Remote()
    app = canvas(write_plan(tmp_path / "plan", NODES), tmp_path, follow=True, every=0.2, team_source=source)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.team_polls >= 1)
        await app.switch_mode("board")
        await until(pilot, lambda: isinstance(app.screen, BoardScreen) and len(app.screen.cards("draft")) == 3)
        source.claims = [held("T-2", "bob", "laptop-3f2a"), held("T-3", "cy", "ci-7", state="blocked")]
        await until(pilot, lambda: [n.id for n in app.screen.cards("in-progress")] == ["T-2"],
                    what="the held card in the in-progress column")
        column = app.screen.query_one("#board-in-progress")
        assert "⚑ bob@laptop-3f2a" in column.get_option_at_index(0).prompt.head.plain
        drafts = app.screen.query_one("#board-draft")
        marks = [drafts.get_option_at_index(i).prompt.head.plain for i in range(drafts.option_count)]
        assert any("⊘ cy@ci-7" in m for m in marks), marks

        await app.switch_mode("agents")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen)
                    and "bob@laptop-3f2a" in app.screen.query_one("#agents-list").get_option_at_index(0).prompt.plain,
                    what="a lane for the other clone's agent")
        lanes = app.screen.query_one("#agents-list")
        text = "\n".join(lanes.get_option_at_index(i).prompt.plain for i in range(lanes.option_count))
        assert "working" in text and "T-2" in text and "as seen here" in text, text
        assert "cy@ci-7" in text and "blocked: T-3" in text, text
        source.claims = [held("T-2", "bob", "laptop-3f2a", stale=True, age=900.0)]
        await until(pilot, lambda: "● stale" in app.screen.query_one("#agents-list").get_option_at_index(0)
                    .prompt.plain and "silent past its TTL" in app.screen.query_one("#agents-list")
                    .get_option_at_index(0).prompt.plain, what="the silent claim's lane turns stale")


async def test_another_clones_start_moves_the_next_bar_and_the_board_through_the_real_remote(tmp_path):
    first, second = gitserver.joined_pair(tmp_path, NODES, TEAM_PROJECT)
    app = canvas(first, tmp_path, follow=True, every=0.2)  # the real source: commands.team.status.claims
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.team_polls >= 1 and "Next ▸ T-1" in bar(app), what="the first poll")
        assert run_cli("start", "T-1", "--agent", "bob", cwd=second).code == 0
        clone = remote.clone_id(second, create=False)
        await until(pilot, lambda: "Next ▸ T-2" in bar(app) and f"bob@{clone}" in bar(app), what="bob's claim")
        await app.switch_mode("board")
        await until(pilot, lambda: isinstance(app.screen, BoardScreen)
                    and [n.id for n in app.screen.cards("in-progress")] == ["T-1"], what="bob's card moved")


@pytest.mark.slow
async def test_with_only_work_done_on_other_branches_left_the_next_bar_waits_as_next_does(tmp_path):
    with gitserver.daemon(tmp_path) as prefix:
        first, second = gitserver.team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, tasks=2)
        app = canvas(first, tmp_path, follow=True, every=0.2)  # the real source over git daemon
        async with app.run_test(size=(200, 40)) as pilot:
            await ready(app, pilot)
            await until(pilot, lambda: app.team_polls >= 1 and "Next ▸ T-1" in bar(app), what="the first poll")
            for task in ("T-1", "T-2"):  # bob finishes everything on his clone's branch, not merged here
                assert run_cli("start", task, "--agent", "bob", cwd=second).code == 0
                assert run_cli("complete", task, "--summary", "ok", "--agent", "bob", cwd=second).code == 0
            cli = run_cli("next", "--agent", "alice", cwd=first).last_lines[-1]
            assert cli.startswith("Wait: the branches that finished T-1, T-2 are merged into this one"), cli
            await until(pilot, lambda: bar(app).startswith("Wait:"), what="the bar's wait for the merge")
            assert bar(app).splitlines()[0] == cli, "the bar says what next says, from the one rule"
