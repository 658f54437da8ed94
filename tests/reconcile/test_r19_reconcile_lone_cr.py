"""Reconcile's file:line evidence and the verify packet number lines as git does (at LF only), like the
quote check: a committed file holding lone CRs before a definition made reconcile and the packet name
line 1004 (`src/export.js:1004`) where git, sed and the quote check see line 3, so the line a person or
agent was shown was not the line checked. Real git, the real CLI, several layouts of lone CRs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, plan_repo, run

CODE = "function exportUsersCsv(users) {"
LAYOUTS = {
    "one lone CR": "// a\r// b\n" + CODE,
    "a run of CRs": "// a\r\n" + "\r" * 1000 + CODE,
    "CR-only header": "// a\r// b\r// c\r\n\n" + CODE,
    "CRLF file": "// a\r\n// b\r\n" + CODE,
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_evidence_lines_are_the_lines_git_numbers(tmp_path: Path, layout: str) -> None:
    repo = tmp_path / "repo"
    plan_repo(repo)
    run(repo, LEAFWISE, "add", "Export users to CSV")
    (repo / "src").mkdir()
    body = LAYOUTS[layout] + "\r\n  return users.join(',');\r\n}\r\n"
    (repo / "src" / "export.js").write_bytes(body.encode())
    run(repo, "git", "add", "-A")
    run(repo, "git", "commit", "-q", "-m", "code")
    blob = subprocess.run(["git", "show", "HEAD:src/export.js"], cwd=repo, capture_output=True, check=True).stdout
    committed = blob.decode().split("\n")  # bytes: text mode would read a lone CR as a line end
    line = next(n for n, text in enumerate(committed, 1) if "exportUsersCsv" in text)
    found = json.loads(run(repo, LEAFWISE, "reconcile", "--json").stdout)["result"]["suggestions"]
    places = [e for s in found for e in s.get("evidence", []) if e.get("path") == "src/export.js"]
    assert places and all(e["line"] == line for e in places), (line, places)
    packet = json.loads(run(repo, LEAFWISE, "verify", "P1-1", "--json").stdout)["result"]["places"]
    at = [p for p in packet if p["path"] == "src/export.js"]
    assert at and at[0]["start"] <= line <= at[0].get("end", at[0]["start"]), (line, at)
    quote = committed[line - 1].rstrip("\r")
    ok = run(repo, LEAFWISE, "verify", "P1-1", "--verdict", "shipped", "--evidence", f"src/export.js:{line}-{line}",
             "--quote", quote.split("\r")[-1], "--agent", "honest", "--json")
    assert json.loads(ok.stdout)["status"] == "ok"
