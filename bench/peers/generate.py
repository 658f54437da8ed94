#!/usr/bin/env python3
"""Generate the same synthetic plan in the on-disk format of peer task trackers.

Tools (formats taken from the installed packages, see RESULTS.md):

* ``taskmaster`` -- Task Master (npm ``task-master-ai``): one JSON file,
  ``.taskmaster/tasks/tasks.json``, tagged layout ``{"master": {"tasks": [...],
  "metadata": {...}}}``; plus ``.taskmaster/config.json`` and
  ``.taskmaster/state.json`` as ``task-master init`` writes them.
* ``backlog`` -- Backlog.md (npm ``backlog.md``): ``backlog/config.yml`` and one
  markdown file per task, ``backlog/tasks/task-<n> - <Title-Slug>.md``, with a
  YAML front-matter header, in a git repository with one commit (what a user
  has after ``backlog init`` + committing).
* ``spec`` -- the tool-neutral plan as ``plan.json`` (for converting the very
  same plan into other formats, e.g. Leafwise's).

The plan is deterministic for a given (N, seed): about 30 % done, 10 % in
progress, the rest todo/pending; done tasks cluster at low ids (older work)
with noise; about 45 % of tasks depend on 1-3 earlier tasks, mostly close by
(same "epic"), so the ready set is a realistic mix of unblocked and blocked
work. Stdlib only.

Usage:
    python3 generate.py --tool taskmaster --tasks 1000 --out DIR
    python3 generate.py --tool backlog --tasks 10000 --out DIR
    python3 generate.py --tool all --tasks 1000 --out DIR   # DIR/<tool>/
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

TOOLS = ("taskmaster", "backlog", "spec")

# --------------------------------------------------------------------------- plan

VERBS = [
    "Add", "Implement", "Fix", "Refactor", "Document", "Test", "Migrate",
    "Optimize", "Remove", "Validate", "Cache", "Instrument", "Harden",
    "Split", "Rename", "Expose", "Deprecate", "Benchmark", "Parallelize",
    "Simplify",
]
OBJECTS = [
    "retry logic", "rate limiter", "pagination", "error handling",
    "input validation", "schema migration", "audit log", "feature flag",
    "health check", "metrics exporter", "config loader", "session store",
    "token refresh", "bulk import", "CSV export", "search index",
    "webhook dispatcher", "job scheduler", "permission checks", "dark mode",
    "onboarding flow", "password reset", "file upload", "notification queue",
    "dependency graph", "conflict resolution", "backoff policy",
    "connection pool", "request tracing", "invoice renderer",
]
CONTEXTS = [
    "payment service", "user API", "admin dashboard", "CLI", "sync worker",
    "billing module", "auth gateway", "mobile client", "reporting pipeline",
    "plugin loader", "storage layer", "GraphQL resolver", "event bus",
    "settings page", "deploy scripts", "test harness", "MCP server",
    "search service", "email templates", "cache layer",
]
AREAS = ["backend", "frontend", "infra", "docs", "testing", "security",
         "performance", "dx", "data", "api"]
PEOPLE = ["alice", "bob", "carol", "dave", "erin", "agent-1", "agent-2"]


@dataclass
class Task:
    id: int                      # 1..N
    title: str
    description: str
    details: str
    test_strategy: str
    status: str                  # "todo" | "in_progress" | "done"
    priority: str                # "high" | "medium" | "low"
    deps: list[int] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    assignee: str | None = None
    acceptance: list[str] = field(default_factory=list)
    created: datetime = datetime(2025, 1, 1, tzinfo=timezone.utc)


def make_plan(n: int, seed: int = 42) -> list[Task]:
    rng = random.Random(seed)
    base = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)

    # Statuses: exact counts, done skewed towards old (low) ids with noise.
    n_done, n_prog = round(n * 0.30), round(n * 0.10)
    keys = sorted(range(1, n + 1), key=lambda i: i / n + rng.gauss(0, 0.15))
    status = {}
    for rank, tid in enumerate(keys):
        status[tid] = ("done" if rank < n_done
                       else "in_progress" if rank < n_done + n_prog
                       else "todo")

    tasks: list[Task] = []
    for i in range(1, n + 1):
        verb, obj, ctx = rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(CONTEXTS)
        title = f"{verb} {obj} in {ctx}"
        area = rng.choice(AREAS)
        labels = [area] + ([rng.choice(AREAS)] if rng.random() < 0.3 else [])
        labels = list(dict.fromkeys(labels))
        deps: list[int] = []
        if i > 1 and rng.random() < 0.45:
            k = rng.choice((1, 1, 1, 2, 2, 3))
            lo = max(1, i - 40)          # same neighbourhood ("epic")
            pool = range(lo, i)
            deps = sorted(rng.sample(pool, min(k, len(pool))))
            if rng.random() < 0.1:       # occasional long-range dependency
                far = rng.randint(1, i - 1)
                if far not in deps:
                    deps = sorted(deps + [far])
        prio = rng.choices(("high", "medium", "low"), (2, 6, 2))[0]
        st = status[i]
        tasks.append(Task(
            id=i,
            title=title,
            description=(f"{verb} the {obj} of the {ctx} so that callers get "
                         f"predictable behaviour under load and on failure."),
            details=(f"Touch the {ctx} module; keep the public interface stable. "
                     f"Reuse the existing {rng.choice(OBJECTS)} helpers where possible "
                     f"and update the {area} notes."),
            test_strategy=(f"Unit tests for the {obj} edge cases; one integration "
                           f"test against the {ctx}."),
            status=st,
            priority=prio,
            deps=deps,
            labels=labels,
            assignee=rng.choice(PEOPLE) if st == "in_progress" or rng.random() < 0.2 else None,
            acceptance=[f"{obj.capitalize()} covered by tests",
                        f"No regression in the {ctx}"] if rng.random() < 0.6 else [],
            created=base + timedelta(minutes=37 * i),
        ))
    return tasks


# --------------------------------------------------------------------- task master

TM_STATUS = {"todo": "pending", "in_progress": "in-progress", "done": "done"}


def write_taskmaster(tasks: list[Task], root: Path) -> None:
    """Task Master 0.43 layout (see RESULTS.md for where this comes from)."""
    tm = root / ".taskmaster"
    (tm / "tasks").mkdir(parents=True, exist_ok=True)
    (tm / "docs").mkdir(exist_ok=True)
    (tm / "reports").mkdir(exist_ok=True)
    now = datetime(2025, 6, 1, tzinfo=timezone.utc).isoformat().replace("+00:00", "Z")
    data = {
        "master": {
            "tasks": [
                {
                    "id": t.id,
                    "title": t.title,
                    "description": t.description,
                    "details": t.details,
                    "testStrategy": t.test_strategy,
                    "status": TM_STATUS[t.status],
                    "dependencies": list(t.deps),
                    "priority": t.priority,
                    "subtasks": [],
                }
                for t in tasks
            ],
            "metadata": {
                "created": now,
                "description": "Tasks for master context",
                "updated": now,
            },
        }
    }
    (tm / "tasks" / "tasks.json").write_text(json.dumps(data, indent=2) + "\n")
    # config.json as `task-master init -y` writes it, except anonymousTelemetry
    # (off: the benchmark machine has no network for Sentry anyway).
    config = {
        "models": {
            "main": {"provider": "anthropic", "modelId": "claude-sonnet-4-20250514",
                     "maxTokens": 64000, "temperature": 0.2},
            "research": {"provider": "perplexity", "modelId": "sonar",
                         "maxTokens": 8700, "temperature": 0.1},
            "fallback": {"provider": "anthropic", "modelId": "claude-3-7-sonnet-20250219",
                         "maxTokens": 120000, "temperature": 0.2},
        },
        "global": {
            "logLevel": "info", "debug": False, "defaultNumTasks": 10,
            "defaultSubtasks": 5, "defaultPriority": "medium",
            "projectName": "Task Master",
            "ollamaBaseURL": "http://localhost:11434/api",
            "bedrockBaseURL": "https://bedrock.us-east-1.amazonaws.com",
            "responseLanguage": "English", "enableCodebaseAnalysis": True,
            "enableProxy": False, "anonymousTelemetry": False,
        },
        "claudeCode": {}, "codexCli": {},
        "grokCli": {"timeout": 120000, "workingDirectory": None,
                    "defaultModel": "grok-4-latest"},
    }
    (tm / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    state = {"currentTag": "master", "lastSwitched": now,
             "branchTagMapping": {}, "migrationNoticeShown": True}
    (tm / "state.json").write_text(json.dumps(state, indent=2) + "\n")


# ------------------------------------------------------------------------ backlog

BL_STATUS = {"todo": "To Do", "in_progress": "In Progress", "done": "Done"}

BACKLOG_CONFIG = """\
project_name: "{name}"
default_status: "To Do"
statuses: ["To Do", "In Progress", "Done"]
labels: []
date_format: yyyy-mm-dd
max_column_width: 20
auto_open_browser: true
default_port: 6420
remote_operations: true
auto_commit: false
filesystem_only: false
bypass_git_hooks: false
check_active_branches: true
active_branch_days: 30
task_prefix: "task"
"""


def backlog_slug(title: str) -> str:
    """Backlog.md FileSystem.sanitizeFilename, transcribed."""
    s = re.sub(r'[<>:"/\\|?*]', "-", title)
    s = re.sub(r"['(),!@#$%^&+=\[\]{};]", "", s)
    s = re.sub(r"\s+", "-", s)
    s = re.sub(r"-+", "-", s)
    s = re.sub(r"^-|-$", "", s)
    return s or "untitled"


def _yaml_str(s: str) -> str:
    # Titles here are plain words; quote only when YAML would misread them.
    if re.search(r"[:#\[\]{},&*!|>'\"%@`]", s) or s != s.strip():
        return "'" + s.replace("'", "''") + "'"
    return s


def backlog_markdown(t: Task) -> str:
    fm = ["---", f"id: TASK-{t.id}", f"title: {_yaml_str(t.title)}",
          f"status: {BL_STATUS[t.status]}"]
    fm.append(f"assignee:\n  - '@{t.assignee}'" if t.assignee else "assignee: []")
    fm.append(f"created_date: '{t.created:%Y-%m-%d %H:%M}'")
    if t.status != "todo":
        fm.append(f"updated_date: '{t.created + timedelta(days=2):%Y-%m-%d %H:%M}'")
    fm.append("labels:" + "".join(f"\n  - {l}" for l in t.labels) if t.labels else "labels: []")
    fm.append("dependencies:" + "".join(f"\n  - TASK-{d}" for d in t.deps)
              if t.deps else "dependencies: []")
    fm.append(f"priority: {t.priority}")
    fm.append(f"ordinal: {t.id * 1000}")
    fm.append("---")
    body = ["", "## Description", "", "<!-- SECTION:DESCRIPTION:BEGIN -->",
            t.description, "<!-- SECTION:DESCRIPTION:END -->"]
    if t.acceptance:
        mark = "x" if t.status == "done" else " "
        body += ["", "## Acceptance Criteria", "<!-- AC:BEGIN -->"]
        body += [f"- [{mark}] #{k} {a}" for k, a in enumerate(t.acceptance, 1)]
        body += ["<!-- AC:END -->"]
    return "\n".join(fm + body) + "\n"


def write_backlog(tasks: list[Task], root: Path, git: bool = True) -> None:
    bl = root / "backlog"
    for sub in ("tasks", "drafts", "completed", "docs", "decisions", "milestones",
                "archive/tasks", "archive/drafts", "archive/milestones"):
        (bl / sub).mkdir(parents=True, exist_ok=True)
    (bl / "config.yml").write_text(BACKLOG_CONFIG.format(name=root.name or "bench"))
    tdir = bl / "tasks"
    for t in tasks:
        (tdir / f"task-{t.id} - {backlog_slug(t.title)}.md").write_text(backlog_markdown(t))
    if git and shutil.which("git"):
        env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
                   GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")
        run = lambda *a: subprocess.run(["git", *a], cwd=root, env=env, check=True,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not (root / ".git").exists():
            run("init", "-q", "-b", "main")
        run("add", "-A")
        run("-c", "commit.gpgsign=false", "commit", "-q", "-m", "Backlog plan")


# --------------------------------------------------------------------------- spec

def write_spec(tasks: list[Task], root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    out = [{"id": t.id, "title": t.title, "description": t.description,
            "status": t.status, "priority": t.priority, "deps": t.deps,
            "labels": t.labels, "assignee": t.assignee,
            "acceptance": t.acceptance, "created": t.created.isoformat()}
           for t in tasks]
    (root / "plan.json").write_text(json.dumps(out, indent=1) + "\n")


WRITERS = {"taskmaster": write_taskmaster, "backlog": write_backlog, "spec": write_spec}


def expected_counts(tasks: list[Task]) -> dict[str, int]:
    """Counts the checks in run.py compare the tools' output against."""
    done = {t.id for t in tasks if t.status == "done"}
    ready = [t for t in tasks if t.status != "done" and all(d in done for d in t.deps)]
    return {
        "total": len(tasks),
        "done": len(done),
        "in_progress": sum(t.status == "in_progress" for t in tasks),
        "todo": sum(t.status == "todo" for t in tasks),
        "with_deps": sum(bool(t.deps) for t in tasks),
        "ready": len(ready),                                  # not done, deps done
        "ready_todo": sum(t.status == "todo" for t in ready),
    }


def generate(tool: str, n: int, out: Path, seed: int = 42, force: bool = False) -> dict:
    if out.exists() and any(out.iterdir()):
        if not force:
            raise SystemExit(f"{out} is not empty (use --force to replace it)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = make_plan(n, seed)
    WRITERS[tool](tasks, out)
    counts = expected_counts(tasks)
    (out / ".bench-expected.json").write_text(json.dumps(counts, indent=1) + "\n")
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tool", choices=TOOLS + ("all",), required=True)
    ap.add_argument("--tasks", "-n", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--force", action="store_true", help="replace a non-empty --out")
    a = ap.parse_args(argv)
    tools = TOOLS if a.tool == "all" else (a.tool,)
    for tool in tools:
        out = a.out / tool if a.tool == "all" else a.out
        counts = generate(tool, a.tasks, out, a.seed, a.force)
        print(f"{tool}: {a.tasks} tasks -> {out}  {json.dumps(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
