"""A parent whose children were finished in different clones, through real clones of a bare repository
served by `git daemon` on 127.0.0.1: neither clone's cascade can close it (each saw the other's child
open), so after the merge it is owed its close. The picker never hands it out, `next` says which step
closes it, and that step is in the agent's own loop (`start --next` closes it before it picks) or a
person's `team sync`; no `repair` by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import daemon, git, team_clones


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


def epic_plan(where: Path) -> Path:
    """T-1 an epic of T-2 and T-3; T-4 waits on the epic."""
    where.mkdir()
    assert leafwise("init", "--name", "Team", "--prefix", "T", cwd=where).code == 0
    for args in (("the epic",), ("first half", "--parent", "T-1"), ("second half", "--parent", "T-1"),
                 ("after the epic", "--depends-on", "T-1")):
        assert leafwise("add", *args, "--force", cwd=where).code == 0
    return where


def status_of(work: Path, node_id: str) -> str:
    text = (work / ".leafwise" / "nodes" / f"{node_id}.yaml").read_text()
    return next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("status:"))


@pytest.fixture
def merged(tmp_path: Path):
    """Two clones over git daemon: alice finishes T-2 in one, bob T-3 in the other, then the first
    merges the second's branch. Yields the merged clone, the other one, and the daemon's URL prefix."""
    with daemon(tmp_path) as prefix:
        a, b = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, plan=epic_plan(tmp_path / "plan"))
        for work, task, agent in ((a, "T-2", "alice"), (b, "T-3", "bob")):
            assert leafwise("start", task, "--agent", agent, cwd=work).code == 0
            done = leafwise("complete", task, "--summary", "ok", "--agent", agent, "--json", cwd=work)
            assert done.code == 0, done.stdout + done.stderr
            assert done.json["result"]["cascade"] == [], "the other half is open in this clone"
        git(b, "commit", "-qam", "second half")
        git(b, "push", "-q", "origin", "main")
        git(a, "commit", "-qam", "first half")
        git(a, "pull", "-q", "--no-rebase", "origin", "main")
        assert status_of(a, "T-2") == status_of(a, "T-3") == "done" and status_of(a, "T-1") == "draft"
        yield a, b


@pytest.mark.slow
def test_the_agent_loop_closes_a_parent_finished_across_clones_and_never_hands_it_out(merged):
    a, _ = merged
    peek = leafwise("next", "--agent", "alice", "--json", cwd=a)
    assert peek.code == 0, peek.stderr
    assert peek.json["result"]["task"] is None, "the epic is no one's work, and T-4 waits on it"
    assert "every child of T-1 is closed" in peek.json["result"]["reason"]
    assert peek.json["_next_action"]["command"] == "leafwise start --next --agent alice"
    person = leafwise("next", cwd=a)
    assert person.last_lines[-1].startswith("Next: leafwise repair"), person.stdout
    refused = leafwise("start", "T-1", "--agent", "alice", cwd=a)
    assert refused.code == 3 and "children are all closed" in refused.stderr, refused.stdout + refused.stderr

    took = leafwise("start", "--next", "--agent", "alice", "--json", cwd=a)
    assert took.code == 0, took.stdout + took.stderr
    assert [c["id"] for c in took.json["result"]["closed"]] == ["T-1"], took.stdout
    assert took.json["result"]["task"]["id"] == "T-4", "closing the epic freed what waits on it"
    assert status_of(a, "T-1") == "done"
    checked = leafwise("validate", "--json", cwd=a)
    assert "half_finished_cascade" not in checked.stdout, checked.stdout


@pytest.mark.slow
def test_team_sync_closes_it_for_a_person_after_the_merge(merged):
    a, _ = merged
    before = leafwise("validate", "--json", cwd=a)
    assert "half_finished_cascade" in before.stdout  # what a merge left before any step ran
    synced = leafwise("team", "sync", "--json", cwd=a)
    assert synced.code == 0, synced.stdout + synced.stderr
    assert synced.json["result"]["closed"] == [{"id": "T-1", "title": "the epic", "from": "draft", "to": "done"}]
    assert status_of(a, "T-1") == "done"
    assert "half_finished_cascade" not in leafwise("validate", "--json", cwd=a).stdout
    again = leafwise("team", "sync", "--json", cwd=a)
    assert again.json["result"]["closed"] == []
    assert leafwise("next", "--agent", "alice", "--json", cwd=a).json["result"]["task"]["id"] == "T-4"
