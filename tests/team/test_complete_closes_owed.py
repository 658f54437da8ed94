"""`complete` closes the parents owed their cascade (children all finished in other clones, merged here),
as `start --next` and `team sync` do: through real clones of a bare repository served by `git daemon`
on 127.0.0.1, the merge leaves the epic open, and the next `complete` of any task closes it and frees
what waits on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import daemon, git, team_clones


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


def plan_of(where: Path) -> Path:
    """T-1 an epic of T-2 and T-3; T-4 other work; T-5 waits on the epic."""
    where.mkdir()
    assert leafwise("init", "--name", "Team", "--prefix", "T", cwd=where).code == 0
    for args in (("the epic",), ("first half", "--parent", "T-1"), ("second half", "--parent", "T-1"),
                 ("other work",), ("after the epic", "--depends-on", "T-1")):
        assert leafwise("add", *args, "--force", cwd=where).code == 0
    return where


def status_of(work: Path, node_id: str) -> str:
    text = (work / ".leafwise" / "nodes" / f"{node_id}.yaml").read_text()
    return next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("status:"))


@pytest.mark.slow
def test_complete_closes_a_parent_whose_children_were_finished_in_other_clones(tmp_path: Path):
    with daemon(tmp_path) as prefix:
        a, b = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, plan=plan_of(tmp_path / "plan"))
        for work, task, agent in ((a, "T-2", "alice"), (b, "T-3", "bob")):
            assert leafwise("start", task, "--agent", agent, cwd=work).code == 0
            assert leafwise("complete", task, "--summary", "ok", "--agent", agent, cwd=work).code == 0
        git(b, "commit", "-qam", "second half")
        git(b, "push", "-q", "origin", "main")
        git(a, "commit", "-qam", "first half")
        git(a, "pull", "-q", "--no-rebase", "origin", "main")
        assert status_of(a, "T-1") == "draft", "each clone's cascade saw the other half open"

        assert leafwise("start", "T-4", "--agent", "alice", cwd=a).code == 0
        done = leafwise("complete", "T-4", "--summary", "other work done", "--agent", "alice", "--json", cwd=a)
        assert done.code == 0, done.stdout + done.stderr
        assert done.json["result"]["closed"] == [{"id": "T-1", "title": "the epic", "from": "draft", "to": "done"}]
        assert {"id": "T-1", "field": "status", "from": "draft", "to": "done"} in done.json["mutation"]["changes"]
        assert done.json["result"]["next"]["id"] == "T-5", "closing the epic freed what waits on it"
        assert status_of(a, "T-1") == "done"
        journal = [json.loads(line) for line in (a / ".leafwise" / "journal.jsonl").read_text().splitlines()]
        closing = [e for e in journal if e.get("node") == "T-1" or e.get("id") == "T-1"]
        assert closing and closing[-1].get("actor") == "alice", closing
        assert "half_finished_cascade" not in leafwise("validate", "--json", cwd=a).stdout
