"""`repair`: the safe automatic repairs.

It only does what cannot lose work: each step re-checks its precondition under
the node's lock, and every step, applied, needless or refused, is listed in the
mutation record. The steps: rebuild a stale cache, remove stray temporary files,
rename a node file whose id is its only fault, release expired claims, and close
parents whose children are all closed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leafwise.commands.adoption.recovery import repairs as repairs_of_an_interrupted_import
from leafwise.commands.contract import Mutation, Result, next_
from leafwise.commands.domain.diagnosis import mismatched_id, problem_action
from leafwise.commands.domain.doctor import cache_state
from leafwise.commands.domain.holds import give_back
from leafwise.commands.domain.nodes import record
from leafwise.commands.domain.owed_cascades import close_owed, unreadable
from leafwise.commands.plan_files import find_problems
from leafwise.commands.registry import Ctx
from leafwise.store import CLOSED, Plan, PlanNotFound, find_root, load_plan
from leafwise.store import claims as leases
from leafwise.store.loader import cache_for
from leafwise.store.paths import ID_PATTERN, PLAN_DIR, OWN_FOLDERS, PlanPaths, PlanUnsafe, confinement_problem
from leafwise.store.writer import LockBusy, edit_node, locked, sweep_temp_files


@dataclass(slots=True)
class Repairs:
    dry_run: bool
    changes: list[dict[str, Any]] = field(default_factory=list)

    def add(self, repair: str, applied: bool, **about: Any) -> None:
        self.changes.append({"repair": repair, "applied": applied and not self.dry_run, **about})


def _referenced(plan: Plan, node_id: str) -> bool:
    return any(n.parent == node_id or node_id in n.depends_on for n in plan.nodes.values())


def _fix_names(ctx: Ctx, plan: Plan, out: Repairs) -> None:
    """A node file whose id differs from its name: rename the file, or re-id a copy, when only one is right.

    Rename when the file's id is free and nothing points at the file name; take the
    file name as the id when the file's id belongs to another node (a copied file)
    or only the file name is referred to; otherwise refuse and say why.
    """
    paths = ctx.paths()
    found: dict[str, tuple[Path, str]] = {}
    for problem in plan.problems:
        if problem.node and problem.file:
            path = paths.repo / problem.file
            inner = mismatched_id(path)
            if inner:
                found[path.stem] = (path, inner)
    inner_ids = [inner for _path, inner in found.values()]
    for stem, (path, inner) in sorted(found.items()):
        rel = f"{PLAN_DIR}/nodes/{path.name}"
        taken = inner in plan.nodes or paths.nodes.joinpath(f"{inner}.yaml").exists()
        if inner_ids.count(inner) == 1 and not taken and not _referenced(plan, stem):
            target = paths.nodes / f"{inner}.yaml"
            if not out.dry_run:
                with locked(paths, inner):
                    os.link(path, target)  # fails if the name appeared meanwhile: never overwrites
                    path.unlink()
                record(ctx, "repair", inner, {"file": (path.name, target.name)}, repair="rename_node_file")
            out.add("rename_node_file", True, id=inner, file=rel, to=f"{PLAN_DIR}/nodes/{target.name}")
        elif ID_PATTERN.match(stem) and stem not in plan.nodes and (taken or not _referenced(plan, inner)):
            if not out.dry_run:
                edit_node(paths, stem, None, lambda doc: doc.__setitem__("id", stem))
                record(ctx, "repair", stem, {"id": (inner, stem)}, repair="set_id_from_file_name")
            out.add("set_id_from_file_name", True, id=stem, file=rel, **{"from": inner, "to": stem})
        else:
            out.add("fix_id_mismatch", False, id=stem, file=rel,
                    refused=f"ambiguous: the file says {inner} and both ids are in use; fix it by hand")


def _release_claims(ctx: Ctx, plan: Plan, out: Repairs) -> None:
    """Expired leases, and leases on closed or missing nodes, hold nothing: remove them."""
    paths = ctx.paths()
    now = ctx.clock()
    try:
        names = sorted(n for n in os.listdir(paths.claims) if n.endswith(".json") and not n.startswith("."))
    except FileNotFoundError:
        return
    for name in names:
        node_id = name[:-5]
        if not ID_PATTERN.match(node_id):
            continue
        claim = leases.read(paths, node_id)
        node = plan.nodes.get(node_id)
        why = ("unreadable" if claim is None else "expired" if claim.expired(now)
               else "node missing" if node is None and not any(p.node == node_id for p in plan.problems)
               else f"node {node.status}" if node is not None and node.status in CLOSED else None)
        if why is None:
            continue
        if not out.dry_run:
            with locked(paths, node_id):  # a racing `start` may have renewed it: look again
                again = leases.read(paths, node_id)
                if again is not None and again != claim:
                    out.add("release_claim", False, id=node_id, refused="renewed meanwhile")
                    continue
                if node is not None and node.status not in CLOSED:
                    # back to the picker: a lease-less in-progress task would be its assignee's forever
                    changes = give_back(ctx, node, {claim.agent} if claim else None)
                else:
                    changes = {}
                    leases.remove(paths, node_id)
            record(ctx, "repair", node_id, changes, repair="release_claim", why=why)
        out.add("release_claim", True, id=node_id, file=f"{PLAN_DIR}/claims/{name}", why=why,
                agent=claim.agent if claim else None)


def _remove_strays(ctx: Ctx, out: Repairs) -> None:
    paths = ctx.paths()
    for path in sweep_temp_files(paths, dry_run=out.dry_run):
        out.add("remove_temp_file", True, file=str(path.relative_to(paths.repo)))


def _rerun_cascades(ctx: Ctx, plan: Plan, out: Repairs) -> None:
    """Close open parents whose children are all closed, deepest first (as `complete` would have).

    Refused while a node file does not load: its parent is unknown, so any
    parent might have one more open child than the plan shows.
    """
    if unread := unreadable(plan):
        out.add("cascade", False, refused=f"{len(unread)} node file(s) do not load (e.g. {unread[0]}); "
                                          "a parent may have an open child that cannot be read")
        return
    for moved in close_owed(ctx, plan, "repair", out.dry_run, repair="cascade"):
        out.add("cascade", True, id=moved["id"], field="status", **{"from": moved["from"], "to": moved["to"]})


def _replace_links(paths: PlanPaths, out: Repairs) -> PlanUnsafe | None:
    """Replace each link, FIFO or socket among the plan's recreated entries (journal, claims, locks,
    cache: `paths.RECREATED`) by an empty regular file or folder. Unlinking removes the name only: what
    a link points at is never opened nor touched. The problem left, if any, is the person's."""
    for _ in range(len(OWN_FOLDERS) + 4):
        unsafe = confinement_problem(paths.repo)
        if unsafe is None or not unsafe.repairable:
            return unsafe
        out.add("replace_link", True, file=unsafe.rel, was=unsafe.what)
        if out.dry_run:
            return None  # a dry run shows the first; the others show after it is applied
        target = paths.repo / unsafe.rel
        target.unlink()
        if unsafe.rel.rpartition("/")[2] in OWN_FOLDERS:
            target.mkdir()
        else:  # O_EXCL | O_NOFOLLOW: a name planted meanwhile is refused, never written through
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644))
    return confinement_problem(paths.repo)


