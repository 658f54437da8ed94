"""A scripted agent runs a whole project from `context` to `Done.` using only the hints."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import yaml
from testkit import node, run_cli, write_plan

PLAN = [
    node("W-1", "Accounts", "draft", release="R1"),
    node("W-2", "Sign-in", "draft", parent="W-1"),
    node("W-3", "Login form", "draft", parent="W-2"),
    node("W-4", "Session cookie", "draft", parent="W-2", depends_on=["W-3"]),
    node("W-5", "Password reset by email", "draft", parent="W-1", depends_on=["W-4"]),
    node("W-6", "Catalog", "draft", release="R1"),
    node("W-7", "Product list", "draft", parent="W-6"),
    node("W-8", "Product page", "draft", parent="W-6"),
    node("W-9", "Payments", "draft", release="R2"),
    node("W-10", "Stripe checkout", "draft", parent="W-9", depends_on=["W-8"]),
    node("W-11", "Refunds", "draft", parent="W-9", cascade="manual"),
    node("W-12", "Partial refunds", "draft", parent="W-11"),
]
EXPECTED_ORDER = ["W-3", "W-4", "W-5", "W-7", "W-8", "W-12", "W-10", "W-11"]


def fill(command: str, task_id: str) -> list[str]:
    """The hint's command as argv; only value placeholders are filled in, never ids."""
    args = shlex.split(command)
    assert args[0] == "leafwise"
    values = {"<agent>": "agent-1", "<summary>": f"Implemented {task_id} with tests"}
    out = [values.get(a, a) for a in args[1:]]
    assert not any(a.startswith("<") and a.endswith(">") for a in out), command
    return out


@pytest.mark.slow
def test_agent_runs_the_plan_to_done_following_hints(tmp_path: Path) -> None:
    write_plan(tmp_path, PLAN, releases=("R1", "R2"), prefix="W")
    env = run_cli("context", "--json", cwd=tmp_path).json
    action = env["_next_action"]
    started: list[str] = []
    cascades: dict[str, list[tuple[str, str, str]]] = {}
    for _step in range(60):
        if action["marker"] == "done":
            break
        assert action["marker"] == "next", action
        args = fill(action["command"], started[-1] if started else "")
        res = run_cli(*args, "--json", cwd=tmp_path)
        assert res.code == 0, (args, res.stdout, res.stderr)
        env = res.json
        if args[0] == "start":
            started.append(env["result"]["task"]["id"])
        if args[0] == "complete":
            cascades[args[1]] = [(c["id"], c["from"], c["to"]) for c in env["result"]["cascade"]]
            fresh = run_cli("next", "--json", "--agent", "agent-1", cwd=tmp_path).json
            assert (env["result"]["next"] or {}).get("id") == (fresh["result"]["task"] or {}).get("id")
            assert env["_next_action"] == fresh["_next_action"], "complete's hint equals a fresh next"
        action = env["_next_action"]
    assert action["marker"] == "done"
    assert started == EXPECTED_ORDER
    assert cascades["W-3"] == []
    assert cascades["W-4"] == [("W-2", "in-progress", "done")]
    assert cascades["W-5"] == [("W-1", "in-progress", "done")]
    assert cascades["W-8"] == [("W-6", "in-progress", "done")]
    assert cascades["W-12"] == [], "a manual-cascade parent stays open"
    assert cascades["W-10"] == []
    assert cascades["W-11"] == [("W-9", "in-progress", "done")]
    statuses = {p.stem: yaml.safe_load(p.read_text())["status"]
                for p in (tmp_path / ".leafwise/nodes").glob("*.yaml")}
    assert set(statuses.values()) == {"done"}
    events = [line for line in (tmp_path / ".leafwise/journal.jsonl").read_text().splitlines() if line]
    assert len(events) == 2 * len(EXPECTED_ORDER)


def test_blocked_work_is_pointed_at_not_guessed(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("W-1", "Only task", release="R1")], releases=("R1",), prefix="W")
    assert run_cli("start", "W-1", "--agent", "a", cwd=tmp_path).code == 0
    res = run_cli("block", "W-1", "--reason", "Waiting for API keys", "--agent", "a", cwd=tmp_path)
    assert res.code == 0
    assert res.last_lines[-2:] == ["Wait: W-1 is blocked (\u201cWaiting for API keys\u201d); after leafwise unblock W-1 "
                                   "run leafwise start --next --agent a",
                                   "Or: leafwise start --next --agent a --wait 300"]  # the waiting call, no polling
    shown = run_cli("show", "W-1", cwd=tmp_path)
    assert "blocked_reason: Waiting for API keys" in shown.stdout
    assert run_cli("unblock", "W-1", cwd=tmp_path).code == 0
    # the asker holds no other work, so the task is anyone's again (lifecycle.unblocked_status)
    assert yaml.safe_load((tmp_path / ".leafwise/nodes/W-1.yaml").read_text())["status"] == "draft"
