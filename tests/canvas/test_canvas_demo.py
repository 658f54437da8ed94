"""`leafwise demo`'s parts: the plan copy and the simulated agent, a real process running the real CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest
from leafwise.canvas.demo.launch import prepare, start_agent, stop_agent
from testkit import journal, run_cli, wait_until


@pytest.mark.slow
def test_the_demo_agent_follows_the_loop_through_the_cli(tmp_path):
    root = prepare(tmp_path)
    before = len(journal(root))
    proc = subprocess.run([sys.executable, "-P", "-m", "leafwise.canvas.demo.agent", "--root", str(root),
                           "--speed", "0.05", "--seed", "7", "--max-tasks", "4"],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Stopped after 4 task(s)" in proc.stdout
    events = journal(root)[before:]
    assert {e["actor"] for e in events} == {"demo-agent"}
    starts = [e["node"] for e in events if e["command"] == "start"]
    finished = [e for e in events if e["command"] in ("complete", "block", "ask")]
    assert len(starts) == 4 and [e["node"] for e in finished] == starts
    assert all(e.get("summary") for e in finished if e["command"] == "complete")
    assert run_cli("validate", cwd=root).code == 0


def test_the_demo_agent_stops_when_told(tmp_path):
    root = prepare(tmp_path)
    proc = start_agent(root, speed=0.3, log_path=tmp_path / "agent.log", delay=0)
    wait_until(lambda: proc.poll() is not None or any(e.get("actor") == "demo-agent" for e in journal(root)),
               60, what="the demo agent's first write")
    assert proc.poll() is None, "the demo agent ended on its own"
    stop_agent(proc)
    assert proc.returncode == 0
    assert (tmp_path / "agent.log").read_text().rstrip().endswith("Stopped.")
    assert run_cli("validate", cwd=root).code == 0


def test_the_demo_plan_copy_is_fresh_and_valid(tmp_path):
    root = prepare(tmp_path)
    assert (root / ".leafwise" / "project.yaml").is_file()
    assert not (root / ".leafwise" / ".cache").exists()
    env = run_cli("next", "--json", cwd=root).json
    assert env["_next_action"]["command"].startswith(("leafwise start SHOP-", "leafwise start --next"))
