"""Refs mode over `git daemon` on 127.0.0.1: a claim ref the protocol deleted (a `done` tombstone `team sync`
cleaned, an unreadable claim a person's `team repair` dropped) and then claimed anew starts a new chain
that shares no commit with the copy another clone kept. That clone follows it (no rewind: the new holder
is named, the task refused as held), while the old chain pushed back afterwards is a rewind in every
clone (rewinds.py's definition)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import daemon, git, team_clones

from .test_unreadable_claim_answers import plant_garbage


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


def tip(bare: Path, node: str) -> str:
    return git(bare, "for-each-ref", "--format=%(objectname)", f"refs/leafwise/claims/{node}").strip()


def status(work: Path) -> dict:
    answer = leafwise("team", "status", "--json", cwd=work)
    assert answer.code == 0, answer.stdout + answer.stderr
    return answer.json["result"]


@pytest.mark.slow
def test_a_claim_made_anew_after_a_delete_is_followed_and_its_old_chain_pushed_back_is_a_rewind(tmp_path):
    with daemon(tmp_path) as prefix:
        a, b = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, tasks=2)
        bare = tmp_path / "plan.git"
        plant_garbage(bare, "T-2")
        assert leafwise("start", "T-1", "--agent", "alice", cwd=a).code == 0
        assert leafwise("complete", "T-1", "--summary", "ok", "--agent", "alice", cwd=a).code == 0
        tombstone = tip(bare, "T-1")
        assert status(b)["rewound_claims"] == []  # b keeps copies of the tombstone and the garbage

        synced = leafwise("team", "sync", "--grace-days", "0", "--json", cwd=a)
        assert synced.code == 0 and synced.json["result"]["cleaned"] == ["T-1"], synced.stdout + synced.stderr
        repaired = leafwise("team", "repair", "--json", cwd=a)  # a person's call: drops the unreadable claim
        assert repaired.code == 0 and tip(bare, "T-2") == "", repaired.stdout + repaired.stderr
        assert leafwise("edit", "T-1", "--set", "status=draft", "--force", cwd=a).code == 0  # a person reopens it
        assert leafwise("start", "T-1", "--agent", "carol", cwd=a).code == 0
        assert leafwise("heartbeat", "T-1", "--agent", "carol", cwd=a).code == 0  # the new chain grows
        assert leafwise("start", "T-2", "--agent", "dave", cwd=a).code == 0
        assert git(bare, "log", "--format=%P", f"refs/leafwise/claims/T-1~1").strip() == "", "a new first commit"

        seen = status(b)
        assert seen["rewound_claims"] == [], seen
        holders = {row["node_id"]: (row["agent"], row["state"]) for row in seen["claims"]}
        assert holders == {"T-1": ("carol", "held"), "T-2": ("dave", "held")}, holders
        took = leafwise("start", "T-1", "--agent", "bob", "--json", cwd=b)
        assert took.code == 3 and took.json["error"]["code"] == "claim_held", took.stdout

        git(bare, "update-ref", "refs/leafwise/claims/T-1", tombstone)  # a stale mirror pushes the old chain back
        for work in (b, a):  # b followed past it; a deleted it itself
            assert status(work)["rewound_claims"] == ["T-1"], work
        beat = leafwise("heartbeat", "T-1", "--agent", "carol", "--json", cwd=a)
        assert beat.code == 3 and beat.json["error"]["code"] == "claim_rewound", beat.stdout
        fixed = leafwise("team", "repair", "--json", cwd=a)
        assert fixed.code == 0 and "T-1" in fixed.json["result"]["restored"], fixed.stdout + fixed.stderr
        claim = json.loads(git(bare, "cat-file", "blob", "refs/leafwise/claims/T-1:claim.json"))
        assert (claim["agent"], claim["state"]) == ("carol", "held"), claim
        assert status(b)["rewound_claims"] == []
