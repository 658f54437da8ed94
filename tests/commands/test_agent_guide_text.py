"""`agent-guide` teaches the race-free loop and the near-duplicate refusal as they are."""

from __future__ import annotations

from pathlib import Path

from testkit import node, run_cli, write_plan


def test_the_guide_teaches_start_next_and_how_a_duplicate_is_refused(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    text = run_cli("agent-guide", cwd=tmp_path).stdout
    assert "`leafwise start --next --agent <you>`" in text
    assert "`leafwise next --agent <you>`:" not in text and "start ID --agent" not in text
    assert "refuses a title that repeats" in text and "warns" not in text and "(`--force`)" in text


def test_the_guide_saved_to_a_file_holds_no_marker_line(tmp_path: Path) -> None:
    """`leafwise agent-guide > AGENTS.md`: stdout is the document; its next action goes to stderr."""
    write_plan(tmp_path, [node("T-1", "A", release="R1")])
    answer = run_cli("agent-guide", cwd=tmp_path)
    assert answer.code == 0
    assert not [line for line in answer.stdout.splitlines() if line.startswith(("Next: ", "Or: ", "Done."))]
    assert answer.stderr.strip().splitlines() == ["Next: leafwise context"]
