"""Time has one home (`store/timestamps.py`): UTC to the second out, zone-aware only in."""

from __future__ import annotations

import ast
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from leafwise.store import PlanPaths, claims
from leafwise.store.timestamps import parse, to_text, utc_now
from testkit import node, run_cli, walked, write_plan

ROOT = Path(__file__).resolve().parents[2]


def test_text_is_utc_to_the_second_whatever_the_zone() -> None:
    moment = datetime(2026, 11, 29, 22, 0, 5, 999, tzinfo=timezone(timedelta(hours=2)))
    assert to_text(moment) == "2026-11-29T20:00:05Z"
    assert to_text(datetime(2026, 11, 29, 20, 0)) == "2026-11-29T20:00:00Z"  # naive counts as UTC
    now = utc_now()
    assert now.tzinfo is not None and now.microsecond == 0 and parse(to_text(now)) == now


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-11-29T20:00:00Z", datetime(2026, 11, 29, 20, tzinfo=timezone.utc)),
    ("2026-11-29T22:00:00+02:00", datetime(2026, 11, 29, 20, tzinfo=timezone.utc)),
    ("2026-11-29 20:00:00z", datetime(2026, 11, 29, 20, tzinfo=timezone.utc)),
    ("2026-11-29T20:00:00", None),  # no zone: never guessed
    ("2026-11-29", None), ("soon", None), ("", None), ("9" * 5000, None), (None, None), (17, None),
    (datetime(2026, 11, 29, 20), None), (datetime(2026, 11, 29, 20, tzinfo=timezone.utc),
                                          datetime(2026, 11, 29, 20, tzinfo=timezone.utc)),
])
def test_parse_takes_only_times_that_name_their_zone(text, expected) -> None:
    assert parse(text) == expected


def test_a_claim_with_a_naive_or_planted_time_is_no_claim(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A"), node("T-2", "B")])
    paths = PlanPaths(tmp_path)
    folder = tmp_path / ".leafwise" / "claims"
    folder.mkdir()
    for node_id, expires in (("T-1", "2999-01-01T00:00:00"), ("T-2", "tomorrow")):
        (folder / f"{node_id}.json").write_text(json.dumps(
            {"node": node_id, "agent": "a", "since": "2026-01-01T00:00:00Z",
             "heartbeat": "2026-01-01T00:00:00Z", "expires": expires}))
    assert claims.read_all(paths) == {}
    res = run_cli("next", "--json", cwd=tmp_path)  # neither holds a task, and nothing crashes
    assert res.code == 0 and res.json["result"]["task"]["id"] in ("T-1", "T-2")


def test_a_written_time_reads_back_unquoted_in_the_file(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "A")])
    assert run_cli("start", "T-1", "--agent", "a", cwd=tmp_path).code == 0
    text = (tmp_path / ".leafwise/nodes/T-1.yaml").read_text()
    line = next(line for line in text.splitlines() if line.startswith("updated:"))
    assert parse(line.split(": ", 1)[1]) is not None and "'" not in line and '"' not in line


CLOCK_CALLS = {"now", "utcnow", "fromisoformat", "strftime"}


def test_no_other_store_module_reads_or_writes_time_itself() -> None:
    found = []
    for path in sorted((ROOT / "store").rglob("*.py")):
        if path.name == "timestamps.py":
            continue
        for item in walked(path.read_text(encoding="utf-8")):
            if isinstance(item, ast.Attribute) and item.attr in CLOCK_CALLS:
                found.append(f"{path.relative_to(ROOT)}:{item.lineno}: .{item.attr}")
    assert found == []
