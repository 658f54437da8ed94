"""`next --wait` when the kernel gives no inotify watch (the user's 128 instances in use: editors, other
watchers): the call still sleeps until work comes free, on watchfiles' own polling watcher, instead of
answering its Wait at once (which made every waiting agent a poller). The kernel's refusal is stood in
for in this process only: exhausting the user's real instances would break every other test's watcher."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import watchfiles.main
from testkit import node, run_cli, run_cli_in_process, write_plan

REAL = watchfiles.main.RustNotify


def refused_unless_polling(paths, debug, force_polling, *rest):
    if not force_polling:
        raise RuntimeError("Error creating recommended watcher: Too many open files (os error 24)")
    return REAL(paths, debug, force_polling, *rest)


@pytest.mark.slow
def test_next_wait_still_waits_and_wakes_when_no_inotify_watch_is_given(tmp_path: Path, monkeypatch) -> None:
    root = write_plan(tmp_path, [node("T-1", "Alpha", status="blocked", blocked_reason="needs creds", release="R1")])
    monkeypatch.setattr(watchfiles.main, "RustNotify", refused_unless_polling)
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
