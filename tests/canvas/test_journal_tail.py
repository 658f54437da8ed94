"""The progress view's journal tail (canvas/model/journal_tail.py): read through the one reader, into typed
events, and only as the file grows. Real files in a tmp folder."""

from __future__ import annotations

import json
import os

from leafwise.canvas.model.journal_tail import DoneLines
from leafwise.store import reader


def line(node: str, new: str = "done", **extra) -> bytes:
    event = {"time": "2026-11-20T09:00:00Z", "actor": "pat", "command": "complete", "node": node,
             "changes": {"status": ["in-progress", new]}, **extra}
    return json.dumps(event).encode() + b"\n"


def test_done_lines_are_typed_events_and_only_new_lines_are_read(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(line("T-1") + line("T-2", "blocked") + b'["done"]\n' + b'{"done": torn\n'
                     + line("T-3")[:-20])
    tail = DoneLines(path)
    assert len(tail.read()) == 1
    assert [(e.node, e.change("status").new) for e in tail.events] == [("T-1", "done")]
    with path.open("ab") as fh:  # the torn line is finished, one more done line after it
        fh.write(line("T-3")[-20:] + line("T-4"))
    tail.read()
    assert [e.node for e in tail.events] == ["T-1", "T-3", "T-4"]
    tail.read()
    assert [e.node for e in tail.events] == ["T-1", "T-3", "T-4"]  # nothing new: nothing added


def test_a_replaced_journal_is_read_again_from_the_start(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(line("T-1") + line("T-2"))
    tail = DoneLines(path)
    tail.read()
    tmp = tmp_path / "new.jsonl"
    tmp.write_bytes(line("T-9") + line("T-8") + line("T-7"))  # longer, other lines (a git checkout)
    os.replace(tmp, path)
    tail.read()
    assert [e.node for e in tail.events] == ["T-9", "T-8", "T-7"]


def test_a_linked_journal_is_not_read_and_an_oversized_line_is_skipped(tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_bytes(line("T-1"))
    path = tmp_path / "journal.jsonl"
    path.symlink_to(secret)
    tail = DoneLines(path)
    assert tail.read() == [] and tail.events == []
    path.unlink()
    path.write_bytes(line("T-1", note="x" * (reader.EVENT.cap + 10)) + line("T-2"))
    tail.read()
    assert [e.node for e in tail.events] == ["T-2"]
