"""A shipped verdict waiting for a person holds its draft back only as Leafwise writes one: quoting code,
each quote's file named with the blob it was found in, that file unchanged at HEAD. Before, verdict files
committed with `state: pending` on every draft (quoting `app/reset.py`, which the clone lacks, `files: {}`)
made `verify --next` answer "No draft left … Done." for good and refused every agent's verdict on them
("a person confirms or rejects it first"). Real git, a clone, the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, plan_repo, run

CODE = "def export_orders_csv(orders):"


def _plan(repo: Path) -> None:
    plan_repo(repo)
    run(repo, LEAFWISE, "add", "Export orders as CSV")
    (repo / "app").mkdir()
    (repo / "app" / "export.py").write_text(f"{CODE}\n    return ','.join(orders)\n")
    run(repo, "git", "add", "-A")
    run(repo, "git", "commit", "-q", "-m", "code")


def _blob(repo: Path, path: str) -> str:
    return run(repo, "git", "rev-parse", f"HEAD:{path}").stdout.strip()


def _planted(repo: Path, how: str) -> dict:
    real = _blob(repo, "app/export.py")
    quote = {"path": "app/export.py", "start": 1, "end": 1, "text": CODE, "blob": real, "kind": "code"}
    files = {"app/export.py": real}
    if how == "a file the clone lacks":
        quote, files = {**quote, "path": "app/reset.py", "blob": "1" * 40}, {}
    elif how == "no files":
        files = {}
    elif how == "docs only":
        quote = {**quote, "kind": "docs"}
    elif how == "another blob":
        files = {"app/export.py": "2" * 40}
    elif how == "a quote's blob not its file's":
        quote = {**quote, "blob": "3" * 40}
    elif how == "code changed since":
        files = {"app/export.py": "4" * 40}
        quote = {**quote, "blob": "4" * 40}
    return {"node": "P1-1", "verdict": "shipped", "agent": "Alice Maintainer", "at": "2026-12-01T00:00:00Z",
            "head": "0" * 40, "state": "pending", "quotes": [quote], "missing": "", "files": files,
            "decided_by": "", "note": ""}


HOW = ["a file the clone lacks", "no files", "docs only", "another blob", "a quote's blob not its file's",
       "code changed since"]


@pytest.mark.parametrize("how", HOW)
def test_a_planted_pending_verdict_holds_back_no_agent(tmp_path: Path, how: str) -> None:
    src = tmp_path / "src"
    _plan(src)
    (src / ".leafwise" / "verdicts").mkdir()
    (src / ".leafwise" / "verdicts" / "P1-1.json").write_text(json.dumps(_planted(src, how)))
    run(src, "git", "add", "-A")
    run(src, "git", "commit", "-q", "-m", "plant")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(src), str(clone)], check=True, capture_output=True)
    got = json.loads(run(clone, LEAFWISE, "verify", "--next", "--agent", "bot", "--json").stdout)
    assert got["result"]["id"] == "P1-1", got
    said = run(clone, LEAFWISE, "verify", "P1-1", "--verdict", "absent", "--missing", "nothing", "--agent", "bot",
               "--json", code=None)
    assert json.loads(said.stdout).get("status") == "ok", said.stdout


def test_a_pending_verdict_leafwise_wrote_waits_until_its_code_changes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _plan(repo)
    project = repo / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + "settings: {reconcile: {confirm: person}}\n")
    run(repo, "git", "commit", "-qam", "confirm by a person")
    run(repo, LEAFWISE, "verify", "P1-1", "--verdict", "shipped", "--evidence", "app/export.py:1-1", "--quote", CODE,
        "--agent", "bot")
    state = json.loads((repo / ".leafwise" / "verdicts" / "P1-1.json").read_text())["state"]
    assert state == "pending"
    run(repo, "git", "add", "-A")
    run(repo, "git", "commit", "-q", "-m", "verdict")
    none = json.loads(run(repo, LEAFWISE, "verify", "--next", "--agent", "other", "--json").stdout)
    assert none["result"]["id"] is None
    again = run(repo, LEAFWISE, "verify", "P1-1", "--verdict", "absent", "--missing", "x", "--agent", "other",
                "--json", code=None)
    assert json.loads(again.stdout)["error"]["code"] == "verdict_pending"
    (repo / "app" / "export.py").write_text("# gone\n")
    run(repo, "git", "commit", "-qam", "rewrite")
    back = json.loads(run(repo, LEAFWISE, "verify", "--next", "--agent", "other", "--json").stdout)
    assert back["result"]["id"] == "P1-1"
