"""A quote's lines are numbered as git, sed and editors number them: at newlines only. Python's
`str.splitlines` also ends a line at U+2028, U+2029, U+0085, \\x0b, \\x0c and \\x1c-\\x1e; a committed file holding
two of them (or two lone CRs) before the feature made `verify` accept a quote of line 3 (a TODO) given as line 5, where `sed -n 5p`
shows the real code, and refuse the true range (h22g). One rule (`reader.lines`) for quotes, packets, sampling
requests and declared checks. Real git, the real CLI, every separator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit.repos import LEAFWISE, plan_repo, run

SEPARATORS = ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r"]
CODE = "pub fn export_users_csv() {"
TODO = "// TODO: the export is not written yet"


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
def test_a_quote_is_checked_against_the_line_git_numbers(tmp_path: Path, sep: str) -> None:
    repo = tmp_path / "repo"
    plan_repo(repo)
    run(repo, LEAFWISE, "add", "Export users to CSV")
    (repo / "src").mkdir()
    text = f"// header\n// a note{sep}over{sep}three parts\n{TODO}\n{CODE}\n    write_csv(users);\n}}\n"
    (repo / "src" / "main.rs").write_text(text, encoding="utf-8", newline="")
    run(repo, "git", "add", "-A")
    run(repo, "git", "commit", "-q", "-m", "code")
    assert run(repo, "sed", "-n", "4p", "src/main.rs").stdout.strip() == CODE
    node = "P1-1"
    lie = run(repo, LEAFWISE, "verify", node, "--verdict", "shipped", "--evidence", "src/main.rs:5-5",
              "--quote", TODO, "--agent", "mallory", "--json", code=None)
    assert lie.returncode != 0 and json.loads(lie.stdout)["error"]["code"] == "evidence_quote_not_found", lie.stdout
    assert "(it is at lines 3-3)" in lie.stdout  # the honest hint numbers lines as git does too
    packet = json.loads(run(repo, LEAFWISE, "verify", node, "--json").stdout)["result"]["places"]
    at = next(p for p in packet if p["path"] == "src/main.rs")
    if sep != "\r":  # the index reads a lone CR as a line end (universal newlines): a packet's lines are off by it
        assert CODE.split("(")[0] in at["snippet"] and at["start"] == 4, at
    true = run(repo, LEAFWISE, "verify", node, "--verdict", "shipped", "--evidence", "src/main.rs:4-4",
               "--quote", CODE, "--agent", "honest", "--json")
    assert json.loads(true.stdout)["status"] == "ok"
