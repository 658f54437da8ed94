"""`diagnose`: why is this node (or the whole plan) stuck?

It answers with the same `root_cause` / `remediation` shapes an error envelope
carries, so an agent reads one vocabulary whether a command failed or it asked why.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from leafwise.commands.contract import NextAction, Result, bounded, clean, next_, placeholder, wait
from leafwise.commands.core import readiness
from leafwise.commands.core.hints import node_hint, pick_hint
from leafwise.commands.core.picker import until
from leafwise.commands.core.readiness import PROJECT_FILE
from leafwise.commands.domain import team_reads
from leafwise.commands.domain.holds import live_claims, pick_for
from leafwise.commands.domain.nodes import get_node
from leafwise.commands.plan_files import find_problems
from leafwise.commands.registry import Ctx
from leafwise.commands.text import plan_words
from leafwise.store import CLOSED, Node, Plan, Problem, Status
from leafwise.store import claims as leases
from leafwise.store.claims import Claim
from leafwise.store.ids import is_node_id
from leafwise.store.loader import SchemaError, check_node, parse_yaml, read_bounded
from leafwise.store.paths import ID_PATTERN, UnsafePath


@dataclass(slots=True)
class Finding:
    category: str  # blocked, held_by_other_agent, stale_claim, dependency_open, invalid_plan, ...
    reason: str
    action: NextAction
    source: tuple[str, str | None] = ("plan", None)
    severity: str = "info"  # info | warning | error
    repair: str | None = None  # a command that repairs it safely, if any

    def root_cause(self) -> dict[str, Any]:
        kind, ident = self.source
        return {"category": self.category, "reason": self.reason, "source": {"kind": kind, "id": ident},
                "retryable": self.action.marker == "wait", "severity": self.severity,
                "actionable": self.action.marker != "done"}

    def remediation(self) -> dict[str, Any]:
        classification = ("none" if self.category == "none" else "automatic_repair" if self.repair
                          else "retry_later" if self.action.marker == "wait" else "act")
        return {"classification": classification, "summary": self.action.reason or self.reason,
                "automatic_repair": {"tool": self.repair, "allowed": bool(self.repair),
                                     "reason": "safe to apply" if self.repair else "no automatic repair applies"},
                "next_actions": [c for c in (self.action.command, self.action.or_) if c]}

    def as_dict(self) -> dict[str, Any]:
        return {"category": self.category, "severity": self.severity, "source": self.source[1],
                "reason": self.reason, "action": self.action.as_dict()}


def mismatched_id(path: Path) -> str | None:
    """The id inside a node file when that id differs from the file name and is the file's only fault."""
    import yaml  # only diagnose and repair read raw files; keeps yaml off the CLI's start-up

    try:
        data = parse_yaml(read_bounded(path))
    except (OSError, UnsafePath, yaml.YAMLError):
        return None
    inner = data.get("id") if isinstance(data, dict) else None
    if not isinstance(inner, str) or inner == path.stem or not ID_PATTERN.match(inner):
        return None
    try:
        check_node(data, inner)
    except SchemaError:
        return None
    return inner


def problem_action(ctx: Ctx, problem: Problem) -> NextAction:
    """A validator problem's fix as a next action; a file that does not load is diagnosed instead."""
    if problem.file == PROJECT_FILE and problem.code not in ("missing_project",):
        # only a person's text edit repairs project.yaml: the chain of fixes ends here
        return wait(f"a person fixes {problem.file} line {problem.line or 1} "  # project.yaml: our own name
                    f"({plan_words(problem.message, 160)})",
                    "the project file needs a text edit")
    if problem.node is not None and not is_node_id(problem.node) and problem.file:
        # a node file whose name is no id (a planted "T-2\nx.yaml"): no command names it, a person does;
        # the line names its folder, not the name, which is the repository's text (shown above, escaped)
        folder = plan_words(PurePosixPath(problem.file).parent.as_posix(), 80)
        return wait(f"a person renames or removes the file in {folder} whose name is not a node id "
                    f"(`ls -b` there shows it; {plan_words(problem.message, 160)})",
                    "the file's name is not a node id")
    if problem.fix.startswith("leafwise "):
        return next_(problem.fix, problem.code)
    return next_(ctx.cmd("diagnose", problem.node) if problem.node else ctx.cmd("validate"),
                 f"{problem.code}: {problem.fix}")


