"""A claim ref that does not parse, planted on a bare repository served by `git daemon` on 127.0.0.1: every
answer about its task says what `start` says (`diagnose ID` included: never "ready to start"), and
`next` and the plan's `diagnose`, when nothing else is left, lead with that cause instead of the picker's "not ready"
line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import daemon, git, team_clones


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


def plant_garbage(bare: Path, node: str) -> None:
    """A commit whose claim.json is no claim, as a hostile team member could push it."""
    def run(*args: str, data: bytes) -> str:
        return subprocess.run(["git", "--git-dir", str(bare), *args], input=data, capture_output=True,
                              check=True).stdout.decode().strip()

    blob = run("hash-object", "-w", "--stdin", data=b'{"node": "nope"}')
    tree = run("mktree", data=f"100644 blob {blob}\tclaim.json\n".encode())
    git(bare, "update-ref", f"refs/leafwise/claims/{node}", run("commit-tree", tree, "-m", "x", data=b""))


@pytest.fixture
def team(tmp_path: Path):
    with daemon(tmp_path) as prefix:
        a, b = team_clones(tmp_path, lambda repo: f"{prefix}/{repo.name}", 2, tasks=2)
        plant_garbage(tmp_path / "plan.git", "T-1")
        yield a, b


@pytest.mark.slow
def test_diagnose_of_a_task_whose_claim_cannot_be_read_says_what_start_says(team):
    _, b = team
    start = leafwise("start", "T-1", "--agent", "bob", "--json", cwd=b)
    assert start.code == 3 and start.json["error"]["code"] == "claim_unreadable", start.stdout
    why = leafwise("diagnose", "T-1", "--agent", "bob", "--json", cwd=b)
    assert why.code == 0, why.stdout + why.stderr
    cause = why.json["result"]["root_cause"]
    assert "ready to start" not in cause["reason"]
    assert cause["reason"] == start.json["error"]["message"]
    assert why.json["_next_action"] == start.json["_next_action"], "one rule, one step"
    person = leafwise("diagnose", "T-1", "--json", cwd=b)  # a person's call: the person's own step
    assert person.json["_next_action"]["command"] == "leafwise team repair"
    assert "ready to start" in leafwise("diagnose", "T-2", "--agent", "bob", cwd=b).stdout, "the other task is"


@pytest.mark.slow
def test_next_leads_with_the_unreadable_claim_when_nothing_else_is_left(team):
    a, b = team
    assert leafwise("start", "T-2", "--agent", "alice", cwd=a).code == 0
    assert leafwise("complete", "T-2", "--summary", "ok", "--agent", "alice", cwd=a).code == 0
    git(a, "commit", "-qam", "T-2")
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--no-rebase", "origin", "main")
    answer = leafwise("next", "--agent", "bob", cwd=b)
    assert answer.code == 0, answer.stderr
    lines = answer.stdout.splitlines()
    assert lines[0].startswith("No task to hand out: 1 task(s) passed by, their claim unreadable: T-1"), lines
    assert not any("no open node is ready" in line for line in lines), lines
    assert answer.last_lines[-1] == "Wait: a person runs leafwise team repair"
    took = leafwise("start", "--next", "--agent", "bob", cwd=b)
    assert took.stdout.splitlines()[0].startswith("No task to hand out: 1 task(s) passed by"), took.stdout
    for args in (("next", "--agent", "bob"), ("start", "--next", "--agent", "bob")):  # the reason an MCP agent reads
        said = leafwise(*args, "--json", cwd=b).json["result"]["reason"]
        assert said == lines[0].removeprefix("No task to hand out: "), (args, said)
    why = leafwise("diagnose", "--agent", "bob", "--json", cwd=b)  # the plan as a whole: next's own lead
    assert why.code == 0, why.stdout + why.stderr
    assert why.json["result"]["root_cause"]["reason"] == lines[0], why.stdout
    assert why.json["_next_action"] == answer_json(b)["_next_action"], "one rule, one step"
    person = leafwise("diagnose", cwd=b)
    assert person.stdout.splitlines()[0].startswith("plan: team_claims — No task to hand out: 1 task(s) passed by, "
                                                    "their claim unreadable: T-1"), person.stdout
    assert person.last_lines[-1] == "Fix: leafwise team repair", person.stdout


def answer_json(work: Path):
    return leafwise("next", "--agent", "bob", "--json", cwd=work).json
