"""A clone of a team-mode plan that never ran `team join` (project.yaml came with the clone): reads answer
from what is here, and where a claim step would be their next action, they name the join; every claim
step is refused before anything moves (exit 3, `Fix: leafwise team join`), and no read makes the clone's
id behind the person's back (which joined it silently). Real CLI processes, a real `git daemon` on
127.0.0.1."""

from __future__ import annotations

import json

from pathlib import Path

import pytest
from leafwise.commands.contract import Result
from leafwise.commands.domain.team_reads import join_first
from leafwise.commands.registry import Ctx, load_word
from testkit import gitserver

pytestmark = pytest.mark.slow  # a daemon and ~20 CLI processes

JOIN = "leafwise team join"


def last(res) -> str:
    return (res.stdout.strip() or res.stderr.strip()).splitlines()[-1]


@pytest.fixture
def unjoined(tmp_path):
    """(the bare repository, a joined clone, a clone that never joined), over git daemon."""
    base = tmp_path / "srv"
    base.mkdir()
    with gitserver.daemon(base) as prefix:
        url_of = lambda repo: f"{prefix}/{repo.name}"  # noqa: E731
        first, = gitserver.team_clones(base, url_of, 1, tasks=2)
        other = gitserver.clone(url_of(base / "plan.git"), tmp_path / "laptop")
        yield base / "plan.git", first, other


def claim_refs(bare: Path) -> str:
    return gitserver.git(bare, "for-each-ref", "refs/leafwise/")


def test_reads_answer_in_a_clone_that_never_joined_and_make_no_clone_id(unjoined):
    bare, first, other = unjoined
    assert gitserver.leafwise("start", "T-1", "--agent", "alice", cwd=first).code == 0  # a claim on the remote
    for args in (("next",), ("show", "T-2"), ("progress",), ("diagnose",), ("tree",), ("list",)):
        res = gitserver.leafwise(*args, cwd=other)
        assert res.code == 0, (args, res.stdout, res.stderr)
    said = gitserver.leafwise("next", cwd=other)
    assert "this clone has not joined the team" in said.stdout and JOIN in said.stdout
    as_json = gitserver.leafwise("next", "--json", cwd=other)
    assert json.loads(as_json.stdout)["result"]["claims"] == "not read"  # not "last copy": none was read
    status = gitserver.leafwise("team", "status", cwd=other)  # a person looking at the remote's claims
    assert status.code == 0, status.stdout + status.stderr
    assert "T-1" in status.stdout and "alice@" in status.stdout
    assert last(status) == f"Next: {JOIN}"
    assert not (other / ".git" / "leafwise" / "clone-id").exists()  # no read joined the clone


def test_claim_steps_refuse_with_the_join_and_move_nothing(unjoined):
    bare, first, other = unjoined
    before = claim_refs(bare)
    for args in (("start", "--next", "--agent", "bob"), ("start", "T-2", "--agent", "bob"),
                 ("team", "claim", "T-2", "--agent", "bob"), ("heartbeat", "T-2", "--agent", "bob"),
                 ("complete", "T-2", "--agent", "bob", "--summary", "did it"),
                 ("block", "T-2", "--agent", "bob", "--reason", "waiting"), ("unclaim", "T-2", "--agent", "bob"),
                 ("team", "sync"), ("team", "repair")):
        res = gitserver.leafwise(*args, cwd=other)
        assert res.code == 3, (args, res.stdout, res.stderr)
        assert "has not joined the team" in res.stdout + res.stderr, args
        assert last(res) == f"Fix: {JOIN}", (args, res.stdout)  # a person's step: no --agent in it
    assert claim_refs(bare) == before  # nothing pushed
    assert gitserver.git(other, "status", "--porcelain") == ""  # no YAML, lease or journal written
    assert not (other / ".git" / "leafwise" / "unsynced.json").exists()  # no offline claim kept to push
    diagnosed = gitserver.leafwise("diagnose", "T-2", cwd=other)  # answers what start answers
    assert "has not joined the team" in diagnosed.stdout and last(diagnosed) == f"Fix: {JOIN}"

    joined = gitserver.leafwise("team", "join", cwd=other)
    assert joined.code == 0, joined.stdout + joined.stderr
    started = gitserver.leafwise("start", "T-2", "--agent", "bob", cwd=other)
    assert started.code == 0, started.stdout + started.stderr
    assert "refs/leafwise/claims/T-2" in claim_refs(bare)


def answer(root: Path, word: str, **args) -> Result:
    ctx = Ctx(cwd=root)
    return join_first(ctx, load_word(word)[word].handler(ctx, **args))


def test_a_reads_next_action_that_is_a_claim_step_names_the_join(unjoined):
    """`team_reads.join_first` over the real handlers (the runner passes every read's answer through it)."""
    bare, first, other = unjoined
    for word, args in (("next", {}), ("progress", {}), ("show", {"node_id": "T-1"})):
        found = answer(other, word, **args).next_action
        assert (found.marker, found.command) == ("next", JOIN), (word, found)
        assert "leafwise start" in found.reason  # the step it frees
    assert not answer(other, "list").next_action.command.startswith(JOIN)  # no claim step: as it is
    assert answer(first, "next").next_action.command.startswith("leafwise start")  # joined: as it is


def test_the_cli_reads_last_line_names_the_join(unjoined):
    bare, first, other = unjoined
    for args in (("next",), ("progress",), ("show", "T-1")):
        res = gitserver.leafwise(*args, cwd=other)
        assert last(res) == f"Next: {JOIN}", (args, res.stdout)
