"""Claim refs a hostile team member pushes straight to the remote (a ref to a blob, garbage claim.json,
names that are no node id of this plan: `T-01`, `t-3`, `T-9`), through the real CLI in clones of a
file:// bare repository: `team status` shows only this plan's tasks, an unreadable claim is one state
with one step (a person's `team repair` deletes it, leased), and `team repair` never pushes back a copy
that does not parse as a claim of this plan's task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import copy_team, git, team_clones

PLANTED = ("T-1", "T-2", "T-3", "t-3", "T-01", "T-9")


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("team-hostile")
    team_clones(base, lambda repo: repo.as_uri(), 2, tasks=3)
    return base


@pytest.fixture
def team(template: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    a, b = copy_team(template, tmp_path / "team")
    return tmp_path / "team" / "plan.git", a, b


def claim(node: str, **changes) -> bytes:
    return json.dumps({"node": node, "agent": "alice", "clone": "evil-1", "branch": "main", "state": "held",
                       "ttl_s": 600, "seq": 1, "since": "", "stolen_from": "", "nonce": "ab"} | changes).encode()


def _object(bare: Path, *args: str, data: bytes) -> str:
    import subprocess

    return subprocess.run(["git", "--git-dir", str(bare), *args], input=data, capture_output=True,
                          check=True).stdout.decode().strip()


def commit_of(bare: Path, body: bytes) -> str:
    blob = _object(bare, "hash-object", "-w", "--stdin", data=body)
    tree = _object(bare, "mktree", data=f"100644 blob {blob}\tclaim.json\n".encode())
    return _object(bare, "commit-tree", tree, "-m", "x", data=b"")


def plant(bare: Path, skip: str = "") -> None:
    """What team_hostile.py's `malformed` pushes, written into the bare repository itself."""
    shas = {"T-1": _object(bare, "hash-object", "-w", "--stdin", data=claim("T-1")),  # a blob, not a commit
            "T-2": commit_of(bare, b'{"node":"T-2","ttl_s":1e400,"seq":1e400,"state":"held","agent":"a"}'),
            "T-3": commit_of(bare, b"\xff\xfe" + "{}".encode("utf-16")),
            "t-3": commit_of(bare, claim("t-3")), "T-01": commit_of(bare, claim("T-01")),
            "T-9": commit_of(bare, claim("T-9"))}
    for node, sha in shas.items():
        if node != skip:
            git(bare, "update-ref", f"refs/leafwise/claims/{node}", sha)


def remote_claims(bare: Path) -> set[str]:
    out = git(bare, "for-each-ref", "--format=%(refname)", "refs/leafwise/claims/")
    return {line.rsplit("/", 1)[1] for line in out.split()}


def cli(*args: str, cwd: Path):
    return run_cli_in_process(*args, "--json", cwd=cwd)


def test_an_unreadable_claim_is_one_state_a_persons_repair_clears(team):
    bare, _, b = team
    plant(bare)
    shown = cli("team", "status", cwd=b)
    assert shown.code == 0, shown.stderr
    rows = {row["node_id"]: row["state"] for row in shown.json["result"]["claims"]}
    assert rows == {"T-1": "unreadable", "T-2": "unreadable", "T-3": "unreadable"}  # no T-01, t-3, T-9
    assert shown.json["_next_action"]["command"] == "leafwise team repair"
    stuck = cli("next", "--agent", "bob", cwd=b)  # every task's claim is unreadable: named, with its step
    assert stuck.code == 0 and stuck.json["result"]["task"] is None, stuck.stderr
    assert "their claim unreadable: T-1, T-2, T-3" in run_cli_in_process("next", "--agent", "bob", cwd=b).stdout
    assert stuck.json["_next_action"]["condition"] == "a person runs leafwise team repair"
    assert cli("next", cwd=b).json["_next_action"]["command"] == "leafwise team repair"  # a person's call
    refused = cli("start", "T-1", "--agent", "bob", cwd=b)
    assert refused.json["error"]["code"] == "claim_unreadable", refused.json["error"]
    assert refused.json["_next_action"]["marker"] == "wait"
    assert "a person runs leafwise team repair" in refused.json["_next_action"]["condition"]
    by_agent = cli("team", "repair", "--agent", "bob", cwd=b)  # an agent's call deletes nothing
    assert by_agent.code == 0, by_agent.stderr
    assert by_agent.json["result"]["deleted"] == [] and by_agent.json["_next_action"]["marker"] == "wait"
    assert remote_claims(bare) == set(PLANTED)
    by_person = cli("team", "repair", cwd=b)
    assert sorted(by_person.json["result"]["deleted"]) == ["T-1", "T-2", "T-3"]
    assert remote_claims(bare) == {"t-3", "T-01", "T-9"}  # no task of this plan: left for their own plan
    started = cli("start", "--next", "--agent", "bob", cwd=b)
    assert started.code == 0, started.stdout + started.stderr
    assert started.json["result"]["task"]["id"] == "T-1"


def test_repair_restores_only_claims_of_this_plans_tasks(team):
    bare, a, b = team
    assert cli("start", "T-2", "--agent", "alice", cwd=a).code == 0
    plant(bare, skip="T-2")
    assert cli("team", "status", cwd=b).code == 0  # b's copies: alice's T-2 and every planted ref
    for node in remote_claims(bare):  # the remote drops every one (a push --mirror, say)
        git(bare, "update-ref", "-d", f"refs/leafwise/claims/{node}")
    repaired = cli("team", "repair", cwd=b)
    assert repaired.code == 0, repaired.stderr
    assert repaired.json["result"]["restored"] == ["T-2"]
    assert sorted(repaired.json["result"]["dropped"]) == sorted(set(PLANTED) - {"T-2"})
    assert remote_claims(bare) == {"T-2"}
    after = cli("team", "status", cwd=b)
    assert [(row["node_id"], row["agent"]) for row in after.json["result"]["claims"]] == [("T-2", "alice")]


@pytest.mark.slow
def test_thousands_of_refs_are_dropped_before_any_per_ref_work(team):
    bare, a, b = team
    assert cli("start", "T-1", "--agent", "alice", cwd=a).code == 0
    sha = commit_of(bare, claim("T-1000"))
    lines = "".join(f"create refs/leafwise/claims/T-{1000 + i} {sha}\ncreate refs/leafwise/x{i % 50}/deep/{i} {sha}\n"
                    for i in range(3000))
    import subprocess

    subprocess.run(["git", "--git-dir", str(bare), "update-ref", "--stdin"], input=lines.encode(), check=True)
    assert cli("team", "status", cwd=b).json["result"]["claims"][0]["node_id"] == "T-1"
    seen = cli("next", "--agent", "bob", cwd=b)
    assert seen.code == 0, seen.stderr
    assert seen.json["result"]["task"]["id"] == "T-2" and seen.json["result"]["claims"] == "fetched"
    copies = git(b, "for-each-ref", "--format=%(refname)", "refs/remotes-leafwise/").split()
    assert copies and not [ref for ref in copies if "/claims/" not in ref]  # only what team mode reads
    sightings = json.loads((b / ".git" / "leafwise" / "observed.json").read_text())["refs"]
    assert sorted(ref.rsplit("/", 1)[1] for ref in sightings) == ["T-1"]  # no per-ref work on the others
