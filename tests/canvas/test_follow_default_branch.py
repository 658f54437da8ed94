"""`canvas --follow` from another machine sees the plan as merged on the remote's default branch: each
poll fetches `HEAD` with the claims (one request), and once an agent's branch is merged into origin/main
the canvas says which tasks are done there and open here ("git pull here"), its Next bar's Wait is the
pull (not the merge of branches already merged), and the person's branch and work tree are never
touched. After the pull the plan reads them done. Pilot, a real `git daemon` on 127.0.0.1, the real
CLI in the agent's clone."""

from __future__ import annotations

import pytest
from leafwise.canvas.widgets.next_task import NextTaskBar
from testkit import gitserver
from testkit.canvas import canvas, notices, ready, until

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def bar(app) -> str:
    return app.screen.query_one(NextTaskBar).render().plain


@pytest.fixture
def team(tmp_path):
    """(the person's clone, the agent's clone, the bare repository) of a 2-task plan over git daemon."""
    base = tmp_path / "srv"
    base.mkdir()
    with gitserver.daemon(base) as prefix:
        _, person, agent = gitserver.team_clones(base, lambda repo: f"{prefix}/{repo.name}", 3, tasks=2)
        yield person, agent, base / "plan.git"


def finish_on_a_branch(agent, *ids: str) -> None:
    gitserver.git(agent, "checkout", "-q", "-b", "work")
    for node_id in ids:
        for args in (("start", node_id, "--agent", "bob"),
                     ("complete", node_id, "--agent", "bob", "--summary", f"{node_id} done on work")):
            res = gitserver.leafwise(*args, cwd=agent)
            assert res.code == 0, (args, res.stdout, res.stderr)
    gitserver.git(agent, "add", "-A")
    gitserver.git(agent, "commit", "-q", "-m", "work")


async def test_a_merge_on_origin_main_shows_in_a_canvas_following_from_another_clone(team, tmp_path):
    person, agent, bare = team
    head = gitserver.git(person, "rev-parse", "HEAD")
    app = canvas(person, tmp_path, watch=True, follow=True, every=0.3)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: app.team_polls >= 1, what="the first poll")
        assert app.team_error is None, app.team_error
        assert app.team_upstream is not None and app.team_upstream.name == "origin/main"
        assert app.team_upstream.closed_there(app.state.plan) == []

        finish_on_a_branch(agent, "T-1", "T-2")  # done in bob's claims, on a branch not merged anywhere
        await until(pilot, lambda: bar(app).startswith("Wait: the branches that finished T-1, T-2"),
                    what="the merge Wait while the branch is not merged", timeout=30)

        gitserver.git(agent, "checkout", "-q", "main")
        gitserver.git(agent, "merge", "-q", "--no-edit", "work")
        gitserver.git(agent, "push", "-q", "origin", "main")  # a person merged it into origin/main
        await until(pilot, lambda: any(n.startswith("origin/main moved") for n in notices(app)),
                    what="the toast for origin/main", timeout=30)
        said = [n for n in notices(app) if n.startswith("origin/main moved")]
        assert len(said) == 1 and "T-1, T-2" in said[0] and "git pull here" in said[0], said
        await until(pilot, lambda: bar(app).startswith("Wait: a person runs git pull here: “origin/main” has T-1, T-2"),
                    what="the pull Wait once merged there")
        assert app.team_claims["T-1"].merged == "origin/main"
        app.screen.reveal("T-1")
        await until(pilot, lambda: "merged on origin/main: git pull here" in fields(app),
                    what="the detail pane's team line says where it is merged")
        polls = app.team_polls
        await until(pilot, lambda: app.team_polls >= polls + 2, what="two more polls")
        assert len([n for n in notices(app) if n.startswith("origin/main moved")]) == 1  # said once
        assert gitserver.git(person, "rev-parse", "HEAD") == head  # the canvas never pulls
        assert gitserver.git(person, "status", "--porcelain") == ""

        gitserver.git(person, "pull", "-q", "--ff-only", "origin", "main")  # the person pulls
        await until(pilot, lambda: app.state.plan.nodes["T-1"].status == "done", what="the pulled plan", timeout=30)
        await until(pilot, lambda: app.team_upstream.closed_there(app.state.plan) == [],
                    what="nothing closed there and open here after the pull")
        await until(pilot, lambda: "git pull" not in bar(app), what="the bar after the pull")


def fields(app) -> str:
    return str(app.screen.query_one("#detail-fields").render())


async def test_work_added_on_origin_main_is_a_pull_wait_not_done(team, tmp_path):
    """Every task here closed, and another clone pushes a new task to origin/main: the bar says to pull
    (the plan here is behind the team's), never `Done.`, and a toast names the task once."""
    person, agent, bare = team
    finish_on_a_branch(agent, "T-1", "T-2")
    gitserver.git(agent, "checkout", "-q", "main")
    gitserver.git(agent, "merge", "-q", "--no-edit", "work")
    gitserver.git(agent, "push", "-q", "origin", "main")
    gitserver.git(person, "pull", "-q", "--ff-only", "origin", "main")  # the person is level: all done
    app = canvas(person, tmp_path, watch=True, follow=True, every=0.3)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: bar(app).startswith("Done."), what="Done while level", timeout=30)
        added = gitserver.leafwise("add", "Migration guide", "--force", "--json", cwd=agent)
        assert added.code == 0, added.stdout + added.stderr
        new_id = added.json["result"]["node"]["id"]
        gitserver.git(agent, "add", "-A")
        gitserver.git(agent, "commit", "-q", "-m", "a new task")
        gitserver.git(agent, "push", "-q", "origin", "main")
        await until(pilot, lambda: bar(app).startswith("Wait: a person runs git pull here"),
                    what="the pull Wait for work added there", timeout=30)
        assert new_id in bar(app) and "Done." not in bar(app)
        await until(pilot, lambda: any(new_id in n and "lacks" in n for n in notices(app)), what="the toast")
        gitserver.git(person, "pull", "-q", "--ff-only", "origin", "main")
        await until(pilot, lambda: bar(app).startswith("Next ▸"), what="the new task once pulled", timeout=30)
