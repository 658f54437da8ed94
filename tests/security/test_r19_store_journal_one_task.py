"""A journal's lines about one task are read to a bound (`store/journal.py` `read`).

Every answer that carries a task's messages asks the journal which of them were delivered, for that
task, without a limit. A clone's journal of 800,000 lines naming P1-3 (60 MB, the task with one comment)
made `show P1-3` take 6.2 s and 542 MB and `start --next` 4.9 s and 546 MB (every event decoded and kept).
A read answers at most `MAX_EVENTS` events and decodes at most `MAX_DECODED` lines (and `MAX_DECODED_BYTES`)
holding the id, whatever those lines are (events of the task, of another task naming it, no JSON at all,
or 700 lines of 85 KB: `show P1-3` 5 s with a line budget alone).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit import node, write_plan
from testkit.hostile import environment, run_measured

LINES = 600_000
KINDS = {
    "its_events": b'{"time":"2026-01-01T00:00:00Z","node":"P1-3","command":"edit","actor":"m"}\n',
    "naming_it": b'{"time":"2026-01-01T00:00:00Z","node":"P1-2","command":"edit","x":"P1-3"}\n',
    "no_json": b'"P1-3" {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{\n',
    # few long lines: 700 events of 85 KB, each a cascade of 1,800 entries naming it in another field
    "long_cascades": (json.dumps({"time": "2026-01-01T00:00:00Z", "node": "P1-2", "command": "complete", "x": "P1-3",
                                  "cascade": [{"id": "P1-2", "from": "draft", "to": "done"}] * 1800}) + "\n").encode(),
}
TIMES = {"long_cascades": 700}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_journal_naming_one_task_is_read_to_a_bound(tmp_path: Path, kind: str) -> None:
    root = write_plan(tmp_path / "plan", [node("P1-1", "Checkout", release="R1"), node("P1-2", "Cart page", parent="P1-1"),
                                          node("P1-3", "Pay button", parent="P1-1",
                                               comments=[{"by": "alice", "at": "2026-01-01T00:00:00Z",
                                                          "text": "please be careful"}])], prefix="P1")
    with (root / ".leafwise" / "journal.jsonl").open("ab") as fh:
        fh.write(KINDS[kind] * TIMES.get(kind, LINES))
    env = environment(tmp_path)
    for args in (["show", "P1-3"], ["start", "P1-3", "--agent", "bob"]):
        code, out, err, cpu, peak_kib = run_measured(args, root, env)
        assert code == 0, out + err
        assert "please be careful" in out, out
        assert cpu < 2.0 and peak_kib < 150 * 1024, f"{args}: {cpu:.2f} CPU s, {peak_kib // 1024} MB"
