"""Reconcile's scan (and the verify loop's evidence packet) in a child process with a deadline.

The scan reads code a clone's author wrote: one pathological file, one slow matcher, one huge tree
must never freeze the process that asked (the canvas a person keeps open, the MCP server other
agents call). So `scan` starts this Python on this module (`python -m`, in a session of its own, its
stdin the request and its stdout the report as JSON, never the person's terminal), which loads the
plan and runs `engine.suggest`. The caller only waits on the pipes, holding no lock and no GIL, and
kills the child's whole process group (approved `done_when` commands included) when the deadline
passes or the person leaves (`stop_all`).
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
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
DEFAULT_MEMORY_MB = 2048  # the child's data (heap) cap; a person's own setting: LEAFWISE_RECONCILE_MEMORY_MB
MEMORY_ENV = "LEAFWISE_RECONCILE_MEMORY_MB"
ANSWER = reader.Kind("reconcile worker's answer", 256 * reader.MiB, 64)
REQUEST = reader.Kind("reconcile worker's request", 16 * reader.MiB, 8)
POLL = 0.1  # how often the waiting thread looks at the clock and at `stop_all`


class ScanStopped(Exception):
    """The child did not answer: `why` is "deadline", "stopped" or "failed"; `detail` says more."""

    def __init__(self, why: str, detail: str, seconds: float):
        super().__init__(detail)
        self.why = why
        self.detail = detail
        self.seconds = seconds


_live: dict[int, subprocess.Popen] = {}  # the children still scanning, for stop_all
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


def memory_mb() -> int:
    """The person's cap on the child's memory (LEAFWISE_RECONCILE_MEMORY_MB), else 2,048 MB."""
    raw = os.environ.get(MEMORY_ENV, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MEMORY_MB


def _cap_memory(megabytes: int) -> None:
    """In the child: past the cap an allocation fails (MemoryError), so a tree built to exhaust memory
    ends the scan, never the machine. RLIMIT_DATA counts the heap and private mappings, not the shared
    libraries a virtual-size cap would count."""
    import resource

    cap = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))


def scan(repo: str, node_ids: list[str], off_limits: list[str], explain: bool = False,
         limit_s: float | None = None):
    """`engine.suggest` for `node_ids` of the plan at `repo`, run in a child; its `Report`.

    Raises ScanStopped when the child passes `limit_s` (default: `deadline()`), is stopped by
    `stop_all`, or ends without an answer.
    """
    from leafwise.commands.reconcile.engine import Report

    request = {"job": "scan", "repo": repo, "nodes": node_ids, "off_limits": off_limits, "explain": explain}
    return Report(**_run(request, limit_s)["report"])


def packet(repo: str, node_id: str, limit_s: float | None = None) -> dict[str, Any]:
    """The verify loop's evidence packet of `node_id` (`verify_packet.build` over reconcile's index),
    built in a child as the scan is: the same deadline, memory cap and `stop_all`. Its view as a dict."""
    return _run({"job": "packet", "repo": repo, "node": node_id}, limit_s)["packet"]


def _run(request_data: dict[str, Any], limit_s: float | None) -> dict[str, Any]:
    """Start the child on `request_data`, wait for its answer within the deadline; the answer."""
    limit = deadline() if limit_s is None else limit_s
    request = json.dumps(request_data)
    started = time.monotonic()
    # -P: `-m` would put the working directory (the person's clone) first on sys.path, and a committed
    # json.py or leafwise/__init__.py there would run in place of the module it names
    child = subprocess.Popen([sys.executable, "-P", "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True, close_fds=True)
    with _lock:
        _live[child.pid] = child
    try:
        out, err = _wait(child, request.encode(), started, limit)
    finally:
        with _lock:
            _live.pop(child.pid, None)
        _kill(child)
    try:
        answer = reader.load_json(out, ANSWER)
    except reader.Refused as exc:
        raise ScanStopped("failed", f"the scan's answer could not be read: {exc}; {_tail(err)}",
                          time.monotonic() - started) from None
    if not isinstance(answer, dict) or "error" in answer:
        raise ScanStopped("failed", str(answer.get("error") if isinstance(answer, dict) else answer)[:500],
                          time.monotonic() - started)
    return answer


def _wait(child: subprocess.Popen, request: bytes | None, started: float, limit: float) -> tuple[bytes, bytes]:
    """(stdout, stderr) of the child once it exits; ScanStopped at the deadline or on `stop_all`."""
    while True:
        left = limit - (time.monotonic() - started)
        if left <= 0:
            raise ScanStopped("deadline", f"the scan passed its deadline of {limit:g} s and was stopped", limit)
        try:
            out, err = child.communicate(request, timeout=min(POLL, left))
            break
        except subprocess.TimeoutExpired:
            request = None  # sent already; a retry never loses output
    seconds = time.monotonic() - started
    with _lock:
        stopped = child.pid in _stopping
        _stopping.discard(child.pid)
    if stopped:
        raise ScanStopped("stopped", "the scan was stopped before it finished", seconds)
    if child.returncode != 0 and not out:
        raise ScanStopped("failed", f"the scan process ended without an answer (exit code {child.returncode}); "
                          f"{_tail(err)}", seconds)
    return out, err


def _tail(err: bytes) -> str:
    text = err.decode("utf-8", "replace").strip().splitlines()
    return text[-1][:300] if text else "nothing on its stderr"


def _signal(child: subprocess.Popen) -> None:
    """SIGKILL to the child's whole process group (it leads one), else to the child itself."""
    if child.poll() is None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            child.kill()


