"""What the pure rules of `commands/core/` need from the disk, read here: the validator's facts
(lines of node files, linked docs, the commands plan files would run, git's merge conflicts) and the
journal's events for the forecast. Every command and the canvas validate through `find_problems`.
Every file is read through `store/reader.py` (bounded, no link, no device or FIFO).
"""

from __future__ import annotations

import os
from pathlib import Path

from leafwise.commands.contract import CommandLine
from leafwise.commands.core.forecast import DONE_MARK
from leafwise.commands.core.validate import PlanCommand, PlanFiles, key_line, plan_problems
from leafwise.commands.events import Event
from leafwise.commands.registry import command_line
from leafwise.store import Node, Plan, Problem, reader
from leafwise.store.paths import UnsafePath, resolve_inside

__all__ = ["PlanCommand", "find_problems", "first_error", "plan_commands", "plan_files", "read_lines", "done_events"]


def find_problems(plan: Plan, cmd: CommandLine = command_line) -> list[Problem]:
    """All problems of the plan (`core.validate.plan_problems`), with what the disk says; an
    interrupted import first (the other problems may be its half-written files).

    Kept for a plan a long-lived server vouches for (`readiness.kept`: its files unchanged since), per
    caller (the fixes carry its agent) and per state of the person's approvals, which live outside
    the plan. Not for a plan with a file that does not load: that one asks git for merge conflicts."""
    if not plan.problems:
        from leafwise.commands.core.readiness import kept
        from leafwise.store import trust

        key = f"problems {cmd('next')} {_approvals(trust.store_path())}"
        found = kept(plan, key, lambda p: _find_problems(p, cmd))
        if found is not None:
            return list(found)
    return _find_problems(plan, cmd)


def _approvals(path: Path) -> tuple[int, int, int, int] | None:
    """The approvals file as it is now (it is replaced whole on every change: a new inode)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _find_problems(plan: Plan, cmd: CommandLine) -> list[Problem]:
    from leafwise.commands.adoption.interrupted import problems as interrupted_import

    return interrupted_import(plan.paths, cmd("repair")) + plan_problems(plan, plan_files(plan, cmd), cmd)


def first_error(plan: Plan, cmd: CommandLine) -> Problem | None:
    return next((p for p in find_problems(plan, cmd) if p.severity == "error"), None)


def plan_files(plan: Plan, cmd: CommandLine) -> PlanFiles:
    from leafwise.commands.merge_conflicts import with_merge_conflicts  # runs git only on a broken file

    lines: dict[str, list[str] | None] = {}

    def line_of(node: Node, key: str) -> int | None:
        if node.file not in lines:  # a node file is read only when it has a problem, and then once
            try:
                lines[node.file] = reader.read_text(plan.paths.repo / node.file, reader.NODE,
                                                    under=plan.paths.repo).splitlines()
            except (OSError, ValueError):  # reader.Refused too: no line to point at
                lines[node.file] = None
        found = lines[node.file]
        return key_line(found, key) if found is not None else None

    def link(rel: str) -> bool | UnsafePath:
        try:
            return resolve_inside(plan.paths.dir, rel).is_file()
        except UnsafePath as exc:
            return exc

    broken: list[Problem] = []
    commands = plan_commands(plan, broken)
    return PlanFiles([*with_merge_conflicts(plan, cmd), *broken], line_of, link, commands)


def plan_commands(plan: Plan, broken: list[Problem] | None = None) -> list[PlanCommand]:
    """Every command the plan's files would have Leafwise run, with whether the person approved it;
    a cycle file that cannot be trusted goes to `broken` (validate's error, never silently skipped).

    Every `complete` validates, so what most plans lack (done_when checks, cycles) is imported only
    when it is there."""
    found: list[tuple[str, str, str, str]] = []
    for node in plan.nodes.values():
        if "done_when" in node.data:
            from leafwise.commands.reconcile.checks import declared

            found += [(value, "node", node.id, node.file) for kind, value in declared(node.data)
                      if kind == "command"]
    found += _cycle_commands(plan, broken if broken is not None else [])
    if not found:
        return []
    from leafwise.store import trust

    repo = plan.paths.repo
    allowed = trust.allowed(repo)
    out = []
    for command, source, owner, file in found:
        key = trust.digest(repo, command)
        out.append(PlanCommand(command, source, owner, file, key, key in allowed))
    return sorted(out, key=lambda c: (c.source, c.owner, c.command))


def _cycle_commands(plan: Plan, broken: list[Problem]) -> list[tuple[str, str, str, str]]:
    """The cycles' verify commands; a cycle file that does not load, or a running cycle whose node is
    gone (its next tick refuses), goes to `broken`."""
    paths = plan.paths
    if not paths.cycles.is_dir():
        return []
    from leafwise.store import cycles as ledger

    try:
        names = ledger.names(paths)
    except (OSError, ValueError):
        return []
    found = []
    for name in names:
        file = f".leafwise/cycles/{name}.yaml"
        try:
            cycle = ledger.read(paths, name)
        except (ledger.LedgerError, OSError, ValueError, TypeError) as exc:
            line = getattr(exc, "line", None)
            broken.append(Problem("cycle_file", "error", f"{exc}: a person fixes or deletes the file",
                                  command_line("cycle status"), file=file, line=line if isinstance(line, int) else None))
            continue
        if cycle is None:
            continue
        found += [(str(c), "cycle", name, file) for c in cycle.verify]
        if cycle.status == "running" and cycle.node and cycle.node not in plan.nodes:
            broken.append(Problem("cycle_node_gone", "warning",
                                  f"cycle {name} runs on {cycle.node}, which is not in the plan: its next tick refuses",
                                  command_line("cycle stop", name), file=file, line=None))
    return found


def read_lines(path: Path) -> list[Event]:
    """The journal's events that may close a leaf, for `core.forecast.forecast`: none when the
    journal does not exist yet or is not a regular file (a link, a device: doctor reports it). A
    journal over the reader's cap is read from its last cap bytes, where the newest events are."""
    try:
        fd = reader.open_fd(path)
    except (OSError, reader.Refused):
        return []
    try:
        start = max(0, os.fstat(fd).st_size - reader.JOURNAL.cap)
        os.lseek(fd, start, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    lines = reader.read_fd(fd, reader.JOURNAL.cap - 1).split(b"\n")  # read_fd closes it
    return done_events(lines[1:] if start else lines)  # from the middle: the first line is cut


def done_events(lines: list[bytes]) -> list[Event]:
    """The events of the journal lines that mention "done" (a line that is not an event skipped)."""
    out = []
    for line in lines:
        if DONE_MARK not in line:
            continue
        try:
            event = Event.read(reader.load_json(line, reader.EVENT))
        except reader.Refused:
            continue
        if event is not None:
            out.append(event)
    return out
