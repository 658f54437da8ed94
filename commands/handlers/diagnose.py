"""Diagnostics: `diagnose` (why is this stuck?), `doctor` (is the install healthy?), `repair`.

`diagnose` answers with the same `root_cause` / `remediation` shapes an error
envelope carries, so an agent reads one vocabulary whether a command failed or
it asked why. `repair` only does what cannot lose work: each step re-checks its
precondition under the node's lock, and every step, applied, needless or
refused, is listed in the mutation record.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leafwise.commands.contract import Mutation, NextAction, Result, bounded, clean, next_, quote, wait
from leafwise.commands.core import lifecycle, readiness
from leafwise.commands.core.cascade import cascades, closing_status
from leafwise.commands.core.hints import agent_arg, node_hint, pick_hint
from leafwise.commands.core.picker import until
from leafwise.commands.core.validate import PROJECT_FILE, find_problems
from leafwise.commands.handlers.leases import give_back
from leafwise.commands.handlers.shared import get_node, live_claims, pick_for, record, set_fields, write
from leafwise.commands.registry import Ctx, Param, command
from leafwise.store import CLOSED, Plan, PlanNotFound, Problem, Status, find_root, load_plan
from leafwise.store import claims as leases
from leafwise.store.loader import PROJECT_KEY, SchemaError, cache_for, check_node, parse_yaml, read_bounded
from leafwise.store.paths import ID_PATTERN, PLAN_DIR, PlanPaths, UnsafePath
from leafwise.store.writer import LockBusy, edit_node, locked, sweep_temp_files

SCHEMA_FILE = Path(__file__).parent.parent / "envelope.schema.json"  # commands/envelope.schema.json
SUPPORTED_SCHEMA = 1  # the project.yaml `schema:` this version reads and writes


def envelope_schema() -> dict[str, Any]:
    """The JSON Schema of the result envelope, shipped beside this module."""
    return json.loads(SCHEMA_FILE.read_text())


# --- diagnose ---------------------------------------------------------------

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


def _node_findings(ctx: Ctx, plan: Plan, node_id: str, agent: str | None) -> list[Finding]:
    """What holds one node back, most fundamental first."""
    now = ctx.clock()
    broken = next((p for p in plan.problems if p.node == node_id), None)
    if broken is not None and node_id not in plan.nodes and broken.code == "yaml_error":
        from leafwise.commands.merge_conflicts import with_merge_conflicts

        broken = next((p for p in with_merge_conflicts(plan, ctx.cmd) if p.node == node_id), broken)
        if broken.code == "duplicate_id":  # two nodes, one id, from two branches: renumber splits them
            return [Finding("invalid_plan", f"{broken.file} line {broken.line or 1}: {clean(broken.message, 300)}",
                            next_(broken.fix, "give the second node its own id"), ("node", node_id), "error")]
    if broken is not None and node_id not in plan.nodes:
        where = f"{broken.file} line {broken.line or 1}"
        mismatch = bool(broken.file and _mismatched_id(plan.paths.repo / broken.file))
        other = ctx.cmd(f"start --next --agent {agent_arg(agent)}") if agent else ctx.cmd("next")
        # only a person's text edit repairs a file that does not parse: the chain of fixes ends here
        action = next_(ctx.cmd("repair --dry-run"), "repair can rename the file") if mismatch else \
            wait(f"a person fixes {where} ({clean(broken.message, 160)})", "the file needs a text edit", or_=other)
        return [Finding("invalid_plan", f"{where}: {clean(broken.message, 300)}", action,
                        ("node", node_id), "error", ctx.cmd("repair") if mismatch else None)]
    node = get_node(ctx, node_id, plan)
    findings = [Finding("invalid_plan", f"{p.file}:{p.line}: {p.message}", _problem_action(ctx, p),
                        ("node", node_id), "error")
                for p in find_problems(plan, ctx.cmd) if p.node == node_id and p.severity == "error"]
    claims = live_claims(ctx, plan)  # live leases and lease-less assignments
    claim = claims.get(node_id)
    lease = leases.read(ctx.paths(), node_id)
    stale = lease if lease is not None and lease.expired(now) else None
    hint = node_hint(ctx.cmd, plan, node, claims, agent, now)
    if stale is not None:
        findings.append(Finding("stale_claim", f"{stale.agent}'s claim on {node_id} expired at {stale.expires}",
                                next_(ctx.cmd("repair"), "release the expired claim",
                                      or_=hint.command if hint.marker == "next" else None),
                                ("node", node_id), "warning", ctx.cmd("repair")))
    if node.status in CLOSED:
        findings.append(Finding("none", f"{node_id} is {node.status}", hint, ("node", node_id)))
    elif node.status == Status.BLOCKED:
        decision = node.open_decision
        if decision is not None:
            action = wait(f"a person answers the decision on {node_id} "
                          f"({ctx.cmd(f'decide {node_id} --option <N>')}); then run {ctx.cmd('next')}",
                          "strategic questions are a person's to settle")
            findings.append(Finding("blocked", f"waits for a decision: {decision.get('question')}", action,
                                    ("node", node_id), "warning"))
        else:
            findings.append(Finding("blocked", f"blocked: {node.blocked_reason or 'no reason given'}", hint,
                                    ("node", node_id), "warning"))
    elif claim is not None and claim.agent != agent:
        category = "held_by_other_agent" if agent else "in_progress"
        if claim.expires:
            condition = f"{claim.agent} holds {node_id} until {claim.expires}; then run " \
                        f"{ctx.cmd(f'diagnose {node_id}')}"
        else:
            condition = f"{claim.agent} finishes {node_id} (assigned without a lease; only a person takes it " \
                        f"back with {ctx.cmd(f'unclaim {node_id} --force')})"
        findings.append(Finding(category, f"{claim.agent} holds {node_id} {until(claim)}",
                                wait(condition, "held by another agent" if agent else "someone works on it"),
                                ("agent", claim.agent), "info"))
    elif open_kids := readiness.open_children(plan, node):
        findings.append(Finding("in_progress" if node.status == Status.IN_PROGRESS else "children_open",
                                f"{len(open_kids)} open child node(s), e.g. {open_kids[0]}",
                                next_(ctx.cmd(f"diagnose {open_kids[0]}"), "a parent waits for its children",
                                      or_=ctx.cmd(f"tree {node_id}")), ("node", open_kids[0])))
    elif chain := _open_dependency(plan, node_id):
        root = plan.nodes.get(chain[-1])
        what = f"{chain[-1]} does not exist" if root is None else f"{chain[-1]} is {root.status}"
        action = (next_(ctx.cmd("validate"), "a dependency is missing") if root is None
                  else node_hint(ctx.cmd, plan, root, claims, agent, now))
        findings.append(Finding("dependency_open", f"waits for {' → '.join(chain)}: {what}", action,
                                ("node", chain[-1]), "info"))
    elif node.status == Status.IN_PROGRESS:
        findings.append(Finding("in_progress", f"{node_id} is in progress" +
                                (f" for {claim.agent} {until(claim)}" if claim else ""), hint,
                                ("node", node_id)))
    else:
        findings.append(Finding("none", f"{node_id} is ready to start", hint, ("node", node_id)))
    return findings


def _problem_action(ctx: Ctx, problem: Problem) -> NextAction:
    """A validator problem's fix as a next action; a file that does not load is diagnosed instead."""
    if problem.file == PROJECT_FILE and problem.code not in ("missing_project",):
        # only a person's text edit repairs project.yaml: the chain of fixes ends here
        return wait(f"a person fixes {problem.file} line {problem.line or 1} ({clean(problem.message, 160)})",
                    "the project file needs a text edit")
    if problem.fix.startswith("leafwise "):
        return next_(problem.fix, problem.code)
    return next_(ctx.cmd(f"diagnose {problem.node}") if problem.node else ctx.cmd("validate"),
                 f"{problem.code}: {problem.fix}")


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
    findings = [Finding("invalid_plan", f"{p.file or 'plan'}:{p.line or 1}: {p.message}", _problem_action(ctx, p),
                        ("node", p.node) if p.node else ("plan", None), "error")
                for p in find_problems(plan, ctx.cmd) if p.severity == "error"]
    chosen = pick_for(ctx, agent, plan)
    hint = pick_hint(ctx.cmd, chosen, agent)
    if chosen.node is not None or chosen.open_count == 0:
        picked = Finding("none", chosen.reason, hint, ("node", chosen.node.id) if chosen.node else ("plan", None))
    elif chosen.held:
        node, claim = chosen.held[0]
        picked = Finding("held_by_other_agent", f"{len(chosen.held)} open node(s) held, e.g. {node.id} by "
                         f"{claim.agent}", hint, ("node", node.id), "info")
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
    return findings + [picked] + garbage  # garbage never holds work back: it only follows


