"""Forecasts from the journal: burn-up, velocity, projected finish against the target; `progress` carries it."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from leafwise.commands.core.forecast import done_days, forecast
from leafwise.commands.events import Event
from leafwise.commands.plan_files import read_lines
from leafwise.store import find_root, load_plan
from testkit import node, run_cli, write_plan

NOW = datetime(2027, 1, 10, 12, tzinfo=timezone.utc)


def stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def done_line(node_id: str, moment: datetime) -> bytes:
    return json.dumps({"time": stamp(moment), "actor": "a", "command": "complete", "node": node_id,
                       "changes": {"status": ["in-progress", "done"]}}).encode()


def setup(tmp_path: Path, target: str, now: datetime = NOW) -> None:
    """Four leaves of ten done, 21, 7, 5 and 1 days (and two hours) before `now`; at NOW that is
    Dec 20, Jan 3, Jan 5 and Jan 9, 10:00."""
    nodes = [node(f"T-{i}", f"leaf {i}", "done" if i <= 4 else "draft", release="R1") for i in range(1, 11)]
    write_plan(tmp_path, nodes, releases=())
    (tmp_path / ".leafwise" / "project.yaml").write_text(
        f"schema: 1\npid: test\nname: Test\nid_prefix: T\nreleases:\n  - {{id: R1, title: One, target: {target}}}\n")

    def ago(days: int) -> datetime:
        return now - timedelta(days=days, hours=2)

    lines = [done_line("T-1", ago(21)), done_line("T-2", ago(7)), b"{torn",
             done_line("T-3", ago(5)), done_line("T-4", ago(1)),
             json.dumps({"time": stamp(ago(1) + timedelta(hours=1)), "command": "block", "node": "T-5",
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
    lines = [done_line("T-1", datetime(2027, 1, 1, 10, tzinfo=timezone.utc)),
             done_line("T-1", datetime(2027, 1, 5, 10, tzinfo=timezone.utc)), b'{"node": "T-2", "time": "x"}']
    assert done_days(Event.read(json.loads(line)) for line in lines) == {"T-1": date(2027, 1, 5)}


def test_progress_carries_the_forecast(tmp_path: Path) -> None:
    # The CLI in its own process reads the wall clock: the journal is dated back from it.
    before = datetime.now(timezone.utc)
    setup(tmp_path, "2020-01-01", now=before)
    res = run_cli("progress", "--json", cwd=tmp_path)
    after = datetime.now(timezone.utc)
    assert res.code == 0, res.stderr
    (item,) = res.json["result"]["forecast"]
    assert item["release"] == "R1" and item["done"] == 4 and item["remaining"] == 6
    assert item["history"]["enough"] and item["history"]["done"] == 4
    # 21 days of history: the 14-day window, three leaves done in it; 6 left at 3/14 a day is 28 days.
    assert (item["rate"]["done"], item["rate"]["window_hours"], item["rate"]["whole_age"]) == (3, 14 * 24, False)
    finish = date.fromisoformat(item["finish"])
    assert finish in {before.date() + timedelta(days=28), after.date() + timedelta(days=28)}
    late = (finish - date(2020, 1, 1)).days
    assert item["target"] == "2020-01-01" and (item["late_days"], item["verdict"]) == (late, f"late by {late} days")
    text = run_cli("progress", cwd=tmp_path).stdout
    assert "Forecast" in text and "R1" in text
