"""Refs mode over `git daemon` on 127.0.0.1: a force-push that rewinds one claim ref (to an older commit of
its own chain, or to an unrelated commit) is found by every clone that saw a later commit: `team status`
and `team doctor` name it with `Fix: leafwise team repair`, the picker passes the task by, claim steps on
it are refused with the same Fix, and `team repair` puts the claim back so its holder goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import clone, daemon, git, team_clones

REF = "refs/leafwise/claims/T-1"


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


def remote_sha(bare: Path) -> str:
    return git(bare, "rev-parse", REF).strip()


def remote_state(bare: Path) -> dict:
    return json.loads(git(bare, "cat-file", "blob", f"{REF}:claim.json"))


@pytest.fixture
def team(tmp_path: Path):
    """Two clones over git daemon; alice holds T-1 in the first and renews it twice, the second fetches
    it. Yields (first, second, the bare repository, a person's plain clone, the chain of T-1's commits)."""
    with daemon(tmp_path) as prefix:
        a, b = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, tasks=3)
        bare = tmp_path / "plan.git"
        assert leafwise("start", "T-1", "--agent", "alice", cwd=a).code == 0
        chain = [remote_sha(bare)]
        for _ in range(2):
            assert leafwise("heartbeat", "T-1", "--agent", "alice", cwd=a).code == 0
            chain.append(remote_sha(bare))
        assert leafwise("team", "status", cwd=b).code == 0  # b has seen the last commit
        person = clone(f"{prefix}/plan.git", tmp_path / "person")
        yield a, b, bare, person, chain


def force_push(person: Path, sha: str) -> None:
    git(person, "fetch", "-q", "origin", f"+{REF}:refs/probe/T-1")
    git(person, "push", "-q", "--force", "origin", f"{sha}:{REF}")


@pytest.mark.slow
def test_a_claim_ref_rewound_to_an_older_commit_is_named_refused_and_put_back(team):
    a, b, bare, person, chain = team
    force_push(person, chain[0])
    status = leafwise("team", "status", "--json", cwd=b)
    assert status.code == 0, status.stdout + status.stderr
    assert status.json["result"]["rewound_claims"] == ["T-1"] and status.json["result"]["rewound"] is True
    assert status.json["_next_action"]["command"].startswith("leafwise team repair")
    assert "were rewound (a force-push): T-1" in leafwise("team", "status", cwd=b).stdout
    doctor = leafwise("team", "doctor", cwd=b)
    assert doctor.code == 3 and "rewound" in doctor.stderr and "Fix: leafwise team repair" in doctor.stderr
    took = leafwise("start", "T-1", "--agent", "bob", "--json", cwd=b)
    assert took.code == 3 and took.json["error"]["code"] == "claim_rewound", took.stdout
    assert took.json["_next_action"]["command"].startswith("leafwise team repair")
    picked = leafwise("start", "--next", "--agent", "bob", "--json", cwd=b)
    assert picked.code == 0 and picked.json["result"]["task"]["id"] == "T-2", "the picker passes T-1 by"
    beat = leafwise("heartbeat", "T-1", "--agent", "alice", "--json", cwd=a)  # the holder learns it on its push
    assert beat.code == 3 and beat.json["error"]["code"] == "claim_rewound", beat.stdout
    assert beat.json["_next_action"]["command"].startswith("leafwise team repair")
    assert remote_sha(bare) == chain[0], "a refused step pushes nothing"

    dry = leafwise("team", "repair", "--dry-run", "--json", cwd=b)
    assert dry.code == 0 and dry.json["result"]["rewound"] == ["T-1"] and remote_sha(bare) == chain[0]
    fixed = leafwise("team", "repair", "--json", cwd=b)
    assert fixed.code == 0, fixed.stdout + fixed.stderr
    assert "T-1" in fixed.json["result"]["restored"]
    assert remote_sha(bare) == chain[-1], "nothing moved since the rewind: the very commit comes back"
    assert leafwise("heartbeat", "T-1", "--agent", "alice", cwd=a).code == 0
    assert remote_state(bare)["seq"] == 3
    for work in (a, b):
        assert leafwise("team", "status", "--json", cwd=work).json["result"]["rewound_claims"] == []
    assert leafwise("team", "doctor", cwd=a).code == 0


@pytest.mark.slow
def test_a_claim_ref_forced_to_an_unrelated_commit_is_put_back_over_it(team):
    a, b, bare, person, chain = team
    body = json.dumps({"node": "T-1", "agent": "mallory", "clone": "evil-1", "branch": "main", "state": "held",
                       "ttl_s": 600, "seq": 9, "since": "", "stolen_from": "", "nonce": "ab"}).encode()
    blob = _object(person, body)
    tree = _mktree(person, blob)
    foreign = git(person, "commit-tree", tree, "-m", "not a claim step").strip()
    git(person, "push", "-q", "--force", "origin", f"{foreign}:{REF}")
    status = leafwise("team", "status", "--json", cwd=a)  # the holder's own clone
    assert status.json["result"]["rewound_claims"] == ["T-1"], status.stdout
    row = next(r for r in status.json["result"]["claims"] if r["node_id"] == "T-1")
    assert row["agent"] == "alice", "the row is the copy this clone last saw"
    nxt = leafwise("next", "--agent", "bob", "--json", cwd=b)
    assert nxt.json["result"]["task"]["id"] == "T-2"
    fixed = leafwise("team", "repair", "--json", cwd=a)
    assert fixed.code == 0 and "T-1" in fixed.json["result"]["restored"], fixed.stdout + fixed.stderr
    assert remote_state(bare)["agent"] == "alice"
    parents = git(bare, "log", "-n", "1", "--format=%P", REF).split()
    assert set(parents) == {foreign, chain[-1]}, "the claim put back descends from both sides"
    assert leafwise("team", "status", "--json", cwd=b).json["result"]["rewound_claims"] == []
    beat = leafwise("heartbeat", "T-1", "--agent", "alice", cwd=a)
    assert beat.code == 0, beat.stdout + beat.stderr
    assert leafwise("complete", "T-1", "--summary", "done", "--agent", "alice", cwd=a).code == 0
    assert remote_state(bare)["state"] == "done"


def _object(work: Path, body: bytes) -> str:
    import subprocess

    return subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=work, input=body, capture_output=True,
                          check=True).stdout.decode().strip()


def _mktree(work: Path, blob: str) -> str:
    import subprocess

    return subprocess.run(["git", "mktree"], cwd=work, input=f"100644 blob {blob}\tclaim.json\n".encode(),
                          capture_output=True, check=True).stdout.decode().strip()


@pytest.mark.slow
def test_a_fetch_that_read_its_copy_while_another_found_the_rewind_keeps_it(team):
    """Two processes of one clone fetch at once: the first finds the rewind and sets the copy back; the
    second read its copy before that (the rewound commit the first's fetch had written), so to it the
    ref has not moved. It must not forget the rewind the first recorded, nor leave the copy there."""
    from leafwise.commands.team import protocol, refs, remote

    a, b, bare, person, chain = team
    force_push(person, chain[0])
    team_b = remote.load_team(b)
    copy = refs.tracking_ref(team_b.remote, team_b.namespace, REF)
    remote.fetch(b, team_b)  # the first: finds the rewind
    assert "T-1" in protocol.rewound(team_b)
    refs.set_local(b, copy, chain[0])  # the copy as the first's fetch left it, when the second read it
    remote.fetch(b, team_b)  # the second: its `before` is the rewound commit
    assert "T-1" in protocol.rewound(team_b), "the rewind was forgotten"
    assert refs.local_refs(b, copy)[copy] == chain[-1], "the copy stays at the rewound commit"
