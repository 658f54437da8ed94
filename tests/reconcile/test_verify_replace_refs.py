"""What git shows Leafwise is what the work tree holds: no replace ref and no graft file of the repository
rewrites it (`store/git.py` SET_ENV).

Found in session 19's attack (h22i): a repository that arrives whole (a tarball, `cp -a`, a mirror) with
`refs/replace/<blob of app/export.py>` pointing at a blob that says `return write_csv_rows(...)`: `git status`
clean, the file on disk unchanged, and `verify P1-2 --verdict shipped --quote "return write_csv_rows(...)"`
was accepted and completed the leaf, since `cat-file` follows replace refs. (A `git replace --graft` or an
`info/grafts` file would rewrite the history the closing rule reads: neither is honoured either.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, plan_repo, run

REAL = "def export_orders_csv(orders):\n    return \",\".join(orders)\n"
FAKE = "def export_orders_csv(orders):\n    return write_csv_rows(orders, header=True)\n"


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    plan_repo(root)
    run(root, LEAFWISE, "add", "Export orders as CSV")
    (root / "app").mkdir()
    (root / "app" / "export.py").write_text(REAL)
    run(root, "git", "add", "-A")
    run(root, "git", "-c", "user.name=e", "-c", "user.email=e@x", "commit", "-q", "-m", "code")
    return root


def _hash_object(root: Path, text: str) -> str:
    return subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=text, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_a_replaced_blob_is_not_what_a_quote_is_checked_against(repo: Path) -> None:
    fake = _hash_object(repo, FAKE)
    real = subprocess.run(["git", "rev-parse", "HEAD:app/export.py"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()
    run(repo, "git", "replace", real, fake)
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""
    done = run(repo, LEAFWISE, "verify", "P1-1", "--verdict", "shipped", "--evidence", "app/export.py:2-2",
               "--quote", "return write_csv_rows(orders, header=True)", "--agent", "bot", "--json", code=None)
    answer = json.loads(done.stdout)
    assert answer["status"] == "error", answer
    status = json.loads(run(repo, LEAFWISE, "show", "P1-1", "--json").stdout)["result"]["status"]
    assert status != "done"