@command("diagnose", "Why a node (or the whole plan) is stuck: root cause, remediation, next step.",
         mutating=False, tool="diagnose", idempotent=True,
         params=(Param("node_id", "node id (default: the whole plan)", positional=True),
                 Param("agent", "who is asking (a claim of yours is not 'held by another agent')")))
def diagnose(ctx: Ctx, node_id: str | None = None, agent: str | None = None) -> Result:
    plan = ctx.plan()
    findings = _node_findings(ctx, plan, node_id, agent) if node_id else _plan_findings(ctx, plan, agent)
    top = findings[0]
    lines = [f"{node_id or 'plan'}: {top.category} — {top.reason}"]
    lines += [f"  {f.severity:7} {f.category:20} {f.reason}" for f in findings[1:]]
    return Result({"target": node_id, "root_cause": top.root_cause(), "remediation": top.remediation(),
                   "findings": bounded([f.as_dict() for f in findings], 50)}, top.action, lines)


# --- doctor -----------------------------------------------------------------

@dataclass(slots=True)
class Check:
    name: str
    severity: str  # ok | info | warning | error
    message: str
    fix: str | None = None  # a command (a leafwise one where one exists)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "severity": self.severity, "message": self.message, "fix": self.fix}


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _install_checks() -> list[Check]:
    import yaml

    checks = [Check("python", "ok" if sys.version_info >= (3, 11) else "error",
                    f"Python {sys.version.split()[0]}", None if sys.version_info >= (3, 11) else "install Python 3.11+")]
    leafwise = _version("leafwise")
    checks.append(Check("leafwise", "ok" if leafwise else "warning",
                        f"leafwise {leafwise}" if leafwise else "leafwise runs from source, not installed",
                        None if leafwise else "pip install -e ."))
    checks.append(Check("yaml_c_loader", "ok" if getattr(yaml, "__with_libyaml__", False) else "warning",
                        "PyYAML with libyaml (fast reads)" if getattr(yaml, "__with_libyaml__", False)
                        else "PyYAML without libyaml: plan reads are several times slower",
                        None if getattr(yaml, "__with_libyaml__", False) else "pip install --force-reinstall pyyaml"))
    for dist, minimum, purpose in (("mcp", (2, 3), "leafwise mcp"), ("textual", (8, 0), "the canvas")):
        found = _version(dist)
        major_minor = tuple(int(x) for x in found.split(".")[:2] if x.isdigit()) if found else ()
        good = bool(found) and major_minor >= minimum
        checks.append(Check(dist, "ok" if good else "warning",
                            f"{dist} {found}" if good else f"{dist} {found or 'missing'}: {purpose} needs "
                            f">={minimum[0]}.{minimum[1]}", None if good else f"pip install '{dist}>={minimum[0]}.{minimum[1]}'"))
    checks.append(_watcher_check())
    try:
        schema = envelope_schema()
        ok = schema.get("$schema", "").endswith("2020-12/schema")
        checks.append(Check("envelope_schema", "ok" if ok else "error", f"{SCHEMA_FILE.name} shipped"
                            if ok else f"{SCHEMA_FILE.name} is not a draft 2020-12 schema", None if ok else
                            "pip install --force-reinstall leafwise"))
    except (OSError, ValueError) as exc:
        checks.append(Check("envelope_schema", "error", f"{SCHEMA_FILE.name} unreadable: {exc}",
                            "pip install --force-reinstall leafwise"))
    return checks


