"""Reconcile's scan in a child process with a deadline.

The scan reads code a clone's author wrote: one pathological file, one slow matcher, one huge tree
must never freeze the process that asked (the canvas a person keeps open, the MCP server other
agents call). So `scan` starts a fresh interpreter (multiprocessing's spawn: no inherited threads,
locks or file descriptors but the result pipe), which makes itself a process group leader, loads
the plan, runs `engine.suggest` and sends back the report as JSON. The caller only waits on the
pipe, holding no lock and no GIL, and kills the whole group (approved `done_when` commands
included) when the deadline passes or the person leaves (`stop_all`).
"""

from __future__ import annotations

import json
import math
import os
import signal
import threading
import time
from dataclasses import asdict
from typing import Any

from leafwise.store import reader

DEFAULT_DEADLINE = 60.0  # seconds; a person's own setting: LEAFWISE_RECONCILE_DEADLINE
DEADLINE_ENV = "LEAFWISE_RECONCILE_DEADLINE"
# Seconds the child sleeps before it scans: how tests make a scan slow in the child itself, so the
# process that waits is the real one. Read only in the child; an environment is the person's, never a plan's.
DELAY_ENV = "LEAFWISE_RECONCILE_WORKER_DELAY"
ANSWER = reader.Kind("reconcile worker's answer", 256 * reader.MiB, 64)
POLL = 0.1  # how often the waiting thread looks at the clock and at `stop_all`


class ScanStopped(Exception):
    """The child did not answer: `why` is "deadline", "stopped" or "failed"; `detail` says more."""

    def __init__(self, why: str, detail: str, seconds: float):
        super().__init__(detail)
        self.why = why
        self.detail = detail
        self.seconds = seconds


_live: set[Any] = set()  # the children still scanning, for stop_all
_lock = threading.Lock()
_stopping: set[int] = set()  # pids stop_all killed: their waiters answer "stopped", not "failed"


def deadline() -> float:
    """The person's deadline (LEAFWISE_RECONCILE_DEADLINE, seconds), else 60 s; a bad value is the default."""
    raw = os.environ.get(DEADLINE_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_DEADLINE
    return value if math.isfinite(value) and value > 0 else DEFAULT_DEADLINE


def scan(repo: str, node_ids: list[str], off_limits: list[str], explain: bool = False,
         limit_s: float | None = None):
    """`engine.suggest` for `node_ids` of the plan at `repo`, run in a child; its `Report`.

    Raises ScanStopped when the child passes `limit_s` (default: `deadline()`), is stopped by
    `stop_all`, or dies without an answer.
    """
    import multiprocessing

    from leafwise.commands.reconcile.engine import Report

    limit = deadline() if limit_s is None else limit_s
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, repo, node_ids, off_limits, explain),
                            name="leafwise-reconcile", daemon=True)
    started = time.monotonic()
    child.start()
    send.close()  # ours is the reading end: EOF once the child exits
    with _lock:
        _live.add(child)
    try:
        raw = _wait(receive, child, started, limit)
    finally:
        with _lock:
            _live.discard(child)
        receive.close()
        _kill(child)
    try:
        answer = reader.load_json(raw, ANSWER)
    except reader.Refused as exc:
        raise ScanStopped("failed", f"the scan's answer could not be read: {exc}", time.monotonic() - started) from None
    if "error" in answer:
        raise ScanStopped("failed", str(answer["error"]), time.monotonic() - started)
    return Report(**answer["report"])


def _wait(receive, child, started: float, limit: float) -> bytes:
    while True:
        left = limit - (time.monotonic() - started)
        if left <= 0:
            raise ScanStopped("deadline", f"the scan passed its deadline of {limit:g} s and was stopped", limit)
        if receive.poll(min(POLL, left)):
            try:
                return receive.recv_bytes(ANSWER.cap)
            except (EOFError, OSError):
                break  # the child exited without an answer (killed, crashed, out of memory)
        if not child.is_alive() and not receive.poll(0):
            break
    seconds = time.monotonic() - started
    with _lock:
        stopped = child.pid in _stopping
        _stopping.discard(child.pid)
    if stopped:
        raise ScanStopped("stopped", "the scan was stopped before it finished", seconds)
    raise ScanStopped("failed", f"the scan process ended without an answer (exit code {child.exitcode})", seconds)


def _kill(child) -> None:
    """The child's whole process group (it leads one), then the child itself; reaped."""
    if child.pid is not None and child.exitcode is None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            child.kill()
    child.join(5)


def running() -> list[int]:
    """The process ids of the scans this process is waiting on."""
    with _lock:
        return [c.pid for c in _live if c.pid is not None]


def stop_all() -> int:
    """Stop every scan this process is waiting on (the person left the reconcile view, or the canvas
    quits): each waiter answers at once with ScanStopped("stopped"). How many were stopped."""
    with _lock:
        children = list(_live)
        _stopping.update(c.pid for c in children if c.pid is not None)
    for child in children:
        _kill(child)
    return len(children)


def _child(send, repo: str, node_ids: list[str], off_limits: list[str], explain: bool) -> None:
    """In the child: lead a process group (so the deadline kills what the scan starts), scan, answer."""
    os.setsid()
    try:
        answer: dict[str, Any] = {"report": asdict(_scan_here(repo, node_ids, off_limits, explain))}
    except BaseException as exc:  # noqa: BLE001 - any failure is the answer, named, never a hang
        answer = {"error": f"{type(exc).__name__}: {str(exc)[:500]}"}
    send.send_bytes(json.dumps(answer, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
    send.close()


def _scan_here(repo: str, node_ids: list[str], off_limits: list[str], explain: bool):
    from pathlib import Path

    from leafwise.commands.reconcile.engine import suggest
    from leafwise.store import PlanPaths
    from leafwise.store.loader import load_plan

    delay = os.environ.get(DELAY_ENV)
    if delay:
        time.sleep(float(delay))
    plan = load_plan(PlanPaths(Path(repo)))
    nodes = [plan.nodes[i] for i in node_ids if i in plan.nodes]
    return suggest(plan, nodes, off_limits, explain=explain)
