"""Every watch falls back to a stat walk (store/polling.py) when the kernel gives no inotify watch (the
user's 128 instances in use by editors and other watchers): `next --wait` still sleeps until work comes
free instead of answering its Wait at once (every waiting agent a poller), and the MCP server's
`PlanWatcher` still sees every write (the canvas: tests/canvas/test_live_without_inotify.py). The
kernel's refusal is stood in for in this process only: exhausting the user's real instances would
blind every other test's watcher."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import watchfiles.main
from leafwise.store import find_root
from leafwise.store.watch import PlanWatcher
from testkit import node, run_cli, run_cli_in_process, write_plan

def refused(*_args):
    raise RuntimeError("Error creating recommended watcher: Too many open files (os error 24)")


@pytest.mark.slow
def test_next_wait_still_waits_and_wakes_when_no_inotify_watch_is_given(tmp_path: Path, monkeypatch) -> None:
    root = write_plan(tmp_path, [node("T-1", "Alpha", status="blocked", blocked_reason="needs creds", release="R1")])
    monkeypatch.setattr(watchfiles.main, "RustNotify", refused)
    answered: list = []
    started = time.monotonic()
    waiter = threading.Thread(target=lambda: answered.append(
        (run_cli_in_process("next", "--wait", "30", "--agent", "ana", "--json", cwd=root), time.monotonic())))
    waiter.start()
    time.sleep(2.0)
    assert not answered, f"answered before any work was freed: {answered[0][0].stdout[-300:]}"
    freed_at = time.monotonic()
    freed = run_cli("unblock", "T-1", cwd=root)  # another process frees the task
    assert freed.code == 0, freed.stderr
    waiter.join(20)
    assert answered, "the waiter never answered"
    res, ended = answered[0]
    assert '"id": "T-1"' in res.stdout, res.stdout[-500:]
    assert ended - freed_at < 5.0 and ended - started > 2.0


def test_the_servers_plan_watcher_sees_a_write_on_the_polling_watcher(tmp_path: Path, monkeypatch) -> None:
    write_plan(tmp_path, [node("T-1", "A")])
    paths = find_root(tmp_path, None)
    monkeypatch.setattr(watchfiles.main, "RustNotify", refused)
    watcher = PlanWatcher(paths)
    try:
        assert not watcher.changes() and not watcher.lost
        run_cli("edit", "T-1", "--set", "title=B", cwd=tmp_path)  # another process writes
        changes = watcher.changes()
        assert changes.nodes == {"T-1"} and not watcher.lost
        node_file = paths.nodes / "T-1.yaml"
        text = node_file.read_bytes()
        for i in range(5):  # same size, in place, many a second: watchfiles' own poller misses these
            with open(node_file, "r+b") as fh:
                fh.write(text.replace(b"title: B", b"title: " + b"BC"[i % 2:i % 2 + 1]))
            assert watcher.changes().nodes == {"T-1"}, i
        assert not watcher.changes()
    finally:
        watcher.close()