def _watcher_check() -> Check:
    from importlib.util import find_spec

    if find_spec("watchfiles") is None:
        return Check("watcher", "warning", "watchfiles missing: the canvas cannot follow agents' writes live",
                     "pip install watchfiles")
    limit = Path("/proc/sys/fs/inotify/max_user_watches")
    if sys.platform.startswith("linux") and limit.is_file():
        watches = int(limit.read_text().strip() or 0)
        if watches < 1024:
            return Check("watcher", "warning", f"inotify allows only {watches} watches",
                         "sudo sysctl fs.inotify.max_user_watches=65536")
        return Check("watcher", "ok", f"watchfiles {_version('watchfiles')} (inotify, {watches} watches)")
    return Check("watcher", "ok", f"watchfiles {_version('watchfiles')}")


def _cache_state(paths: PlanPaths) -> tuple[str, str]:
    """(state, message): fresh, missing, stale or unreadable. Reads only."""
    cache = cache_for(paths)
    if not cache.path.exists():
        return "missing", "no node cache yet (built on the next read)"
    entries = cache.read()
    if not entries:
        return "unreadable", "the node cache is unreadable or from another version"
    try:
        files = {e.name: e.stat() for e in os.scandir(paths.nodes) if e.name.endswith(".yaml")
                 and not e.name.startswith(".")}
        files[PROJECT_KEY] = paths.project_file.stat()
    except OSError:
        files = {}
    stale = sum(1 for name, st in files.items()
                if name not in entries or entries[name][0] != (st.st_mtime_ns, st.st_size, st.st_ino))
    stale += sum(1 for name in entries if name not in files)
    if stale:
        return "stale", f"{stale} cache entr{'y is' if stale == 1 else 'ies are'} out of date (refreshed on read)"
    return "fresh", f"node cache fresh ({len(entries) - 1} files)"


