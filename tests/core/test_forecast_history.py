"""The forecast only says what the history supports: windows no longer than the plan's age, the rate it
chose named, no finish date before MIN_DONE leaves over MIN_HISTORY, a burn-up axis with distinct labels.
Journals with controlled timestamps, through the real journal reader and, for `progress`, the real CLI."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from leafwise.commands.core.forecast import axis_labels, forecast
from leafwise.commands.plan_files import read_lines
from leafwise.store import find_root, load_plan
from testkit import node, run_cli, write_plan

NOW = datetime(2027, 1, 10, 12, tzinfo=timezone.utc)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def setup(root: Path, created: datetime, done_at: list[datetime], leaves: int = 10) -> None:
    """`leaves` leaves of R1 created at `created`, the first len(done_at) done at those moments."""
    nodes = [node(f"T-{i}", f"leaf {i}", "done" if i <= len(done_at) else "draft", release="R1",
                  created=stamp(created)) for i in range(1, leaves + 1)]
    write_plan(root, nodes, releases=("R1",))
    lines = [json.dumps({"time": stamp(m), "actor": "a", "command": "complete", "node": f"T-{i}",
                         "changes": {"status": ["in-progress", "done"]}}) for i, m in enumerate(done_at, 1)]
    (root / ".leafwise" / "journal.jsonl").write_text("".join(line + "\n" for line in lines))


def release_forecast(root: Path, now: datetime):
    (item,) = forecast(load_plan(find_root(None, root)), read_lines(root / ".leafwise" / "journal.jsonl"), now)
    return item


def test_a_ten_minute_old_plan_has_no_long_window_and_no_finish_date(tmp_path: Path) -> None:
    start = NOW - timedelta(minutes=10)
    setup(tmp_path, start, [start + timedelta(minutes=m) for m in (2, 5, 9)])
    item = release_forecast(tmp_path, NOW)
    assert item.velocity == {}  # neither 7 nor 14 days of history
    assert item.rate is not None and item.rate.whole_age and item.rate.window == timedelta(minutes=10)
    assert item.rate.words == "432.0/day over the plan's whole age (10 minutes)"
    assert item.finish is None and item.late_days is None
    assert item.verdict == "not enough history yet: 3 leaves done in 10 minutes"
    assert "14 days" not in item.verdict
    labels = axis_labels(item.burnup)
    assert len(labels) == len(set(labels)) == 11 and labels[0] == "11:50" and labels[-1] == "12:00"
    assert item.burnup[-1][1] == 3


def test_a_quiet_young_plan_does_not_claim_14_days_without_progress(tmp_path: Path) -> None:
    setup(tmp_path, NOW - timedelta(minutes=10), [])
    item = release_forecast(tmp_path, NOW)
    assert item.verdict == "not enough history yet: 0 leaves done in 10 minutes" and item.burnup == []


def test_three_days_use_the_whole_age_and_give_a_finish_date(tmp_path: Path) -> None:
    start = NOW - timedelta(days=3)
    setup(tmp_path, start, [start + timedelta(hours=h) for h in (5, 20, 40, 60)])
    item = release_forecast(tmp_path, NOW)
    assert item.velocity == {} and item.rate.whole_age and item.rate.done == 4
    assert item.rate.words == "1.3/day over the plan's whole age (3 days)"
    # 6 left at 4/3 a day: 5 days
    assert item.finish == (NOW + timedelta(days=5)).date() and item.verdict.startswith("finishes around")
    labels = axis_labels(item.burnup)
    assert labels == ["2027-01-07", "2027-01-08", "2027-01-09", "2027-01-10"]


def test_a_day_of_history_with_few_leaves_is_not_enough(tmp_path: Path) -> None:
    start = NOW - timedelta(hours=30)
    setup(tmp_path, start, [start + timedelta(hours=1), start + timedelta(hours=2)])
    item = release_forecast(tmp_path, NOW)
    assert item.verdict == "not enough history yet: 2 leaves done in 1 day" and item.finish is None
    labels = axis_labels(item.burnup)  # hours across two days: the day is part of each label
    assert len(labels) == len(set(labels)) == 31 and labels[0] == "01-09 06:00"


def test_the_rate_names_the_7_day_window_when_the_plan_is_ten_days_old(tmp_path: Path) -> None:
    start = NOW - timedelta(days=10)
    setup(tmp_path, start, [NOW - timedelta(days=d) for d in (9, 6, 4, 1)])
    item = release_forecast(tmp_path, NOW)
    assert set(item.velocity) == {7} and item.velocity[7] == 3 / 7
    assert item.rate.words == "0.4/day over the last 7 days" and not item.rate.whole_age
    later = release_forecast(tmp_path, NOW + timedelta(days=20))  # 30 days old, nothing in the last 14
    assert later.verdict == "no progress in 14 days" and later.finish is None


def test_progress_names_the_rate_and_says_when_history_is_short(tmp_path: Path) -> None:
    now = datetime.now(timezone.utc)
    start = now - timedelta(minutes=10)
    setup(tmp_path, start, [start + timedelta(minutes=m) for m in (2, 5, 8)])
    res = run_cli("progress", "--json", cwd=tmp_path)
    assert res.code == 0, res.stderr
    (item,) = res.json["result"]["forecast"]
    assert item["velocity_7d"] is None and item["velocity_14d"] is None and item["finish"] is None
    assert item["rate"]["whole_age"] and item["history"]["done"] == 3 and not item["history"]["enough"]
    assert item["verdict"].startswith("not enough history yet: 3 leaves done in 1") and "minutes" in item["verdict"]
    text = run_cli("progress", cwd=tmp_path).stdout
    assert "over the plan's whole age" in text and "not enough history yet: 3 leaves done in" in text
    assert "14 days" not in text and "finish ~" not in text
