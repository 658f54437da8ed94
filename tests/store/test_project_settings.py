"""A planted lease length in project.yaml is that file's problem, with its line, never a crash nor a lease
that expires at once (a negative TTL would let two agents take one task)."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import node, run_cli, write_plan


def plan_with_ttl(root: Path, value: str) -> Path:
    write_plan(root, [node("T-1", "Epic", release="R1"), node("T-2", "Leaf", parent="T-1")])
    project = root / ".leafwise" / "project.yaml"
    project.write_text(project.read_text() + f"settings: {{claim_ttl_minutes: {value}}}\n")
    return root


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "1e400", "-1", "0", "10081", "abc", "true", "[1]"])
def test_a_planted_lease_length_is_the_files_problem(tmp_path, value):
    root = plan_with_ttl(tmp_path, value)
    started = run_cli("start", "--next", "--agent", "a", cwd=root)
    assert started.code == 4, started.stdout + started.stderr
    assert "project.yaml:" in started.stderr and "claim_ttl_minutes" in started.stderr
    assert "Traceback" not in started.stderr and "Error" in started.stderr
    assert not (root / ".leafwise" / "claims").exists() or not any((root / ".leafwise" / "claims").iterdir())
    checked = run_cli("validate", cwd=root)
    line = next(n for n, text in enumerate((root / ".leafwise" / "project.yaml").read_text().splitlines(), 1)
                if text.startswith("settings"))
    assert checked.code == 4 and f"project.yaml:{line}" in checked.stdout + checked.stderr


@pytest.mark.parametrize("value", ["1", "30", "10080", "90.5"])
def test_a_sound_lease_length_is_used(tmp_path, value):
    root = plan_with_ttl(tmp_path, value)
    started = run_cli("start", "--next", "--agent", "a", "--json", cwd=root)
    assert started.code == 0, started.stderr
    assert run_cli("validate", cwd=root).code == 0
