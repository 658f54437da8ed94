"""`leafwise progress` draws its bars by the one rule (`commands.core.progress.filled_cells`): a little
progress shows a cell, nearly done is not a full bar, and a release with nothing to count is dotted.

The real CLI in a subprocess over a real plan in a tmp folder."""

from __future__ import annotations

from leafwise.commands.core.progress import filled_cells
from testkit import node, run_cli, write_plan


def leaves(release: str, prefix: str, done: int, total: int) -> list[dict]:
    return [node(f"T-{prefix}{i}", f"Leaf {prefix}{i}", "done" if i < done else "draft", release=release,
                 **({"summary": "shipped"} if i < done else {})) for i in range(total)]


def release_bar(stdout: str, release: str) -> str:
    line = next(line for line in stdout.splitlines() if line.strip().startswith(release + " "))
    return line.split()[1]


def test_the_cli_bar_shows_a_little_progress_and_fills_only_when_all_is_done(tmp_path):
    root = write_plan(tmp_path / "repo", leaves("R1", "1", 1, 40) + leaves("R2", "2", 39, 40)
                      + [node("T-30", "Dropped", "cancelled", release="R3", reason="not needed")])
    answer = run_cli("progress", cwd=root)
    assert answer.code == 0, answer.stderr
    assert release_bar(answer.stdout, "R1") == "█" * 1 + "░" * 19 == "█" * filled_cells(1, 40, 20) + "░" * 19
    assert release_bar(answer.stdout, "R2") == "█" * 19 + "░" == "█" * filled_cells(39, 40, 20) + "░"
    assert release_bar(answer.stdout, "R3") == "·" * 20  # all cancelled: nothing to count
