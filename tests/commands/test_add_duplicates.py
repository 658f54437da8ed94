"""`add`'s near-duplicate refusal through the real CLI, on the pallets/click breakdown that used to be refused."""

from __future__ import annotations

import shlex
from pathlib import Path

from testkit import node, node_data, run_cli, write_plan


def test_breaking_an_epic_into_its_shells_is_not_refused(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("CLK-1", "Shell completion", release="R1")], prefix="CLK")
    for title in ("Bash shell completion", "Zsh shell completion", "Fish shell completion", "PowerShell completion",
                  "Nushell shell completion"):
        res = run_cli("add", title, "--parent", "CLK-1", cwd=tmp_path)
        assert res.code == 0, (title, res.stderr)
    assert node_data(tmp_path, "CLK-6")["title"] == "Nushell shell completion"


def test_a_real_duplicate_is_refused_a_person_may_add_anyway_an_agent_may_not(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("CLK-1", "Export orders as CSV", release="R1")], prefix="CLK")
    res = run_cli("add", "Export orders to CSV", "--release", "R1", "--json", cwd=tmp_path)
    assert res.code == 3, res.stdout
    assert res.json["error"]["details"] == {"duplicate": "CLK-1", "title": "Export orders as CSV",
                                            "why": "the same words"}
    assert res.json["_next_action"]["command"] == "leafwise show CLK-1"
    forced = res.json["_next_action"]["or"]
    assert forced == 'leafwise add "Export orders to CSV" --release R1 --force'
    agent = run_cli("add", "Export orders to CSV", "--release", "R1", "--agent", "a1", cwd=tmp_path)
    assert agent.code == 3 and "--force" not in agent.stderr
    assert agent.stderr.splitlines()[-1] == "Fix: leafwise show CLK-1 --agent a1"
    assert run_cli(*shlex.split(forced)[1:], cwd=tmp_path).code == 0
    assert node_data(tmp_path, "CLK-2")["title"] == "Export orders to CSV"