def _unreadable(ctx: Ctx, plan: Plan, node_id: str, agent: str | None) -> list[Finding] | None:
    """The finding for a node whose file does not load (None when it loads)."""
    broken = next((p for p in plan.problems if p.node == node_id), None)
    if broken is None or node_id in plan.nodes:
        return None
    if broken.code == "yaml_error":
        from leafwise.commands.merge_conflicts import with_merge_conflicts

        broken = next((p for p in with_merge_conflicts(plan, ctx.cmd) if p.node == node_id), broken)
        if broken.code == "duplicate_id":  # two nodes, one id, from two branches: renumber splits them
            return [Finding("invalid_plan", f"{broken.file} line {broken.line or 1}: {clean(broken.message, 300)}",
                            next_(broken.fix, "give the second node its own id"), ("node", node_id), "error")]
    where = f"{broken.file} line {broken.line or 1}"
    mismatch = bool(broken.file and mismatched_id(plan.paths.repo / broken.file))
    other = ctx.cmd("start", next=True, agent=agent) if agent else ctx.cmd("next")
    # only a person's text edit repairs a file that does not parse: the chain of fixes ends here
    action = next_(ctx.cmd("repair", dry_run=True), "repair can rename the file") if mismatch else \
        wait(f"a person fixes {plan_words(broken.file, 160)} line {broken.line or 1} ({plan_words(broken.message, 160)})",
             "the file needs a text edit", or_=other)
    return [Finding("invalid_plan", f"{where}: {clean(broken.message, 300)}", action,
                    ("node", node_id), "error", ctx.cmd("repair") if mismatch else None)]


def _held(ctx: Ctx, node_id: str, claim: Claim, agent: str | None) -> Finding:
    """Someone else holds the node: wait for their lease, or for them to finish."""
    category = "held_by_other_agent" if agent else "in_progress"
    if claim.expires:
        condition = f"{plan_words(claim.agent, 80)} holds {node_id} until {claim.expires}; then run {ctx.cmd('diagnose', node_id)}"
    else:
        condition = f"{plan_words(claim.agent, 80)} finishes {node_id} (assigned without a lease; only a person takes it " \
                    f"back with {ctx.cmd('unclaim', node_id, force=True)})"
    return Finding(category, f"{plan_words(claim.agent, 80)} holds {node_id} {until(claim)}",
                   wait(condition, "held by another agent" if agent else "someone works on it"),
                   ("agent", claim.agent), "info")


def _holding_back(ctx: Ctx, plan: Plan, node: Node, claims: dict[str, Claim], agent: str | None,
                  hint: NextAction, now: datetime) -> Finding:
    """The one thing that holds a readable node back, most fundamental first."""
    node_id = node.id
    claim = claims.get(node_id)
    if node.status in CLOSED:
        return Finding("none", f"{node_id} is {node.status}", hint, ("node", node_id))
    if node.status == Status.BLOCKED:
        decision = node.open_decision
        if decision is None:
            return Finding("blocked", f"blocked: {node.blocked_reason or 'no reason given'}", hint,
                           ("node", node_id), "warning")
        action = wait(f"a person answers the decision on {node_id} "
                      f"({ctx.cmd('decide', node_id, option=placeholder('N'))}); then run {ctx.cmd('next')}",
                      "strategic questions are a person's to settle")
        return Finding("blocked", f"waits for a decision: {decision.get('question')}", action,
                       ("node", node_id), "warning")
    if claim is not None and claim.agent != agent:
        return _held(ctx, node_id, claim, agent)
    if (refused := team_reads.claim_refusal(ctx, plan, node_id, agent)) is not None:  # start's own answer
        return Finding(refused.category, refused.message, refused.action, refused.source, "warning")
    if open_kids := readiness.open_children(plan, node):
        return Finding("in_progress" if node.status == Status.IN_PROGRESS else "children_open",
                       f"{len(open_kids)} open child node(s), e.g. {open_kids[0]}",
                       next_(ctx.cmd("diagnose", open_kids[0]), "a parent waits for its children",
                             or_=ctx.cmd("tree", node_id)), ("node", open_kids[0]))
    if chain := _open_dependency(plan, node_id):
        root = plan.nodes.get(chain[-1])
        what = f"{chain[-1]} does not exist" if root is None else f"{chain[-1]} is {root.status}"
        action = (next_(ctx.cmd("validate"), "a dependency is missing") if root is None
                  else node_hint(ctx.cmd, plan, root, claims, agent, now))
        return Finding("dependency_open", f"waits for {' → '.join(chain)}: {what}", action,
                       ("node", chain[-1]), "info")
    if node.status == Status.IN_PROGRESS:
        return Finding("in_progress", f"{node_id} is in progress" +
                       (f" for {plan_words(claim.agent, 80)} {until(claim)}" if claim else ""), hint, ("node", node_id))
    return Finding("none", f"{node_id} is ready to start", hint, ("node", node_id))