def _plan_checks(ctx: Ctx) -> list[Check]:
    try:
        paths = find_root(ctx.cwd, ctx.root)
    except PlanNotFound as exc:
        return [Check("root", "error", str(exc), ctx.cmd("init"))]
    ctx._paths = paths
    checks = [Check("root", "ok", f"plan at {paths.dir}")]
    state, message = _cache_state(paths)  # before anything loads the plan and refreshes the cache
    checks.append(Check("cache", {"fresh": "ok", "missing": "info", "stale": "info"}.get(state, "warning"),
                        message, None if state in ("fresh", "missing") else ctx.cmd("repair")))
    plan = ctx.plan()
    schema = plan.project.schema
    checks.append(Check("schema", "ok" if schema == SUPPORTED_SCHEMA else "error",
                        f"schema {schema}" + ("" if schema == SUPPORTED_SCHEMA else
                                              f"; this leafwise reads schema {SUPPORTED_SCHEMA}"),
                        None if schema == SUPPORTED_SCHEMA else "pip install -U leafwise"))
    target = paths.journal if paths.journal.exists() else paths.dir
    writable = os.access(target, os.W_OK)
    checks.append(Check("journal", "ok" if writable else "error",
                        f"{PLAN_DIR}/journal.jsonl writable" if writable else f"{target} is not writable",
                        None if writable else f"chmod u+w {target}"))
    problems = find_problems(plan, ctx.cmd)
    errors = [p for p in problems if p.severity == "error"]
    checks.append(Check("validator", "error" if errors else "info" if problems else "ok",
                        f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s) in {len(plan.nodes)} nodes",
                        ctx.cmd("validate") if problems else None))
    expired = [c for c in leases.read_all(paths).values() if c.expired(ctx.clock())]
    checks.append(Check("claims", "warning" if expired else "ok",
                        f"{len(expired)} expired claim(s) left behind" if expired else "no expired claims",
                        ctx.cmd("repair") if expired else None))
    checks += _symlink_checks(paths)
    strays = sweep_temp_files(paths, dry_run=True)
    checks.append(Check("temp_files", "warning" if strays else "ok",
                        f"{len(strays)} stray temporary file(s), e.g. {strays[0].name}" if strays
                        else "no stray temporary files", ctx.cmd("repair") if strays else None))
    return checks


RECREATED = ("journal.jsonl", "claims", ".cache", ".locks")  # Leafwise makes these again when they are gone


def _symlink_checks(paths: PlanPaths) -> list[Check]:
    """Every symbolic link in the plan folder (and the folder itself): Leafwise never writes through one."""
    found: list[Path] = [paths.dir] if paths.dir.is_symlink() else []
    for folder, dirs, files in os.walk(paths.dir):  # os.walk does not descend into linked folders
        dirs[:] = [d for d in dirs if d != ".git"]
        found += [Path(folder) / name for name in (*dirs, *files) if (Path(folder) / name).is_symlink()]
    if not found:
        return [Check("symlinks", "ok", "no symbolic links in the plan folder")]
    checks = []
    for link in found[:20]:
        rel = os.path.relpath(link, paths.repo)
        try:
            target = os.readlink(link)
        except OSError:
            target = "?"
        own = link.parent == paths.dir and link.name in RECREATED
        checks.append(Check("symlinks", "warning",
                            f"{rel} is a symbolic link to {target}; Leafwise never reads or writes plan files "
                            "through a link: replace it with the real file or folder",
                            f"rm {quote(rel)}" if own else None))
    if len(found) > 20:
        checks.append(Check("symlinks", "warning", f"and {len(found) - 20} more symbolic link(s)"))
    return checks


