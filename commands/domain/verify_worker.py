"""The evidence packet built in a child process with a deadline, as reconcile's scan is (`reconcile/worker.py`).

Building a packet reads every file of a clone its author wrote: a huge or pathological tree must never
hold the process that asked (the MCP server other agents call) past the person's deadline
(LEAFWISE_RECONCILE_DEADLINE, the same setting as reconcile's). The child is this Python on this module
in a session of its own (stdin the request, stdout the packet as JSON, read back through the one
reader's caps); at the deadline its whole process group is killed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from leafwise.commands.domain.verify_packet import Packet, PacketPlace
from leafwise.store import reader

ANSWER = reader.Kind("verify packet", 4 * reader.MiB, 8)
REQUEST = reader.Kind("verify packet request", 64 * reader.KiB, 4)


class PacketStopped(Exception):
    """No packet in time (`why`: "deadline") or no answer from the child ("failed")."""

    def __init__(self, why: str, detail: str):
        super().__init__(detail)
        self.why = why
        self.detail = detail


def build_in_child(repo: Path, node_id: str, limit_s: float | None = None) -> Packet:
    from leafwise.commands.reconcile.worker import deadline

    limit = deadline() if limit_s is None else limit_s
    child = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True, close_fds=True)
    try:
        out, err = child.communicate(json.dumps({"repo": str(repo), "node": node_id}).encode(), timeout=limit)
    except subprocess.TimeoutExpired:
        raise PacketStopped("deadline", f"the packet took longer than {limit:g} s and was stopped") from None
    finally:
        _kill(child)
    try:
        answer = reader.load_json(out, ANSWER)
    except reader.Refused as exc:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["nothing on its stderr"]
        raise PacketStopped("failed", f"the packet's answer could not be read ({exc}); {tail[0][:300]}") from None
    if not isinstance(answer, dict) or "error" in answer:
        raise PacketStopped("failed", str(answer.get("error") if isinstance(answer, dict) else answer)[:500])
    return Packet([PacketPlace(**p) for p in answer["places"]], answer["tokens"], answer["head"], answer["unnamed"])


def _kill(child: subprocess.Popen) -> None:
    if child.poll() is None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            child.kill()
    try:
        child.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


def main() -> None:
    """The child: the request on stdin, the packet on stdout (JSON)."""
    try:
        request = reader.load_json(sys.stdin.buffer.read(REQUEST.cap + 1), REQUEST)
        answer = _packet_here(Path(request["repo"]), str(request["node"]))
    except BaseException as exc:  # noqa: BLE001 - any failure is the answer, named, never a hang
        answer = {"error": f"{type(exc).__name__}: {str(exc)[:500]}"}
    sys.stdout.buffer.write(json.dumps(answer, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    sys.stdout.flush()


def _packet_here(repo: Path, node_id: str) -> dict:
    from leafwise.commands.domain.verify_packet import build
    from leafwise.commands.reconcile.match import Stats
    from leafwise.commands.reconcile.retrieve import RIndex
    from leafwise.commands.reconcile.scan import build_index
    from leafwise.store import PlanPaths
    from leafwise.store.loader import load_plan

    plan = load_plan(PlanPaths(repo))
    index = build_index(repo)
    packet = build(plan.nodes[node_id], index, Stats.of(index), RIndex.of(index))
    return {"places": [p.view() for p in packet.places], "tokens": packet.tokens, "head": packet.head,
            "unnamed": packet.unnamed}


if __name__ == "__main__":
    main()
