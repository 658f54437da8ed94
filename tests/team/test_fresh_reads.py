"""Answers that read the team's claims see the remote as it is now, through the real CLI in separate
clones of one bare repository: `next` fetches once (and says when it read the last copy instead),
`complete` names a next task no other clone took meanwhile, `start --next --wait` wakes when another
clone frees a task (it writes no file here), and a `complete` killed between its claim's `done` and
its YAML is named by the next command with the call that finishes it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testkit import run_cli_in_process, wait_until
from testkit.gitserver import clone, copy_team, daemon, free_port, git, set_url, team_clones
from testkit.gitserver import leafwise as in_a_child


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("team-reads")
    team_clones(base, lambda repo: repo.as_uri(), 2, tasks=3)
    return base


@pytest.fixture
def two(template: Path, tmp_path: Path) -> list[Path]:
    return copy_team(template, tmp_path / "team")


def started(res) -> str:
    assert res.code == 0, res.stdout + res.stderr
    return res.json["result"]["task"]["id"]


def test_next_sees_a_claim_another_clone_made_since_this_clone_last_fetched(two):
    a, b = two
    assert started(leafwise("start", "--next", "--agent", "alice", "--json", cwd=a)) == "T-1"
    seen = leafwise("next", "--agent", "bob", "--json", cwd=b)  # b last fetched at join: T-1 was free then
    assert seen.code == 0, seen.stderr
    assert seen.json["result"]["task"]["id"] == "T-2"
    assert seen.json["result"]["claims"] == "fetched"
    assert {"id": "T-1"}.items() <= seen.json["result"]["held"][0].items()


def test_next_with_the_remote_down_reads_the_last_copy_and_says_so(two):
    a, b = two
    started(leafwise("start", "--next", "--agent", "alice", "--json", cwd=a))
    leafwise("next", "--agent", "bob", cwd=b)  # b's copy now holds alice's T-1
    set_url(b, f"git://127.0.0.1:{free_port()}/plan.git")
    res = in_a_child("next", "--agent", "bob", cwd=b)
    assert res.code == 0, res.stderr
    assert res.stdout.startswith("T-2 ")
    assert "claims as this clone last fetched them: the remote origin did not answer" in res.stdout
    assert res.last_lines[-1] == "Next: leafwise start --next --agent bob"
    why = in_a_child("diagnose", "--agent", "bob", cwd=b)  # the plan as a whole, from the same last copy
    assert why.stdout.startswith("plan: none — T-2 is next (") and "last fetched them" in why.stdout, why.stdout


def test_complete_names_a_next_task_no_other_clone_took_meanwhile(two):
    a, b = two
    assert started(leafwise("start", "--next", "--agent", "alice", "--json", cwd=a)) == "T-1"
    assert started(leafwise("start", "--next", "--agent", "bob", "--json", cwd=b)) == "T-2"  # after a's fetch
    done = leafwise("complete", "T-1", "--summary", "did it", "--agent", "alice", "--json", cwd=a)
    assert done.code == 0, done.stderr
    assert done.json["result"]["next"]["id"] == "T-3", "T-2 is bob's since a last fetched"


@pytest.mark.slow
def test_start_next_wait_wakes_when_another_clone_frees_a_task(two):
    a, b = two
    for agent in ("alice", "ann", "amy"):
        started(leafwise("start", "--next", "--agent", agent, "--json", cwd=a))
    env = {**os.environ, "LEAFWISE_AGENT": ""}
    waiter = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "start", "--next",
                               "--wait", "60", "--agent", "bob", "--json"], cwd=b, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: "T-2" in git(b, "for-each-ref", "refs/remotes-leafwise/origin/leafwise/claims/"), 30,
                   what="bob's first attempt fetched the claims")
        freed = time.monotonic()
        assert leafwise("unclaim", "T-2", "--agent", "ann", cwd=a).code == 0  # a released ref, no file in b
        out, err = waiter.communicate(timeout=60)
        woke = time.monotonic() - freed
    finally:
        waiter.kill()
        waiter.wait()
    assert waiter.returncode == 0, out + err
    assert '"id": "T-2"' in out
    assert woke < 20, f"woke {woke:.1f} s after the release (one poll is 3 s; the wait asked 60)"


KILLER = """#!/bin/sh
# post-receive: the ref is updated on the server; kill the client's leafwise before it writes the YAML
while read old new ref; do
  case "$ref" in refs/leafwise/claims/*)
    git cat-file blob "$new:claim.json" | grep -q '"state": "done"' && kill -9 "$(cat {pidfile})" ;;
  esac
done
exit 0
"""


@pytest.mark.slow
def test_a_complete_killed_after_its_done_claim_is_named_with_the_call_that_finishes_it(two, tmp_path):
    a, b = two
    assert started(leafwise("start", "T-1", "--agent", "alice", "--json", cwd=a)) == "T-1"
    pidfile = tmp_path / "agent.pid"
    hook = a.parent / "plan.git" / "hooks" / "post-receive"
    hook.write_text(KILLER.replace("{pidfile}", str(pidfile)))
    hook.chmod(0o755)
    env = {**os.environ, "LEAFWISE_AGENT": ""}
    with daemon(a.parent) as prefix:  # a served host runs its hook (a local remote's never run for Leafwise)
        set_url(a, f"{prefix}/plan.git")
        agent = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "complete", "T-1",
                                  "--summary", "the work", "--agent", "alice"], cwd=a, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        pidfile.write_text(str(agent.pid))
        agent.communicate(timeout=60)
    set_url(a, (a.parent / "plan.git").as_uri())
    hook.unlink()
    assert agent.returncode == -9, "killed by the server's hook once the done claim landed"
    node = (a / ".leafwise" / "nodes" / "T-1.yaml").read_text()
    assert "status: draft" in node and "the work" not in node  # the outcome was never written

    own = in_a_child("next", "--agent", "alice", cwd=a)
    assert own.code == 0, own.stderr
    assert "unfinished: T-1 is done in alice's claim on the remote" in own.stdout
    assert own.last_lines[-1] == 'Fix: leafwise complete T-1 --summary "<summary>" --agent alice'
    status = leafwise("team", "status", "--local", cwd=a)  # a person looking sees it too, with the call
    assert 'its outcome is not in this branch: leafwise complete T-1 --summary "<summary>" --agent alice' in status.stdout
    other = leafwise("start", "--next", "--agent", "andy", cwd=a)  # another agent of the clone: told, not stopped
    assert other.code == 0 and other.stdout.startswith("Started T-2"), other.stdout + other.stderr
    assert "unfinished: T-1" in other.stdout and "--agent alice" in other.stdout
    elsewhere = leafwise("next", "--agent", "bob", "--json", cwd=b)  # another clone passes the done task by
    assert elsewhere.json["result"]["task"]["id"] == "T-3" and "unfinished" not in elsewhere.json["result"]

    again = leafwise("complete", "T-1", "--summary", "the work", "--agent", "alice", cwd=a)
    assert again.code == 0, again.stdout + again.stderr
    assert "summary: the work" in (a / ".leafwise" / "nodes" / "T-1.yaml").read_text()
    assert "unfinished" not in leafwise("next", "--agent", "alice", cwd=a).stdout


def test_a_persons_git_fetch_prune_keeps_the_claims_a_heartbeat_and_repair_need(two, tmp_path):
    a, _ = two
    assert started(leafwise("start", "T-1", "--agent", "alice", "--json", cwd=a)) == "T-1"
    git(a, "fetch", "-q", "--prune", "origin")  # a person's own fetch (fetch.prune=true does the same)
    assert leafwise("heartbeat", "T-1", "--agent", "alice", cwd=a).code == 0
    plain = clone((a.parent / "plan.git").as_uri(), tmp_path / "plain")
    git(plain, "push", "-q", "--mirror", "origin")  # the remote loses refs/leafwise/*
    git(a, "remote", "prune", "origin")  # and the person prunes before anyone repairs
    fixed = leafwise("team", "repair", "--json", cwd=a)
    assert fixed.code == 0 and fixed.json["result"]["restored"] == ["T-1"], fixed.stdout + fixed.stderr
    assert leafwise("complete", "T-1", "--summary", "ok", "--agent", "alice", cwd=a).code == 0


def test_work_finished_only_in_other_clones_is_a_wait_for_their_branches(two):
    a, b = two
    assert started(leafwise("start", "T-1", "--agent", "alice", "--json", cwd=a)) == "T-1"
    for task in ("T-2", "T-3"):
        assert started(leafwise("start", task, "--agent", "bob", "--json", cwd=b)) == task
        assert leafwise("complete", task, "--summary", "ok", "--agent", "bob", cwd=b).code == 0
    held = leafwise("next", "--agent", "carol", cwd=a)  # T-1 is left while alice holds it: her end comes first
    assert "\nWait: alice holds T-1 until" in held.stdout and "merged into this one" not in held.stdout, held.stdout
    done = leafwise("complete", "T-1", "--summary", "ok", "--agent", "alice", cwd=a)
    assert done.code == 0, done.stderr
    assert "2 task(s) are done in other clones' claims, on branches not merged here: T-2 (main in" in done.stdout
    assert done.last_lines[-1].startswith("Wait: the branches that finished T-2, T-3 are merged into this one")
    peek = leafwise("next", "--agent", "alice", cwd=a)
    assert peek.last_lines[-1] == done.last_lines[-1]
    git(b, "commit", "-qam", "outcomes")
    git(b, "push", "-q", "origin", "main")
    git(a, "commit", "-qam", "outcome")
    git(a, "pull", "-q", "--no-rebase", "origin", "main")
    assert leafwise("next", "--agent", "alice", cwd=a).last_lines[-1].startswith("Done.")


@pytest.mark.slow
def test_next_waits_at_most_its_bound_for_a_remote_that_never_answers(two):
    import socket

    from leafwise.commands.team import session

    a, _ = two
    started(leafwise("start", "--next", "--agent", "alice", "--json", cwd=a))
    with socket.socket() as silent:  # accepts the connection, never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        set_url(a, f"git://127.0.0.1:{silent.getsockname()[1]}/plan.git")
        began = time.monotonic()
        res = in_a_child("next", "--agent", "bob", "--json", cwd=a)
        took = time.monotonic() - began
    assert res.code == 0, res.stderr
    assert res.json["result"]["claims"] == "last copy" and res.json["result"]["task"]["id"] == "T-2"
    assert session.REFRESH_DEADLINE <= took < session.REFRESH_DEADLINE + 10, f"next took {took:.1f} s"
