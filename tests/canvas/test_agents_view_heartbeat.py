"""The Agents view shows an agent's own last sign of life, never a person's action on its task.

A person's answer to a decision gives the task back to its asker with a fresh lease: the lease file's
time is the person's, and an agent silent for two hours must not read "heartbeat just now".
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from leafwise.canvas.screens.agents import AgentsScreen
from leafwise.commands.registry import Ctx, load_all
from leafwise.commands.runner import execute
from leafwise.store import PlanPaths
from leafwise.store import claims as leases
from leafwise.store.timestamps import to_text
from testkit.canvas import FIXED_NOW, canvas, open_view, ready, until

AGENT_TIME = FIXED_NOW - timedelta(hours=2)
PERSON_TIME = FIXED_NOW - timedelta(minutes=1)

pytestmark = pytest.mark.anyio


def run_at(root: Path, when, name: str, **arguments: Any) -> dict[str, Any]:
    """Run a command as at `when`: its clock, and the journal lines it appends dated then too (the
    journal stamps the wall clock; this is the plan as it would stand after that time passed)."""
    journal = PlanPaths(root).journal
    before = len(journal.read_text().splitlines()) if journal.exists() else 0
    outcome = execute(load_all()[name], Ctx(cwd=root, clock=lambda: when), arguments)
    assert outcome.envelope["status"] == "ok", outcome.envelope
    lines = journal.read_text().splitlines()
    dated = [json.dumps({**json.loads(line), "time": to_text(when)}) for line in lines[before:]]
    journal.write_text("\n".join(lines[:before] + dated) + "\n")
    return outcome.envelope


async def test_a_persons_decision_does_not_make_the_asker_look_alive(demo_plan, tmp_path, monkeypatch):
    monkeypatch.setenv("LEAFWISE_USER", "pat")
    monkeypatch.delenv("LEAFWISE_AGENT", raising=False)
    run_at(demo_plan, AGENT_TIME, "start", node_id="SHOP-18", agent="a1", ttl=600)
    run_at(demo_plan, AGENT_TIME, "start", node_id="SHOP-42", agent="a1", ttl=600)  # at work on another task
    run_at(demo_plan, AGENT_TIME, "ask", node_id="SHOP-18", question="Card or invoice?",
           option=("A: card", "B: invoice"), agent="a1")
    run_at(demo_plan, PERSON_TIME, "decide", node_id="SHOP-18", option=1)
    lease = leases.read(PlanPaths(demo_plan), "SHOP-18")
    assert lease is not None and lease.agent == "a1" and lease.heartbeat == to_text(PERSON_TIME), \
        "the decision gives SHOP-18 back to a1 with the person's fresh lease: the case this test is about"
    journal = [json.loads(x) for x in PlanPaths(demo_plan).journal.read_text().splitlines()]
    assert {e["actor"] for e in journal if e["command"] in ("decide", "unblock")} == {"pat"}

    app = canvas(demo_plan, tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        listing = await open_view(app, pilot, "A", AgentsScreen, "agents-list")
        await until(pilot, lambda: any("a1" in str(listing.get_option_at_index(i).prompt)
                                       for i in range(listing.option_count)))
        lane = next(str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)
                    if "a1" in str(listing.get_option_at_index(i).prompt))
    rows = {line.split()[0]: line for line in lane.splitlines()[1:] if line.strip()}
    assert "heartbeat 2h ago" in rows["SHOP-18"] and "just now" not in rows["SHOP-18"], lane
    assert "heartbeat 2h ago" in rows["SHOP-42"], lane
    assert lane.splitlines()[0].startswith("● stale"), lane
