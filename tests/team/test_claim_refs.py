"""Claims on the shared remote, through the real CLI in separate clones of a bare repository (file://):
create-only claims, heartbeat, finish as a terminal state, steal only after the TTL of *observed*
staleness, a refused finish by the lease's loser, the done task never handed out again, repair after
`push --mirror`, and a remote that does not answer."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from testkit import run_cli_in_process, wait_until
from testkit.gitserver import clone, copy_team, free_port, git, set_url, team_clones
from testkit.gitserver import leafwise as in_a_child


def leafwise(*args: str, cwd: Path):
    """The CLI's own main() in this process: the same words and folder, without an interpreter start per call
    (the unreachable-remote case below runs it in a child)."""
    return run_cli_in_process(*args, cwd=cwd)

TTL = "0.02"  # minutes: 1.2 s of silence before another clone may take the task


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("team")
    team_clones(base, lambda repo: repo.as_uri(), 2, tasks=3)
    return base


@pytest.fixture
def two(template: Path, tmp_path: Path) -> list[Path]:
    return copy_team(template, tmp_path / "team")


def remote_claim(work: Path, node: str) -> dict:
    git(work, "fetch", "-q", "origin", "+refs/leafwise/*:refs/remotes/origin/leafwise/*")
    return json.loads(git(work, "cat-file", "blob", f"refs/remotes/origin/leafwise/claims/{node}:claim.json"))


def started(res) -> str:
    assert res.code == 0, res.stdout + res.stderr
    return res.json["result"]["task"]["id"]


def test_two_clones_get_different_tasks_and_the_yaml_keeps_no_claim(two):
    a, b = two
    first = started(leafwise("start", "--next", "--agent", "alice", "--json", cwd=a))
    second = started(leafwise("start", "--next", "--agent", "bob", "--json", cwd=b))
    assert first != second
    assert remote_claim(a, first)["agent"] == "alice" and remote_claim(a, second)["agent"] == "bob"
    node = (a / ".leafwise" / "nodes" / f"{first}.yaml").read_text()
    assert "in-progress" not in node and "assignee" not in node, "team mode: the claim ref is the status"
    res = leafwise("start", first, "--agent", "carol", cwd=b)
    assert res.code == 3 and "held by alice@" in res.stdout + res.stderr


def test_finish_is_terminal_and_a_done_task_is_never_handed_out_again(two):
    a, b = two
    task = started(leafwise("start", "--next", "--agent", "alice", "--json", cwd=a))
    done = leafwise("complete", task, "--summary", "built it", "--agent", "alice", cwd=a)
    assert done.code == 0, done.stdout + done.stderr
    assert remote_claim(a, task)["state"] == "done"
    assert "status: done" in (a / ".leafwise" / "nodes" / f"{task}.yaml").read_text(), "the outcome is in the branch"
    # clone b never merged a's branch: its YAML says draft, the ref says done
    seen = {started(leafwise("start", "--next", "--agent", f"b{i}", "--json", cwd=b)) for i in range(2)}
    assert task not in seen and len(seen) == 2
    assert leafwise("start", task, "--agent", "b9", cwd=b).code == 3


def test_no_steal_before_the_ttl_of_observed_silence_then_a_steal_and_a_refused_finish(two):
    a, b = two
    task = started(leafwise("start", "T-1", "--agent", "alice", "--ttl", TTL, "--json", cwd=a))
    seen_at = time.monotonic()
    early = leafwise("start", task, "--agent", "bob", cwd=b)  # b sees the claim for the first time: no steal
    assert early.code == 3, early.stdout + early.stderr
    time.sleep(1.3)  # 1.2 s of alice's silence has passed, but b has observed it only since `seen_at`
    stolen = wait_until(lambda: (r := leafwise("start", task, "--agent", "bob", "--json", cwd=b)).code == 0 and r,
                        20, what="bob takes the silent claim")
    assert time.monotonic() - seen_at > 1.2, "never before the TTL of silence observed here"
    claim = remote_claim(b, task)
    assert claim["agent"] == "bob" and claim["stolen_from"].startswith("alice@")
    beat = leafwise("heartbeat", task, "--agent", "alice", cwd=a)
    assert beat.code == 3 and "refused" in beat.stdout + beat.stderr
    late = leafwise("complete", task, "--summary", "late", "--agent", "alice", cwd=a)
    assert late.code == 3 and "held by bob@" in late.stdout + late.stderr
    assert "status: done" not in (a / ".leafwise" / "nodes" / f"{task}.yaml").read_text()
    assert leafwise("complete", task, "--summary", "done by bob", "--agent", "bob", cwd=b).code == 0
    assert stolen.json["result"]["task"]["id"] == task


def test_heartbeat_keeps_the_claim_and_unclaim_frees_it(two):
    a, b = two
    task = started(leafwise("start", "T-2", "--agent", "alice", "--json", cwd=a))
    assert leafwise("heartbeat", task, "--agent", "alice", cwd=a).code == 0
    assert remote_claim(a, task)["seq"] == 1
    assert leafwise("unclaim", task, "--agent", "alice", cwd=a).code == 0
    assert remote_claim(a, task)["state"] == "released"
    assert started(leafwise("start", task, "--agent", "bob", "--json", cwd=b)) == task


def test_a_persons_forced_unclaim_in_another_clone_frees_the_claim_at_once_and_names_its_holder(two):
    """The person's clone may not have fetched the claim yet: unclaim fetches, releases it in one call,
    and says whose it was (the team trial: the first call said "no lease" and did nothing)."""
    a, b = two
    task = started(leafwise("start", "T-3", "--agent", "alice", "--json", cwd=a))
    res = leafwise("unclaim", task, "--force", "--json", cwd=b)
    assert res.code == 0, res.stdout + res.stderr
    assert res.json["mutation"]["applied"] is True, res.json
    assert res.json["result"]["holder"].startswith("alice"), res.json["result"]
    assert remote_claim(a, task)["state"] == "released"


def test_block_keeps_other_clones_off_until_unblocked(two):
    a, b = two
    assert leafwise("block", "T-1", "--reason", "needs a key", "--agent", "alice", cwd=a).code == 0
    assert remote_claim(a, "T-1")["state"] == "blocked"
    assert started(leafwise("start", "--next", "--agent", "bob", "--json", cwd=b)) != "T-1"
    assert leafwise("unblock", "T-1", cwd=a).code == 0
    assert remote_claim(a, "T-1")["state"] == "released"


def test_status_lists_every_claim_as_observed_here(two):
    a, b = two
    started(leafwise("start", "T-1", "--agent", "alice", "--json", cwd=a))
    res = leafwise("team", "status", "--json", cwd=b)
    assert res.code == 0
    (row,) = res.json["result"]["claims"]
    assert row["node_id"] == "T-1" and row["agent"] == "alice" and row["state"] == "held" and row["branch"] == "main"


def test_a_mirror_push_deletes_the_claims_and_repair_restores_them(two, tmp_path):
    a, b = two
    task = started(leafwise("start", "T-1", "--agent", "alice", "--json", cwd=a))
    plain = clone((a.parent / "plan.git").as_uri(), tmp_path / "plain")
    git(plain, "push", "-q", "--mirror", "origin")  # an ordinary clone has no refs/leafwise/*: they go
    beat = leafwise("heartbeat", task, "--agent", "alice", cwd=a)
    assert beat.code == 3 and "Fix: leafwise team repair --agent alice" in beat.stderr
    fixed = leafwise("team", "repair", "--json", cwd=a)
    assert fixed.code == 0 and fixed.json["result"]["restored"] == [task]
    assert leafwise("heartbeat", task, "--agent", "alice", cwd=a).code == 0


def test_an_unreachable_remote_is_a_wait_with_the_offline_claim_as_the_alternative(two):
    a, _ = two
    set_url(a, f"git://127.0.0.1:{free_port()}/plan.git")
    res = in_a_child("start", "--next", "--agent", "alice", cwd=a)
    assert res.code == 1
    lines = res.stderr.splitlines()
    assert lines[-2].startswith("Wait: the remote origin answers")
    assert lines[-1] == "Or: leafwise start --next --agent alice --offline"


def test_an_offline_claim_is_pushed_by_sync_and_a_lost_one_tells_the_agent_to_stop(two):
    a, b = two
    url = (a.parent / "plan.git").as_uri()
    set_url(a, f"git://127.0.0.1:{free_port()}/plan.git")
    for task in ("T-1", "T-2"):
        res = in_a_child("team", "claim", task, "--agent", "alice", cwd=a)
        assert res.code == 0 and "claimed offline" in res.stdout, res.stdout + res.stderr
    assert started(leafwise("start", "T-1", "--agent", "bob", "--json", cwd=b)) == "T-1"  # b is online
    set_url(a, url)
    sync = in_a_child("team", "sync", cwd=a)
    assert sync.code == 3, sync.stdout + sync.stderr
    assert "LOST T-1" in sync.stdout and "alice must stop working on it" in sync.stdout
    assert "pushed the offline claim on T-2 for alice" in sync.stdout
    assert remote_claim(a, "T-2")["agent"] == "alice" and remote_claim(a, "T-1")["agent"] == "bob"


def test_sync_cleans_a_tombstone_only_past_its_grace_period_and_only_when_done_here(two):
    a, b = two
    task = started(leafwise("start", "T-1", "--agent", "alice", "--json", cwd=a))
    assert leafwise("complete", task, "--summary", "ok", "--agent", "alice", cwd=a).code == 0
    kept = leafwise("team", "sync", "--json", cwd=b)  # b's plan does not say done: the tombstone stays
    assert kept.code == 0 and kept.json["result"]["cleaned"] == []
    kept = leafwise("team", "sync", "--json", cwd=a)  # done here, but not past 7 days
    assert kept.json["result"]["cleaned"] == []
    gone = leafwise("team", "sync", "--grace-days", "0", "--json", cwd=a)
    assert gone.json["result"]["cleaned"] == [task]
    assert task not in git(a, "ls-remote", "origin", "refs/leafwise/*")


def test_start_next_resumes_the_task_the_agent_holds(two):
    a, _ = two
    assert started(leafwise("start", "T-2", "--agent", "alice", "--json", cwd=a)) == "T-2"  # not the picker's first
    again = leafwise("start", "--next", "--agent", "alice", cwd=a)
    assert again.code == 0 and "Started T-2" in again.stdout and "resume T-2" in again.stdout, again.stdout
    assert remote_claim(a, "T-2")["seq"] == 1, "the resume renewed the claim on the remote"
