"""A pending shipped verdict is plan content: a clone brings it. `verify ID --decide confirm` checks its
quotes again in this clone; a planted quote whose path leads outside the repository (`../../etc/passwd`, an
absolute path) made `git ls-tree` fail and the command end in an internal error (exit 1, `GitError`,
Fix: doctor). Each planted place now meets the rule an agent's --evidence meets, and the verdict is refused
as not holding (exit 3), as are a reversed range and a quote of the plan's own files. Through the real CLI
on a real `git clone`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, plan_repo, run

QUOTE = "pub fn export_users_csv() {"


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    """A plan with P1-1 "Export users to CSV" and the code that does it, committed."""
    repo = tmp_path_factory.mktemp("origin") / "repo"
    plan_repo(repo)
    run(repo, LEAFWISE, "add", "Export users to CSV")
    (repo / "src").mkdir()
    (repo / "src/main.rs").write_text(f"{QUOTE}\n    write_csv(users);\n}}\n")
    run(repo, "git", "add", "-A")
    run(repo, "git", "commit", "-qm", "plan and code")
    return repo


@pytest.mark.parametrize("path, start, end", [("../../etc/passwd", 1, 1), ("/etc/passwd", 1, 1),
                                              ("src/main.rs", 2, 1), (".leafwise/nodes/P1-1.yaml", 1, 2)])
def test_a_planted_place_is_refused_as_not_holding(origin: Path, tmp_path: Path, path: str, start: int, end: int):
    source = tmp_path / "source"
    run(tmp_path, "git", "clone", "-q", str(origin), str(source))
    verdict = {"node": "P1-1", "verdict": "shipped", "agent": "bot", "at": "2026-12-04T23:00:00Z",
               "head": "0" * 40, "state": "pending", "missing": "", "files": {}, "decided_by": "", "note": "",
               "quotes": [{"path": path, "start": start, "end": end, "text": QUOTE, "blob": "", "kind": "code"}]}
    (source / ".leafwise/verdicts").mkdir(exist_ok=True)
    (source / ".leafwise/verdicts/P1-1.json").write_text(json.dumps(verdict))
    run(source, "git", "add", "-A")
    run(source, "git", "commit", "-qm", "planted verdict")
    clone = tmp_path / "clone"
    run(tmp_path, "git", "clone", "-q", str(source), str(clone))
    done = run(clone, LEAFWISE, "verify", "P1-1", "--decide", "confirm", code=3)
    assert "shipped verdict does not hold in this clone" in done.stderr, done.stderr
    assert "GitError" not in done.stdout + done.stderr
    assert "status: draft" in (clone / ".leafwise/nodes/P1-1.yaml").read_text()
