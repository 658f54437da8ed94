"""Branch mode (a host whose pre-receive accepts only heads and tags, served by `git daemon` on 127.0.0.1):
a force-push that rewinds the state branch to an older commit is detected by every clone that saw a
later tip (the remote's tip no longer descends from it), named by `team status` and `team doctor` with
`Fix: leafwise team repair`, refused by claim steps with the same Fix, and `team repair` puts the claims
back: exactly the last tip seen when nobody moved since, or on top of what another clone did after."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit import run_cli_in_process
from testkit.gitserver import bare_repo, clone, daemon, git, seed_plan

STATE = "refs/heads/leafwise/state"
COPY = "refs/remotes-leafwise/origin/leafwise/state"


def leafwise(*args: str, cwd: Path):
    return run_cli_in_process(*args, cwd=cwd)


def remote_tip(work: Path) -> str:
    return git(work, "ls-remote", "origin", STATE).split()[0]


def claim_files(work: Path, rev: str) -> list[str]:
    return git(work, "ls-tree", "--name-only", rev).split()


@pytest.fixture
def rewound(tmp_path: Path):
    """Two clones in branch mode over git daemon; alice and ann claim in the first, bob in the second;
    then a person force-pushes the state branch back to its first commit (alice's claim only).
    Yields (first, second, a plain clone of the person, the tip before the rewind)."""
    repo = bare_repo(tmp_path, strict=True)
    a = seed_plan(repo, tmp_path / "clone-0", tasks=4)
    with daemon(tmp_path) as prefix:
        git(a, "remote", "set-url", "origin", f"{prefix}/plan.git")
        assert "branch mode" in leafwise("team", "init", cwd=a).stdout
        git(a, "add", "-A")
        git(a, "commit", "-q", "-m", "team mode")
        git(a, "push", "-q", "origin", "main")
        b = clone(f"{prefix}/plan.git", tmp_path / "clone-1")
        assert leafwise("team", "join", cwd=b).code == 0
        for work, task, agent in ((a, "T-1", "alice"), (a, "T-2", "ann"), (b, "T-3", "bob")):
            assert leafwise("start", task, "--agent", agent, cwd=work).code == 0
        assert leafwise("team", "status", cwd=a).code == 0 and leafwise("team", "status", cwd=b).code == 0
        before = remote_tip(a)
        person = clone(f"{prefix}/plan.git", tmp_path / "person")
        git(person, "fetch", "-q", "origin", f"{STATE}:refs/heads/state")
        first = git(person, "rev-list", "--max-parents=0", "state").split()[0]
        assert claim_files(person, first) == ["T-1.json"]
        git(person, "push", "-q", "--force", "origin", f"{first}:{STATE}")  # the rewind, for real
        assert remote_tip(person) == first
        yield a, b, person, before


@pytest.mark.slow
def test_a_rewound_state_branch_is_named_refused_and_repaired_to_the_last_tip_seen(rewound):
    a, b, person, before = rewound
    status = leafwise("team", "status", "--json", cwd=a)
    assert status.code == 0, status.stdout + status.stderr
    assert status.json["result"]["rewound"] is True
    assert status.json["_next_action"]["command"] == "leafwise team repair"
    assert {c["node_id"] for c in status.json["result"]["claims"]} == {"T-1", "T-2", "T-3"}, "the copy kept"
    text = leafwise("team", "status", cwd=a)
    assert "was rewound (a force-push)" in text.stdout and text.last_lines[-1].startswith("Fix: leafwise team repair")
    doctor = leafwise("team", "doctor", cwd=b)
    assert doctor.code == 3 and "was rewound" in doctor.stderr, doctor.stdout + doctor.stderr
    assert "Fix: leafwise team repair" in doctor.stderr
    beat = leafwise("heartbeat", "T-2", "--agent", "ann", cwd=a)
    assert beat.code == 3 and "Fix: leafwise team repair" in beat.stderr, beat.stdout + beat.stderr
    assert git(a, "rev-parse", COPY).strip() == before, "a refused step keeps the copy"

    dry = leafwise("team", "repair", "--dry-run", "--json", cwd=a)
    assert dry.code == 0 and dry.json["result"]["rewound"] and dry.json["result"]["restored"] == []
    fixed = leafwise("team", "repair", "--json", cwd=a)
    assert fixed.code == 0, fixed.stdout + fixed.stderr
    assert fixed.json["result"]["restored"] == ["T-1", "T-2", "T-3"]
    assert remote_tip(person) == before, "nothing moved since the rewind: the very tip comes back"
    assert leafwise("heartbeat", "T-2", "--agent", "ann", cwd=a).code == 0
    assert leafwise("heartbeat", "T-3", "--agent", "bob", cwd=b).code == 0, "the other clone goes on"
    assert leafwise("team", "status", "--json", cwd=b).json["result"]["rewound"] is False
    assert leafwise("team", "doctor", cwd=b).code == 0


@pytest.mark.slow
def test_repair_after_a_rewind_keeps_what_a_clone_did_on_the_rewound_branch(rewound, tmp_path):
    a, _, person, _ = rewound
    fresh = clone(git(person, "remote", "get-url", "origin").strip(), tmp_path / "fresh")
    assert leafwise("team", "join", cwd=fresh).code == 0  # saw only the rewound branch: nothing to detect
    assert leafwise("team", "status", "--json", cwd=fresh).json["result"]["rewound"] is False
    assert leafwise("start", "T-4", "--agent", "dan", cwd=fresh).code == 0
    fixed = leafwise("team", "repair", "--json", cwd=a)
    assert fixed.code == 0 and fixed.json["result"]["kept_remote"] == [], fixed.stdout + fixed.stderr
    tip = remote_tip(person)
    git(person, "fetch", "-q", "origin", f"+{STATE}:refs/heads/state")
    assert claim_files(person, "state") == ["T-1.json", "T-2.json", "T-3.json", "T-4.json"]
    assert leafwise("heartbeat", "T-4", "--agent", "dan", cwd=fresh).code == 0, "dan's claim is a fast-forward away"
    assert leafwise("heartbeat", "T-2", "--agent", "ann", cwd=a).code == 0
    assert remote_tip(person) != tip
