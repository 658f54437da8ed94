"""The gates other commands pass through while bounded cycles run.

- `check_complete`: `complete` of a task a running cycle owns needs that
  cycle's latest verify green on that task.
- `off_limits_for` / `check_paths`: the path globs no write may touch.

Kept apart from `cycles.py` so `complete`, `reconcile --apply` and the doc
writers import only these small checks.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from leafwise.commands.contract import EXIT_CONFLICT, CommandError, Mutation, fix
from leafwise.commands.registry import Ctx
from leafwise.store import Node, Plan
from leafwise.store import cycles as ledger

FOR_EACH = "for-each-work-item"


def running_cycles(ctx: Ctx) -> list[ledger.Cycle]:
    """The running cycles; an unreadable cycle file gates nothing (`cycle status` shows it)."""
    out = []
    for name in ledger.names(ctx.paths()):
        try:
            cycle = ledger.read(ctx.paths(), name)
        except ledger.LedgerError:
            continue
        if cycle is not None and cycle.running:
            out.append(cycle)
    return out


def scope_ids(plan: Plan, cycle: ledger.Cycle) -> set[str] | None:
    """For-each with --node: the subtree it walks; None means the whole backlog. A node that is gone
    scopes nothing (never the whole backlog: `require_node` stops such a cycle)."""
    if not cycle.node:
        return None
    if cycle.node not in plan.nodes:
        return set()
    return {cycle.node, *(d.id for d in plan.descendants(cycle.node))}


def owns(plan: Plan, cycle: ledger.Cycle, node: Node) -> bool:
    """The cycle's task, its current item, a leaf of its subtree, or (unscoped) its agent's task."""
    if node.id == cycle.current or (cycle.kind != FOR_EACH and node.id == cycle.node):
        return True
    if cycle.kind != FOR_EACH or node.children:
        return False
    scope = scope_ids(plan, cycle)
    if scope is not None:
        return node.id in scope
    return bool(cycle.agent) and node.assignee == cycle.agent


def owning_cycle(ctx: Ctx, node: Node) -> ledger.Cycle | None:
    """The running cycle that owns `node`, if any (its next step is a tick, not a new task)."""
    if not ctx.paths().cycles.is_dir():
        return None
    plan = ctx.plan()
    return next((c for c in running_cycles(ctx) if owns(plan, c, node)), None)


def check_complete(ctx: Ctx, node: Node) -> None:
    """Raise CommandError (exit 3) unless every running cycle owning `node` saw it verify green."""
    if not ctx.paths().cycles.is_dir():
        return
    plan = ctx.plan()
    for cycle in running_cycles(ctx):
        if not cycle.verify or not owns(plan, cycle, node):
            continue
        last = cycle.last_verify or {}
        if last.get("node") == node.id and last.get("green"):
            continue
        current = node.id == (cycle.current if cycle.kind == FOR_EACH else cycle.node)
        latest = ("no verify of it yet" if last.get("node") != node.id
                  else f"the latest verify was red, exit codes {last.get('exit_codes')}")
        message = f"{node.id} belongs to cycle {cycle.name}: complete needs a green verify first ({latest})"
        raise CommandError("verify_required", message,
                           fix(ctx.cmd("cycle verify" if current else "cycle tick", cycle.name),
                               "Leafwise runs the verify commands and records their exit codes"),
                           exit_code=EXIT_CONFLICT, category="refused", source=("node", node.id),
                           details={"cycle": cycle.name, "last_verify": cycle.last_verify},
                           mutation=Mutation("complete_task", "verify_required", False, message))


def off_limits_for(ctx: Ctx) -> list[str]:
    """The path globs no write may touch while their cycles run."""
    globs: list[str] = []
    for cycle in running_cycles(ctx):
        globs += [g for g in cycle.off_limits if g not in globs]
    return globs


def repo_glob(glob: str, repo: Path) -> str:
    """An off-limits glob as the repository-relative paths it is matched against: an absolute glob
    under the repository made relative, any other rooted glob anchored at the repository's root as
    in .gitignore (`/src/**` is `src/**`: no path in the repository lies elsewhere), `a//b` as `a/b`.
    Written any of these ways it protects the same files, never silently nothing."""
    text = re.sub(r"/{2,}", "/", glob)
    root = repo.as_posix().rstrip("/") + "/"
    return text[len(root):] if text.startswith(root) else text.lstrip("/")


def check_paths(ctx: Ctx, paths: Iterable[str | Path]) -> None:
    """Refuse (exit 3, Fix:) if a path is off limits for a running cycle; call before writing.

    Paths are relative to the repository (the folder holding `.leafwise/`) or absolute.
    """
    running = [c for c in running_cycles(ctx) if c.off_limits]
    if not running:
        return
    repo = ctx.paths().repo.resolve()
    for path in paths:
        rel = Path(path)
        if rel.is_absolute():
            try:
                rel = rel.resolve().relative_to(repo)
            except ValueError:
                continue  # outside the repository: no glob of ours covers it
        for cycle in running:
            glob = ledger.first_match(rel.as_posix(), [repo_glob(g, repo) for g in cycle.off_limits])
            if glob is not None:
                message = f"{rel.as_posix()} is off limits while cycle {cycle.name} runs (glob {glob})"
                raise CommandError("off_limits", message,
                                   fix(ctx.cmd("cycle status", cycle.name), "leave it alone; see the off-limits"),
                                   exit_code=EXIT_CONFLICT, category="refused", source=("cycle", cycle.name),
                                   details={"path": rel.as_posix(), "glob": glob, "cycle": cycle.name})
