"""Running a cycle's verify commands: the person's consent, the trust check, a process group per
command with a timeout, and the outcome recorded as evidence on the cycle's task (`cycle verify`
in cycle_verify.py is the command)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Iterable

from leafwise.commands.contract import EXIT_CONFLICT, CommandError, Mutation, clean, fix
from leafwise.commands.domain.nodes import write
from leafwise.commands.registry import Ctx
from leafwise.store import Node
from leafwise.store import cycles as ledger


def consent(paths: Any, verify: Iterable[str]) -> None:
    """The verify commands given to `cycle start` are the caller's own words: approved for this plan.

    A cycle file that arrives any other way (a merge, an agent's edit) holds
    commands nobody approved: `cycle verify` refuses those (see `check_trusted`).
    """
    from leafwise.store import trust

    if verify:
        try:
            trust.allow(paths.repo, list(verify))
        except OSError:
            pass  # no writable config folder: `cycle verify` will ask for `leafwise trust`


def check_trusted(ctx: Ctx, cycle: ledger.Cycle) -> None:
    """Refuse to run a verify command from the cycle file that the person never approved."""
    from leafwise.store import trust

    repo = ctx.paths().repo
    untrusted = [c for c in cycle.verify if not trust.is_trusted(repo, c)]
    if not untrusted:
        return
    keys = [trust.short(trust.digest(repo, c)) for c in untrusted]
    message = (f"cycle {cycle.name} would run {len(untrusted)} command(s) from its file that you have not "
               f"approved for this plan: {untrusted[0]!r}; nothing was run")
    raise CommandError("untrusted_command", message,
                       fix(ctx.cmd("trust", allow=keys),
                           "read the command first; approve it only if you would run it yourself"),
                       exit_code=EXIT_CONFLICT, category="refused", source=("cycle", cycle.name),
                       details={"untrusted": [{"command": c, "hash": k} for c, k in zip(untrusted, keys)]},
                       mutation=Mutation("cycle_verify", "untrusted_command", False, message))


def run(command_line: str, cwd: Path, timeout: float) -> dict[str, Any]:
    """Run one verify command in its own process group; a timeout kills the whole group."""
    began = time.monotonic()
    proc = subprocess.Popen(command_line, shell=True, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    code = 124 if timed_out else proc.returncode  # 124: what timeout(1) answers
    tail = out.decode(errors="replace").strip().splitlines()[-5:]
    return {"command": command_line, "exit_code": code, "timed_out": timed_out,
            "seconds": round(time.monotonic() - began, 2), "output": clean(" | ".join(tail), 400)}


def add_verify_evidence(ctx: Ctx, target: Node, name: str, count: int, at: Any,
                         results: list[dict[str, Any]]) -> dict[str, Any]:
    """Record each verify command's outcome as evidence on the cycle's task; the change, listed."""
    entries = [{"kind": "verify", "command": r["command"], "exit_code": r["exit_code"], "at": at,
                "cycle": name, "iteration": count, "seconds": r["seconds"],
                **({"timed_out": True} if r["timed_out"] else {}),
                **({"note": r["output"]} if r["exit_code"] != 0 and r["output"] else {})} for r in results]

    def add(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        doc["evidence"] = [*(doc.get("evidence") or []), *entries]
        return {"evidence": (None, f"+{len(entries)} verify")}

    write(ctx, target, add)
    return {"id": target.id, "field": "evidence", "from": None, "to": f"+{len(entries)} verify"}