def _node_findings(ctx: Ctx, plan: Plan, node_id: str, agent: str | None) -> list[Finding]:
    """What holds one node back, most fundamental first."""
    unreadable = _unreadable(ctx, plan, node_id, agent)
    if unreadable is not None:
        return unreadable
    now = ctx.clock()
    node = get_node(ctx, node_id, plan)
    last_copy = team_reads.refresh(ctx, plan)  # team mode: the claims as the remote has them, as `next` reads them
    findings = [Finding("invalid_plan", f"{p.file}:{p.line or 1}: {p.message}", problem_action(ctx, p),
                        ("node", node_id), "error")
                for p in find_problems(plan, ctx.cmd) if p.node == node_id and p.severity == "error"]
    claims = live_claims(ctx, plan)  # live leases and lease-less assignments
    lease = leases.read(ctx.paths(), node_id)
    stale = lease if lease is not None and lease.expired(now) else None
    hint = node_hint(ctx.cmd, plan, node, claims, agent, now)
    if stale is not None:
        findings.append(Finding("stale_claim", f"{stale.agent}'s claim on {node_id} expired at {stale.expires}",
                                next_(ctx.cmd("repair"), "release the expired claim",
                                      or_=hint.command if hint.marker == "next" else None),
                                ("node", node_id), "warning", ctx.cmd("repair")))
    findings.append(_holding_back(ctx, plan, node, claims, agent, hint, now))
    return findings + _last_copy(last_copy, hint)


def _last_copy(words: str | None, hint: NextAction) -> list[Finding]:
    """Team mode, the remote silent: the finding that says the answer read this clone's last copy of
    the claims (`team_reads.refresh`'s words, as `next` says them)."""
    return [Finding("team_claims", words, hint, ("plan", None), "warning")] if words else []


def _open_dependency(plan: Plan, node_id: str) -> list[str]:
    """The chain of open dependencies down to the one that is not itself waiting ([] if none)."""
    chain: list[str] = []
    cursor = plan.nodes[node_id]
    seen = {node_id}
    while True:
        dep = next(iter(readiness.unmet_dependencies(plan, cursor)), None)
        if dep is None or dep in seen:
            return chain
        chain.append(dep)
        seen.add(dep)
        if dep not in plan.nodes:
            return chain
        cursor = plan.nodes[dep]


def _plan_findings(ctx: Ctx, plan: Plan, agent: str | None) -> list[Finding]:
    """What holds the plan back: errors first, then why the picker is stuck, then garbage."""
    now = ctx.clock()
    findings = [Finding("invalid_plan", f"{p.file or 'plan'}:{p.line or 1}: {p.message}", problem_action(ctx, p),
                        ("node", p.node) if p.node else ("plan", None), "error")
                for p in find_problems(plan, ctx.cmd) if p.severity == "error"]
    last_copy = team_reads.refresh(ctx, plan)  # team mode: the claims as the remote has them, as `next` reads them
    chosen = pick_for(ctx, agent, plan)
    hint = pick_hint(ctx.cmd, chosen, agent)
    cause, waiting_on = team_reads.merge_wait(ctx, plan) if chosen.node is None else ([], None)
    if waiting_on is not None:  # `next`'s own lead: the team's cause, never the picker's "not ready"
        picked = Finding("team_claims", team_reads.cause_first([f"No task to hand out: {chosen.reason}"], cause)[0],
                         waiting_on, ("plan", None), "warning")
    elif chosen.node is not None:
        picked = Finding("none", f"{chosen.node.id} is next ({chosen.reason})", hint, ("node", chosen.node.id))
    elif chosen.open_count == 0:
        picked = Finding("none", chosen.reason, hint, ("plan", None))
    elif chosen.held:
        node, claim = chosen.held[0]
        picked = Finding("held_by_other_agent", f"{len(chosen.held)} open node(s) held, e.g. {node.id} by "
                         f"{plan_words(claim.agent, 80)}", hint, ("node", node.id), "info")
    elif chosen.blocked:
        picked = Finding("blocked", f"{len(chosen.blocked)} blocked node(s) hold the rest back, first "
                         f"{chosen.blocked[0].id}: {chosen.blocked[0].blocked_reason or 'no reason'}",
                         hint, ("node", chosen.blocked[0].id), "warning")
    else:
        picked = Finding("dependency_open", chosen.reason, hint, ("plan", None), "warning")
    stale = [c for c in leases.read_all(ctx.paths()).values() if c.expired(now)]
    garbage = [Finding("stale_claim", f"{c.agent}'s claim on {c.node} expired at {c.expires}",
                       next_(ctx.cmd("repair"), "release expired claims"), ("node", c.node), "warning",
                       ctx.cmd("repair")) for c in sorted(stale, key=lambda c: c.node)]
    return findings + [picked] + _last_copy(last_copy, hint) + garbage  # garbage never holds work back


def diagnose(ctx: Ctx, node_id: str | None = None, agent: str | None = None) -> Result:
    """The root cause, its remediation and the next step, for one node or the whole plan."""
    plan = ctx.plan()
    findings = _node_findings(ctx, plan, node_id, agent) if node_id else _plan_findings(ctx, plan, agent)
    top = findings[0]
    lines = [f"{node_id or 'plan'}: {top.category} — {top.reason}"]
    lines += [f"  {f.severity:7} {f.category:20} {f.reason}" for f in findings[1:]]
    return Result({"target": node_id, "root_cause": top.root_cause(), "remediation": top.remediation(),
                   "findings": bounded([f.as_dict() for f in findings], 50)}, top.action, lines)
