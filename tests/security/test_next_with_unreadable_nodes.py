"""`next` when node files do not load (a clone whose node files are all broken, or whose one open task's file
is): it answered "the plan has no nodes yet, Next: leafwise add" (h22f, payload 28), and with every loaded node
done, "Done." while the broken file may hold open work. Now it waits for a person to fix the files it names.
The real CLI, text and --json."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from testkit import run_cli


def plan(tmp_path: Path, finished: bool) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for argv in (("init", "--prefix", "P"), ("add", "One"), ("add", "Two")):
        assert run_cli(*argv, cwd=root).code == 0
    if finished:
        assert run_cli("start", "P-1", "--agent", "a", cwd=root).code == 0
        assert run_cli("complete", "P-1", "--summary", "done", "--agent", "a", cwd=root).code == 0
    broken = ["P-2"] if finished else ["P-1", "P-2"]
    for node_id in broken:
        (root / ".leafwise" / "nodes" / f"{node_id}.yaml").write_text("id: [broken\n")
    return root


@pytest.mark.parametrize("finished", [False, True], ids=["every file broken", "the open task's file broken"])
def test_next_waits_for_a_person_to_fix_the_files(tmp_path: Path, finished: bool) -> None:
    root = plan(tmp_path, finished)
    text = run_cli("next", cwd=root).stdout
    answer = json.loads(run_cli("next", "--json", cwd=root).stdout)
    assert "P-2.yaml" in text and "no nodes yet" not in text and "Done." not in text, text
    assert answer["_next_action"]["marker"] == "wait", answer["_next_action"]
    assert "P-2.yaml" in answer["_next_action"]["condition"]
