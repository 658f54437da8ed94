"""`--force` is a person's override (`Ctx.overrides`): every command that takes it, called with it by an agent, does
what it would without it (the registry's own list of such commands; a new one fails here until named)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from leafwise.commands.command_params import PARAMS
from testkit import node, run_cli, write_plan

FORCED = sorted(name for name, params in PARAMS.items() if any(p[0] == "force" for p in params))

# What bob, an agent, asks with --force on T-1 (ann's task) or against T-1's title: each is refused
# without it, so with it too.
AS_AGENT = {
    "add": ["add", "Export orders to CSV", "--release", "R1"],
    "block": ["block", "T-1", "--reason", "the API key is missing"],
    "complete": ["complete", "T-1", "--summary", "done"],
    "edit": ["edit", "T-1", "--set", "status=draft"],
    "unclaim": ["unclaim", "T-1"],
}


def test_every_forcing_command_is_tried() -> None:
    assert FORCED == sorted(AS_AGENT)


@pytest.mark.parametrize("name", FORCED)
def test_an_agents_force_takes_nothing(tmp_path: Path, name: str) -> None:
    write_plan(tmp_path, [node("T-1", "Export orders as CSV", release="R1"), node("T-2", "Write the docs", release="R1")])
    assert run_cli("start", "T-1", "--agent", "ann", cwd=tmp_path).code == 0
    files = {p: p.read_bytes() for p in (tmp_path / ".leafwise").rglob("*") if p.is_file() and ".cache" not in p.parts}
    plain = run_cli(*AS_AGENT[name], "--agent", "bob", cwd=tmp_path)
    forced = run_cli(*AS_AGENT[name], "--agent", "bob", "--force", cwd=tmp_path)
    assert plain.code == forced.code == 3, (plain.stderr, forced.stderr)
    assert forced.last_lines == plain.last_lines and "--force" not in forced.stderr
    after = {p: p.read_bytes() for p in (tmp_path / ".leafwise").rglob("*") if p.is_file() and ".cache" not in p.parts}
    assert after == files, "an agent's forced call changed the plan"
    person = run_cli(*AS_AGENT[name], "--force", cwd=tmp_path)
    assert person.code == 0, person.stderr  # the same call from a person goes through
    events = [json.loads(line) for line in (tmp_path / ".leafwise/journal.jsonl").read_text().splitlines()]
    assert events[-1]["actor"] != "bob"