@command("doctor", "Installation and plan health: versions, root, schema, cache, journal, watcher.",
         mutating=False, tool="doctor", idempotent=True, needs_plan=False)
def doctor(ctx: Ctx) -> Result:
    checks = _install_checks() + _plan_checks(ctx)
    counts = {s: sum(1 for c in checks if c.severity == s) for s in ("ok", "info", "warning", "error")}
    marks = {"ok": "ok  ", "info": "info", "warning": "WARN", "error": "FAIL"}
    lines = []
    for c in checks:  # one body line per line: text output shows a newline inside a line as ␊
        lines.append(f"  {marks[c.severity]}  {c.name:16} {c.message}")
        if c.fix:
            lines.append(f"        fix: {c.fix}")
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()))
    worst = [c for sev in ("error", "warning") for c in checks if c.severity == sev and c.fix]
    own = next((c for c in worst if c.fix and c.fix.startswith("leafwise ")), None)
    if own is not None:
        action = next_(own.fix, f"{own.name}: {own.message}")
    elif worst:
        action = next_(ctx.cmd("doctor"), f"run `{worst[0].fix}`, then check again")
    else:
        action = next_(ctx.cmd("context"), "the installation and the plan are healthy")
    return Result({"healthy": not counts["error"], "counts": counts, "checks": [c.as_dict() for c in checks]},
                  action, lines)


# --- repair -----------------------------------------------------------------

@dataclass(slots=True)
class Repairs:
    dry_run: bool
    changes: list[dict[str, Any]] = field(default_factory=list)

    def add(self, repair: str, applied: bool, **about: Any) -> None:
        self.changes.append({"repair": repair, "applied": applied and not self.dry_run, **about})


def _referenced(plan: Plan, node_id: str) -> bool:
    return any(n.parent == node_id or node_id in n.depends_on for n in plan.nodes.values())


def _mismatched_id(path: Path) -> str | None:
    """The id inside a node file when that id differs from the file name and is the file's only fault."""
    import yaml  # only repair reads raw files; keeps yaml off the CLI's start-up

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
            inner = _mismatched_id(path)
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
    unreadable = sorted({p.node for p in plan.problems if p.node})
    if unreadable:
        out.add("cascade", False, refused=f"{len(unreadable)} node file(s) do not load (e.g. {unreadable[0]}); "
                                          "a parent may have an open child that cannot be read")
        return
    status = {nid: n.status for nid, n in plan.nodes.items()}
    for node in sorted(plan.nodes.values(), key=lambda n: (-n.depth, n.id)):
        target = closing_status(status[c] for c in node.children) if cascades(node) else None
        if target is None:
            continue
        if not out.dry_run:
            def close(doc: dict[str, Any], target: str = target) -> dict[str, tuple[Any, Any]]:
                return set_fields(doc, {"status": target}) \
                    if lifecycle.transition(f"cascade: {target}", doc.get("status")) else {}

            changes = write(ctx, node, close)
            if not changes:
                continue
            record(ctx, "repair", node.id, changes, repair="cascade")
        status[node.id] = target
        out.add("cascade", True, id=node.id, field="status", **{"from": node.status, "to": target})


@command("repair", "Safe automatic repairs: cache, expired claims, temp files, id/file names, cascades.",
         mutating=True, tool="repair_plan", idempotent=True,
         params=(Param("dry_run", "list the repairs without applying them", type=bool),))
def repair(ctx: Ctx, dry_run: bool = False) -> Result:
    paths = ctx.paths()
    out = Repairs(dry_run)
    state, message = _cache_state(paths)
    if state in ("stale", "unreadable"):
        if not dry_run:
            cache_for(paths).clear()
            load_plan(paths)
        out.add("rebuild_cache", True, file=str(cache_for(paths).path.relative_to(paths.repo)), why=message)
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
        action = _problem_action(ctx, errors[0])
    else:
        action = next_(ctx.cmd("next"), "the plan needs no repair")
    lines = [reason] + [" ".join(filter(None, ("  would" if dry_run and "refused" not in c else " ", c["repair"],
                                               c.get("id") or c.get("file"))))
                        + (f": refused, {c['refused']}" if "refused" in c else "") for c in out.changes]
    return Result({"dry_run": dry_run, "repairs": out.changes, "applied": 0 if dry_run else done_count,
                   "refused": len(refused), "remaining_errors": len(errors)}, action, lines,
                  Mutation("repair_plan", "repair", not dry_run and done_count > 0, reason, out.changes))
