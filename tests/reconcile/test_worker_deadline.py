"""Reconcile's scan runs in a child process with a deadline (commands/reconcile/worker.py): a scan that
takes too long is killed, with its process group, and the answer is an error naming the deadline."""

from __future__ import annotations

import threading
import time

import pytest
from leafwise.commands.reconcile import worker
from testkit import node, process_gone, run_cli, wait_until, write_plan
from testkit.repos import commit_all, write_files


def _plan(tmp_path):
    write_files(tmp_path, {"pkg/export.py": "def export_orders_as_csv(orders):\n    return orders\n"})
    write_plan(tmp_path, [node("T-1", "Export orders as CSV", release="R1")])
    commit_all(tmp_path)
    return tmp_path


def test_a_scan_past_its_deadline_is_killed_and_answers_an_error_naming_the_deadline(tmp_path):
    root = _plan(tmp_path)
    started = time.monotonic()
    res = run_cli("reconcile", "--json", cwd=root,
                  env={worker.DEADLINE_ENV: "2", worker.DELAY_ENV: "120"})
    took = time.monotonic() - started
    assert res.code != 0
    env = res.json
    assert env["error"]["code"] == "reconcile_deadline"
    assert "deadline of 2 s" in env["error"]["message"]
    assert "LEAFWISE_RECONCILE_DEADLINE" in env["error"]["message"]
    assert env["_next_action"]["marker"] == "wait"
    assert env["_next_action"]["or"].startswith("leafwise next")
    assert took < 20, f"the CLI waited {took:.1f} s for a 2 s deadline"
    text = run_cli("reconcile", cwd=root, env={worker.DEADLINE_ENV: "1", worker.DELAY_ENV: "120"})
    assert text.code != 0
    assert text.last_lines[0].startswith("Error: reconcile wrote nothing: the scan passed its deadline of 1 s")
    assert text.last_lines[-2].startswith("Wait: a person narrows the scan")


def test_the_deadline_kills_the_child_process(tmp_path, monkeypatch):
    root = _plan(tmp_path)
    monkeypatch.setenv(worker.DELAY_ENV, "120")  # read in the child: it sleeps before it scans
    caught: list[BaseException] = []

    def call() -> None:
        try:
            worker.scan(str(root), ["T-1"], [], limit_s=3)
        except worker.ScanStopped as exc:
            caught.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    pid = wait_until(lambda: (worker.running() or [None])[0], what="the scan's child")
    assert not process_gone(pid)
    thread.join(30)
    assert not thread.is_alive()
    assert caught and caught[0].why == "deadline" and "deadline of 3 s" in caught[0].detail
    assert process_gone(pid), "the child outlived its deadline"
    assert worker.running() == []


def test_stop_all_ends_a_waiting_scan_at_once(tmp_path, monkeypatch):
    root = _plan(tmp_path)
    monkeypatch.setenv(worker.DELAY_ENV, "120")
    caught: list[worker.ScanStopped] = []
    thread = threading.Thread(target=lambda: caught.append(
        pytest.raises(worker.ScanStopped, worker.scan, str(root), ["T-1"], []).value))
    thread.start()
    pid = wait_until(lambda: (worker.running() or [None])[0], what="the scan's child")
    started = time.monotonic()
    assert worker.stop_all() == 1
    thread.join(10)
    assert time.monotonic() - started < 5
    assert caught[0].why == "stopped"
    assert process_gone(pid)


def test_a_scan_in_time_answers_as_before(tmp_path, monkeypatch):
    root = _plan(tmp_path)
    monkeypatch.delenv(worker.DELAY_ENV, raising=False)
    report = worker.scan(str(root), ["T-1"], [], limit_s=60)
    assert [s["id"] for s in report.suggestions] == ["T-1"]
    assert report.suggestions[0]["verdict"] == "likely"


@pytest.mark.parametrize("raw, expected", [("", 60.0), ("5", 5.0), ("nan", 60.0), ("-1", 60.0), ("inf", 60.0),
                                           ("x", 60.0), ("0.5", 0.5)])
def test_the_deadline_is_the_persons_setting_or_60_seconds(monkeypatch, raw, expected):
    monkeypatch.setenv(worker.DEADLINE_ENV, raw)
    assert worker.deadline() == expected


def test_a_scan_past_its_memory_cap_answers_an_error_naming_the_cap(tmp_path):
    """The child's heap is capped (RLIMIT_DATA): 20 MB is less than the scan needs, so it stops with
    MemoryError, and the answer names the cap and its setting; under the default cap the scan runs."""
    root = _plan(tmp_path)
    capped = run_cli("reconcile", "--json", cwd=root, env={worker.MEMORY_ENV: "20"})
    assert capped.code != 0
    message = capped.json["error"]["message"]
    assert "memory cap of 20 MB" in message and worker.MEMORY_ENV in message, message
    assert run_cli("reconcile", "--json", cwd=root).code == 0
