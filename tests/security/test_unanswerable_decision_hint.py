"""A cloned plan's blocked node whose decision's options are unreadable (`options: 5`): `decide` refuses it
(exit 4), so no hint may send anyone there; `show` and `next` point to unblocking it instead (h22h). The
real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from testkit import run_cli


@pytest.mark.parametrize("options", ["5", "abc", "{a: 1}"])
def test_no_hint_sends_a_person_to_a_decision_that_cannot_be_answered(tmp_path: Path, options: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for argv in (("init", "--prefix", "P"), ("add", "One")):
        assert run_cli(*argv, cwd=root).code == 0
    path = root / ".leafwise" / "nodes" / "P-1.yaml"
    path.write_text(path.read_text().replace("status: draft", "status: blocked") + "blocked_reason: asked\n"
                    f"decision:\n  question: Which?\n  options: {options}\n")
    for argv in (("show", "P-1"), ("next",)):
        answer = json.loads(run_cli(*argv, "--json", cwd=root).stdout)["_next_action"]
        assert "decide" not in json.dumps(answer), (argv, answer)
    assert run_cli("decide", "P-1", "--option", "1", cwd=root).code != 0