def _kill(child: subprocess.Popen) -> None:
    """The child and its group killed, and reaped (by the thread that waits on it)."""
    _signal(child)
    try:
        child.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


def running() -> list[int]:
    """The process ids of the scans this process is waiting on."""
    with _lock:
        return list(_live)


def stop_all() -> int:
    """Stop every scan this process is waiting on (the person left the reconcile view, or the canvas
    quits): each waiter answers at once with ScanStopped("stopped"). How many were stopped."""
    with _lock:
        children = list(_live.values())
        _stopping.update(c.pid for c in children)
    for child in children:
        _signal(child)  # its own waiter reaps it: two threads never read one child's pipes
    return len(children)


def main() -> None:
    """The child: read the request on stdin, scan, write the answer on stdout (JSON)."""
    megabytes = memory_mb()
    try:
        _cap_memory(megabytes)
        request = reader.load_json(sys.stdin.buffer.read(REQUEST.cap + 1), REQUEST)
        delay = os.environ.get(DELAY_ENV)
        if delay:
            time.sleep(float(delay))
        if request.get("job") == "packet":
            answer: dict[str, Any] = {"packet": _packet_here(request["repo"], str(request["node"]))}
        else:
            report = _scan_here(request["repo"], request["nodes"], request["off_limits"], request["explain"])
            answer = {"report": asdict(report)}
    except MemoryError:
        answer = {"error": f"the scan passed its memory cap of {megabytes:,} MB ({MEMORY_ENV}) and was stopped"}
    except BaseException as exc:  # noqa: BLE001 - any failure is the answer, named, never a hang
        answer = {"error": f"{type(exc).__name__}: {str(exc)[:500]}"}
    sys.stdout.buffer.write(json.dumps(answer, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
    sys.stdout.flush()


def _scan_here(repo: str, node_ids: list[str], off_limits: list[str], explain: bool):
    from pathlib import Path

    from leafwise.commands.reconcile.engine import suggest
    from leafwise.store import PlanPaths
    from leafwise.store.loader import load_plan

    plan = load_plan(PlanPaths(Path(repo)))
    nodes = [plan.nodes[i] for i in node_ids if i in plan.nodes]
    return suggest(plan, nodes, off_limits, explain=explain)


def _packet_here(repo: str, node_id: str) -> dict[str, Any]:
    from pathlib import Path

    from leafwise.commands.domain.verify_packet import build
    from leafwise.commands.reconcile.match import Stats
    from leafwise.commands.reconcile.retrieve import RIndex
    from leafwise.commands.reconcile.scan import build_index
    from leafwise.store import PlanPaths
    from leafwise.store.loader import load_plan

    plan = load_plan(PlanPaths(Path(repo)))
    index = build_index(Path(repo))
    found = build(plan.nodes[node_id], index, Stats.of(index), RIndex.of(index))
    return {"places": [p.view() for p in found.places], "tokens": found.tokens, "head": found.head,
            "unnamed": found.unnamed}


if __name__ == "__main__":
    main()
