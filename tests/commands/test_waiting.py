"""`next --wait` and `start --next --wait`: real CLI processes that block until work comes free.

A waiter is "armed" once its process holds an inotify watch (`store/watch.ChangeWait` is made
before the first pick); the tests wait for that, then free work from another process, and time
how soon the waiter answers. Its CPU time comes from the kernel's resource usage of the child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from testkit import journal, node, run_cli, run_cli_in_process, wait_until, write_plan

WAKE_LIMIT_S = 2.0  # from the freeing write to the waiter's answer (typically ~0.1 s)


def inotify_watches(pid: int) -> int:
    """How many inotify instances process `pid` holds (0 once it is gone)."""
    count = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:inotify"
        except OSError:
            continue
    return count


@dataclass
class Answer:
    code: int
    envelope: dict[str, Any]
    stderr: str
    ended: float  # wall-clock time (time.time()) its output ended: the child's exit, seen from a reader
    cpu: float  # user + system seconds of the child, from wait4


class Waiter:
    """One `leafwise ... --json` child, started now; a thread reads its output and notes when it ends."""

    def __init__(self, root: Path, *args: str):
        env = {**os.environ, "LEAFWISE_AGENT": ""}
        env.pop("LEAFWISE_ROOT", None)
        self.started = time.time()
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args, "--json"],
                                     cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._out: list[str] = []
        self._ended = 0.0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._quiet, self._ticks = 0, -1

    def _read(self) -> None:
        self._out.append(self.proc.stdout.read())
        self._ended = time.time()

    def armed(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"the waiter ended before it waited: {self._out} {self.proc.stderr.read()}")
        return inotify_watches(self.proc.pid) > 0

    def asleep(self) -> bool:
        """Armed, and no CPU used over the last few looks (~150 ms): past its first pick, waiting."""
        if not self.armed():
            return False
        with open(f"/proc/{self.proc.pid}/stat") as stat:  # our own child's counters, not plan content
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        self._quiet = self._quiet + 1 if ticks == self._ticks else 0
        self._ticks = ticks
        return self._quiet >= 3

    def answer(self) -> Answer:
        self._reader.join(timeout=120)
        err = self.proc.stderr.read()
        _pid, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        text = self._out[0] if self._out and self._out[0].strip() else err
        return Answer(self.proc.returncode, json.loads(text.strip().splitlines()[-1]) if text.strip() else {},
                      err, self._ended, usage.ru_utime + usage.ru_stime)


def written_at(path: Path) -> float:
    """When the file was last replaced (wall clock): the write that frees the work."""
    return path.stat().st_mtime


@pytest.fixture
def blocked_plan(tmp_path: Path) -> Path:
    """T-1 blocked: nothing to hand out, and `unblock T-1` frees it."""
    write_plan(tmp_path, [node("T-1", "Alpha", status="blocked", blocked_reason="needs creds", release="R1")])
    return tmp_path


def test_next_wait_wakes_within_a_second_of_another_process_freeing_work(blocked_plan: Path) -> None:
    waiter = Waiter(blocked_plan, "next", "--agent", "a1", "--wait", "10")
    wait_until(waiter.asleep, what="the waiter asleep in its watch", interval=0.05)
    freed = run_cli("unblock", "T-1", cwd=blocked_plan)
    assert freed.code == 0, freed.stderr
    got = waiter.answer()
    delay = got.ended - written_at(blocked_plan / ".leafwise/nodes/T-1.yaml")
    print(f"next --wait: answered {delay * 1000:.0f} ms after the unblock wrote T-1")
    assert got.code == 0 and got.envelope["result"]["task"]["id"] == "T-1"
    assert got.envelope["_next_action"]["command"] == "leafwise start --next --agent a1"
    assert got.envelope["result"]["waited"] > 0.1, "it answered before the write: nothing was waited on"
    assert delay < WAKE_LIMIT_S, f"woke {delay:.2f} s after the write"


@pytest.mark.slow
def test_a_waiter_sleeps_on_events_not_on_the_cpu(blocked_plan: Path) -> None:
    baseline = Waiter(blocked_plan, "next", "--agent", "a1").answer()
    waiter = Waiter(blocked_plan, "next", "--agent", "a1", "--wait", "3")
    got = waiter.answer()
    waited = got.ended - waiter.started
    print(f"next --wait 3: {got.cpu:.3f} s CPU over {waited:.2f} s (no wait: {baseline.cpu:.3f} s)")
    assert got.code == 0 and got.envelope["_next_action"]["marker"] == "wait"
    assert got.envelope["result"]["waited"] >= 3
    # start-up alone costs 0.2-0.45 s of CPU on the shared machine: the wait's own share is the difference
    assert got.cpu - baseline.cpu < 0.25, f"{got.cpu - baseline.cpu:.2f} s of CPU in a 3 s wait: a busy loop?"


@pytest.mark.slow
def test_two_waiting_agents_one_task_exactly_one_gets_it(blocked_plan: Path) -> None:
    waiters = {a: Waiter(blocked_plan, "start", "--next", "--agent", a, "--wait", "4") for a in ("a1", "a2")}
    for waiter in waiters.values():
        wait_until(waiter.asleep, what="both waiters asleep in their watches", interval=0.05)
    freed = run_cli_in_process("unblock", "T-1", cwd=blocked_plan)  # this process is the other writer
    written = time.time()  # the write is done; a winner may rewrite T-1 at once, so no file time tells it
    assert freed.code == 0, freed.stderr
    answers = {a: w.answer() for a, w in waiters.items()}
    winners = [a for a, got in answers.items() if got.envelope["result"]["task"]]
    assert len(winners) == 1, {a: got.envelope for a, got in answers.items()}
    (winner,) = winners
    (loser,) = set(answers) - {winner}
    won, lost = answers[winner], answers[loser]
    print(f"start --next --wait: {winner} claimed T-1 {(won.ended - written) * 1000:.0f} ms after the unblock")
    assert won.code == 0 and won.envelope["result"]["task"]["id"] == "T-1"
    assert won.ended - written < WAKE_LIMIT_S
    assert lost.code == 0 and lost.envelope["_next_action"]["marker"] == "wait", lost.envelope
    assert winner in lost.envelope["_next_action"]["condition"]  # it names who holds the task now
    assert lost.envelope["_next_action"]["or"] == f"leafwise start --next --agent {loser} --wait 300"
    assert lost.envelope["result"]["waited"] >= 4, "the loser kept waiting until its time ran out"
    starts = [e for e in journal(blocked_plan) if e["command"] == "start"]
    assert [(e["actor"], e["node"]) for e in starts] == [(winner, "T-1")]
    lease = json.loads((blocked_plan / ".leafwise/claims/T-1.json").read_text())
    assert lease["agent"] == winner


@pytest.mark.slow
def test_a_lease_running_out_wakes_the_waiter_with_no_file_written(tmp_path: Path) -> None:
    write_plan(tmp_path, [node("T-1", "Alpha", release="R1")])
    assert run_cli("start", "T-1", "--agent", "other", "--ttl", "0.08", cwd=tmp_path).code == 0  # ~5 s
    expires = datetime.fromisoformat(
        json.loads((tmp_path / ".leafwise/claims/T-1.json").read_text())["expires"].replace("Z", "+00:00"))
    waiter = Waiter(tmp_path, "start", "--next", "--agent", "a1", "--wait", "30")
    got = waiter.answer()
    late = got.ended - expires.timestamp()
    print(f"lease expiry: a1 claimed T-1 {late * 1000:.0f} ms after the lease ended")
    assert got.code == 0 and got.envelope["result"]["task"]["id"] == "T-1", got.envelope
    assert got.envelope["result"]["claim"]["agent"] == "a1"
    assert got.envelope["result"]["waited"] > 1, "the lease had ended before the waiter looked"
    assert 0 <= late < WAKE_LIMIT_S, f"claimed {late:.2f} s after the lease ended"


def test_wait_zero_is_no_wait(blocked_plan: Path) -> None:
    plain = run_cli("next", "--agent", "a1", "--json", cwd=blocked_plan)
    zero = run_cli("next", "--agent", "a1", "--wait", "0", "--json", cwd=blocked_plan)
    assert zero.code == plain.code == 0 and zero.json == plain.json
    assert "waited" not in zero.json["result"]
    began = time.monotonic()
    start = run_cli("start", "--next", "--agent", "a1", "--wait", "0", "--json", cwd=blocked_plan)
    assert start.code == 0 and start.json["_next_action"]["marker"] == "wait"
    assert time.monotonic() - began < 10  # a whole process, on a loaded machine: never the wait cap


@pytest.mark.parametrize("args", [("next", "--wait", "601"), ("next", "--wait", "-1"),
                                  ("start", "--next", "--agent", "a1", "--wait", "1e9")])
def test_a_wait_over_ten_minutes_or_below_zero_is_a_usage_error(blocked_plan: Path, args: tuple[str, ...]) -> None:
    res = run_cli(*args, cwd=blocked_plan)
    assert res.code == 2
    assert "is not a number of seconds from 0 to 600" in res.stderr
    assert res.last_lines[-1] == "Fix: " + " ".join(
        ["leafwise", *[a for a in args if a not in ("--wait", args[-1])], "--wait", "<seconds>"])


def test_wait_goes_with_next_on_start(blocked_plan: Path) -> None:
    res = run_cli("start", "T-1", "--agent", "a1", "--wait", "5", cwd=blocked_plan)
    assert res.code == 2 and res.last_lines[-1] == "Fix: leafwise start --next --agent a1 --wait 5.0"


def test_a_wait_hint_offers_the_waiting_call(blocked_plan: Path) -> None:
    res = run_cli("next", "--agent", "a1", cwd=blocked_plan)
    assert res.last_lines[-2].startswith("Wait: T-1 is blocked (\u201cneeds creds\u201d)")
    assert res.last_lines[-1] == "Or: leafwise start --next --agent a1 --wait 300"
    assert run_cli("next", cwd=blocked_plan).last_lines[-1] == "Or: leafwise next --wait 300"
