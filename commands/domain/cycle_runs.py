"""Running a cycle's verify commands: the person's approval, the trust check, a process group per
command with a timeout, and the outcome recorded as evidence on the cycle's task (`cycle verify`
in cycle_verify.py is the command)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Iterable

from leafwise.commands.contract import EXIT_CONFLICT, CommandError, Mutation, clean
from leafwise.commands.core.hints import approval_wait
from leafwise.commands.core.validate import PlanCommand
from leafwise.commands.domain.trust import person_here, subject
from leafwise.commands.domain.nodes import write
from leafwise.commands.registry import Ctx
from leafwise.store import Node
from leafwise.store import cycles as ledger


def approve_own(paths: Any, verify: Iterable[str], agent: str | None) -> bool:
    """Approve the verify commands given to `cycle start` when a person typed them at a terminal.

    A person's own words on their own terminal are their consent (docs/security.md, "Approvals").
    Anything else is no person here (`trust.person_here`): an MCP call, a call naming an agent, an
    agent's shell without a terminal, a cycle file that arrived by a merge. Those commands wait for the
    person's approval like any command from a plan file (`check_trusted`). Returns whether approved.
    """
    from leafwise.store import trust

    if not verify or not person_here(agent):
        return False
    try:
        trust.allow(paths.repo, list(verify))
    except OSError:
        return False  # no writable config folder: `cycle verify` waits for `leafwise trust`
    return True


def unapproved(ctx: Ctx, cycle: ledger.Cycle) -> list[PlanCommand]:
    """The cycle's verify commands the person has not approved for this plan."""
    from leafwise.store import trust

    repo = ctx.paths().repo
    allowed = trust.allowed(repo)
    file = f".leafwise/cycles/{cycle.name}.yaml"
    keys = [(command, trust.digest(repo, command)) for command in cycle.verify]
    return [PlanCommand(command, "cycle", cycle.name, file, key, False) for command, key in keys if key not in allowed]


def check_trusted(ctx: Ctx, cycle: ledger.Cycle) -> None:
    """Refuse to run a verify command the person never approved: a person's step (a Wait), never
    the approving line."""
    untrusted = unapproved(ctx, cycle)
    if not untrusted:
        return
    message = (f"cycle {cycle.name} would run {len(untrusted)} verify command(s) that the person has not "
               f"approved for this plan; nothing was run")
    lines = [f"Not approved for this plan (cycle {cycle.name}):"]
    lines += [f"  {c.short}  {c.shown}" for c in untrusted]
    raise CommandError("untrusted_command", message, approval_wait(ctx.cmd, subject(untrusted)),
                       exit_code=EXIT_CONFLICT, category="refused", source=("cycle", cycle.name),
                       details={"untrusted": [{"command": c.command, "hash": c.short} for c in untrusted]},
                       mutation=Mutation("cycle_verify", "untrusted_command", False, message), text=lines)


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
