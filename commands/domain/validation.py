"""The validator's answer, and the refusal of a step while the plan has errors that touch it."""

from __future__ import annotations

from leafwise.commands.contract import EXIT_INVALID, CommandError, NextAction, Result, bounded, fix, next_, placeholder
from leafwise.commands.core.hints import approval_wait
from leafwise.commands.core.readiness import PROJECT_FILE
from leafwise.commands.domain.trust import subject
from leafwise.commands.plan_files import find_problems, first_error, plan_commands
from leafwise.commands.registry import Ctx
from leafwise.store import Node, Plan, Problem

PLAN_WIDE = {"hierarchy_cycle", "duplicate_id", "duplicate_release", "merge_conflict"}
# A broken cycle file stops its cycle (`cycle tick` refuses it), never unrelated tasks.
CYCLE_ONLY = {"cycle_file", "cycle_node_gone"}
# Warnings only a person can clear: approving a command from a plan file (docs/security.md, "Approvals").
PERSON_STEPS = {"untrusted_command"}


def touches(plan: Plan, node: Node, problem: Problem) -> bool:
    """Whether a problem concerns the task: in it, its ancestors, its dependencies, or the whole plan."""
    if problem.code in CYCLE_ONLY:
        return False
    if problem.code in PLAN_WIDE or problem.node is None or problem.file == PROJECT_FILE:
        return True
    scope = {node.id, *(a.id for a in plan.ancestors(node.id)), *node.depends_on}
    if problem.node in scope:
        return True
    if problem.code == "dependency_cycle":  # "dependency cycle: A → B → A"
        return node.id in problem.message.split(": ", 1)[-1].split(" → ")
    return False


def require_valid_for(ctx: Ctx, plan: Plan, node: Node, doing: str) -> list[dict]:
    """Refuse only for errors that touch the task (see `touches`); the others come back as warnings."""
    problems = [p for p in find_problems(plan, ctx.cmd) if p.severity == "error"]
    mine = [p for p in problems if touches(plan, node, p)]
    if mine:
        _refuse(ctx, mine[0], doing)
    return [p.as_dict() for p in problems[:20]]


def _refuse(ctx: Ctx, problem: Problem, doing: str) -> None:
    where = f"{problem.file}:{problem.line or 1}" if problem.file else "the plan"
    raise CommandError(
        "invalid_plan", f"{doing} refused: the plan has errors; first: {where}: {problem.message}",
        fix(problem.fix, f"{problem.code} in {where}", or_=ctx.cmd("validate")),
        exit_code=EXIT_INVALID, category="invalid_plan",
        source=("node" if problem.node else "plan", problem.node),
        details={"problem": problem.as_dict()}, repair=("leafwise repair", False, "needs a person's edit"))


def require_valid(ctx: Ctx, plan: Plan, doing: str) -> None:
    """Refuse a state-changing step while the validator reports errors."""
    problem = first_error(plan, ctx.cmd)
    if problem is not None:
        _refuse(ctx, problem, doing)


def _warning_action(ctx: Ctx, plan: Plan, problems: list[Problem]) -> NextAction:
    """The first warning an agent can fix; with only a person's steps left, Wait for the person."""
    mine = next((p for p in problems if p.code not in PERSON_STEPS), None)
    if mine is not None:
        return next_(mine.fix, f"{mine.code}: {mine.message}", or_=ctx.cmd("next"))
    return approval_wait(ctx.cmd, subject([c for c in plan_commands(plan) if not c.trusted]))


def validate(ctx: Ctx, limit: int = 100) -> Result:
    """Every problem with its file, line and fix; exit 4 while there are errors."""
    plan = ctx.plan()
    problems = find_problems(plan, ctx.cmd)
    errors = [p for p in problems if p.severity == "error"]
    warnings = len(problems) - len(errors)
    body = {"valid": not errors, "errors": len(errors), "warnings": warnings,
            "nodes": len(plan.nodes), "problems": bounded([p.as_dict() for p in problems], limit)}
    lines = [f"{len(plan.nodes)} nodes, {len(errors)} error(s), {warnings} warning(s)"]
    for p in problems[: body["problems"]["limit"]]:
        where = f"{p.file}:{p.line}" if p.file and p.line else (p.file or "plan")
        lines.append(f"  {p.severity.upper():7} {p.code:24} {where}  {p.message}")
        lines.append(f"          to fix: {p.fix}")
    if errors:
        first = errors[0]
        raise CommandError(
            "invalid_plan", f"{len(errors)} error(s); first: {first.file}:{first.line or 1}: {first.message}",
            fix(first.fix, first.code, or_=ctx.cmd("repair", dry_run=True)), exit_code=EXIT_INVALID,
            category="invalid_plan", source=("node" if first.node else "plan", first.node),
            details=body, repair=("leafwise repair", True, "some problems have safe repairs"), text=lines)
    if warnings:
        return Result(body, _warning_action(ctx, plan, problems), lines)
    return Result(body, next_(ctx.cmd("next"), "the plan is valid"), lines) if plan.nodes else \
        Result(body, next_(ctx.cmd("add", placeholder("title")), "the plan has no nodes yet"), lines)