def _refuse_unsafe(ctx: Ctx, unsafe: PlanUnsafe, out: Repairs) -> Result:
    """No repair reads a plan through a link: the person removes it (the step in the message)."""
    out.add("replace_link", False, file=unsafe.rel, refused=str(unsafe))
    reason = f"refused: {unsafe.rel} is {unsafe.what}"
    return Result({"dry_run": out.dry_run, "repairs": out.changes, "applied": 0, "refused": 1,
                   "remaining_errors": 1}, next_(ctx.cmd("doctor"), unsafe.step),
                  [reason, f"  {unsafe.step}"], Mutation("repair_plan", "repair", False, reason, out.changes))


def repair(ctx: Ctx, dry_run: bool = False) -> Result:
    """Apply (or with `dry_run` list) every safe repair; each one applied, needless or refused is listed."""
    out = Repairs(dry_run)
    try:  # found even when a link makes it unusable: replacing that link is this command's first repair
        paths = ctx.found_paths or find_root(ctx.cwd, ctx.root, confined=False)
    except PlanNotFound:
        paths = ctx.paths()  # answers plan_not_found
    if (unsafe := _replace_links(paths, out)) is not None:
        return _refuse_unsafe(ctx, unsafe, out)
    if dry_run and out.changes:  # the rest would read the plan through the link: listed once it is gone
        reason = "dry run: 1 repair(s) would apply"
        return Result({"dry_run": True, "repairs": out.changes, "applied": 0, "refused": 0, "remaining_errors": 0},
                      next_(ctx.cmd("repair"), "replace the link; the other repairs show once it is gone"),
                      [reason, f"  would replace_link {out.changes[0]['file']}"],
                      Mutation("repair_plan", "repair", False, reason, out.changes))
    ctx.use_paths(paths)
    unfinished = repairs_of_an_interrupted_import(paths, dry_run)  # before the temp files it names go
    out.changes += unfinished
    state, message = cache_state(paths)
    if state in ("stale", "unreadable"):
        if not dry_run:
            cache_for(paths).clear()
            load_plan(paths)
        out.add("rebuild_cache", True, file=str(cache_for(paths).path), why=message)
    if not any("refused" in c for c in unfinished):  # else they may be a person's only copy
        _remove_strays(ctx, out)
    try:
        _fix_names(ctx, ctx.plan(), out)
        ctx.forget()
        plan = ctx.plan()
        _release_claims(ctx, plan, out)
        _rerun_cascades(ctx, plan, out)
    except LockBusy as exc:
        out.add("lock", False, refused=str(exc))
    ctx.forget()
    done_count = sum(1 for c in out.changes if "refused" not in c)
    refused = [c for c in out.changes if "refused" in c]
    errors = [p for p in find_problems(ctx.plan(), ctx.cmd) if p.severity == "error"]
    if dry_run:
        reason = f"dry run: {done_count} repair(s) would apply" if done_count else "dry run: nothing needs repair"
    else:
        reason = f"{done_count} repair(s) applied" if done_count else "nothing needed repair"
    if refused:
        reason += f", {len(refused)} refused"
    if dry_run and done_count:
        action = next_(ctx.cmd("repair"), "apply these repairs")
    elif errors:
        action = problem_action(ctx, errors[0])
    else:
        action = next_(ctx.cmd("next"), "the plan needs no repair")
    lines = [reason] + [" ".join(filter(None, ("  would" if dry_run and "refused" not in c else " ", c["repair"],
                                               c.get("id") or c.get("file"))))
                        + (f": refused, {c['refused']}" if "refused" in c else "") for c in out.changes]
    return Result({"dry_run": dry_run, "repairs": out.changes, "applied": 0 if dry_run else done_count,
                   "refused": len(refused), "remaining_errors": len(errors)}, action, lines,
                  Mutation("repair_plan", "repair", not dry_run and done_count > 0, reason, out.changes))
