"""Forecasts from the journal: burn-up, velocity, projected finish against the target; `progress` carries it."""

from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path

from leafwise.commands.core.forecast import done_days, forecast
from leafwise.commands.events import Event
from leafwise.commands.plan_files import read_lines
from leafwise.store import find_root, load_plan
from testkit import node, run_cli, write_plan

NOW = datetime(2027, 1, 10, 12, tzinfo=timezone.utc)


def done_line(node_id: str, day: str) -> bytes:
    return json.dumps({"time": f"{day}T10:00:00Z", "actor": "a", "command": "complete", "node": node_id,
                       "changes": {"status": ["in-progress", "done"]}}).encode()


def setup(tmp_path: Path, target: str) -> None:
    nodes = [node(f"T-{i}", f"leaf {i}", "done" if i <= 4 else "draft", release="R1") for i in range(1, 11)]
    write_plan(tmp_path, nodes, releases=())
    (tmp_path / ".leafwise" / "project.yaml").write_text(
        f"schema: 1\npid: test\nname: Test\nid_prefix: T\nreleases:\n  - {{id: R1, title: One, target: {target}}}\n")
    lines = [done_line("T-1", "2026-12-20"), done_line("T-2", "2027-01-03"), b"{torn",
             done_line("T-3", "2027-01-05"), done_line("T-4", "2027-01-09"),
             json.dumps({"time": "2027-01-09T11:00:00Z", "command": "block", "node": "T-5",
                         "changes": {"status": ["draft", "blocked"]}}).encode()]
    (tmp_path / ".leafwise" / "journal.jsonl").write_bytes(b"\n".join(lines) + b"\n")


def test_velocity_finish_and_verdict(tmp_path: Path) -> None:
    setup(tmp_path, "2027-01-20")
    plan = load_plan(find_root(None, tmp_path))
    lines = read_lines(tmp_path / ".leafwise" / "journal.jsonl")
    (item,) = forecast(plan, lines, NOW)
    assert (item.total, item.done, item.remaining) == (10, 4, 6)
    # The last 7 days are Jan 4-10 (two leaves), the last 14 Dec 28-Jan 10 (three).
    assert item.velocity[7] == 2 / 7 and item.velocity[14] == 3 / 14
    # 6 left at 3/14 a day: 28 days -> 2027-02-07, 18 days after the target.
    assert item.finish == date(2027, 2, 7)
    assert item.verdict == "late by 18 days" and item.late_days == 18
    assert item.burnup[0] == (date(2026, 12, 20), 1) and item.burnup[-1] == (date(2027, 1, 10), 4)
    assert len(item.burnup) == 22


def test_on_track_and_stalled(tmp_path: Path) -> None:
    setup(tmp_path, "2027-03-01")
    plan = load_plan(find_root(None, tmp_path))
    lines = read_lines(tmp_path / ".leafwise" / "journal.jsonl")
    assert forecast(plan, lines, NOW)[0].verdict == "on track"
    late = datetime(2027, 3, 1, tzinfo=timezone.utc)
    assert forecast(plan, lines, late)[0].verdict == "no progress in 14 days"


def test_done_days_keeps_the_last_move_to_done() -> None:
    lines = [done_line("T-1", "2027-01-01"), done_line("T-1", "2027-01-05"), b'{"node": "T-2", "time": "x"}']
    assert done_days(Event.read(json.loads(line)) for line in lines) == {"T-1": date(2027, 1, 5)}


def test_progress_carries_the_forecast(tmp_path: Path) -> None:
    setup(tmp_path, "2020-01-01")
    res = run_cli("progress", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    (item,) = res.json["result"]["forecast"]
    assert item["release"] == "R1" and item["done"] == 4 and item["remaining"] == 6
    assert item["target"] == "2020-01-01" and item["verdict"].startswith(("late by", "no progress"))
    text = run_cli("progress", cwd=tmp_path).stdout
    assert "Forecast" in text and "R1" in text
