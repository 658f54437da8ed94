"""Stress: N agent processes run next → start → complete against one plan.

Each agent is a real process; each command goes through `runner.execute`, the
path the CLI and the MCP server take (with --cli, every command is a real
`leafwise` subprocess, as an agent shelling out would run it). At the end the
plan is checked: every task done exactly once, each epic closed once, the
journal holding one start and one complete per task, validate clean.

    python bench/stress.py                      # agents 1, 2, 4, 8, 16 over 200 tasks
    python bench/stress.py --agents 8 --tasks 400
    python bench/stress.py --agents 4 --tasks 40 --cli
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

PER_EPIC = 25


def make_plan(root: Path, tasks: int) -> list[str]:
    """Epics of PER_EPIC tasks; every task file carries a comment and unknown keys."""
    nodes = root / ".leafwise" / "nodes"
    nodes.mkdir(parents=True)
    (root / ".leafwise" / "project.yaml").write_text(
        "schema: 1\npid: stress\nname: Stress\nid_prefix: S\nreleases:\n  - {id: R1, title: One}\n")
    epics = (tasks + PER_EPIC - 1) // PER_EPIC
    ids = []
    for e in range(1, epics + 1):
        (nodes / f"S-{e}.yaml").write_text(f"id: S-{e}\ntitle: Epic {e}\nrelease: R1\nstatus: draft\n")
    for n in range(epics + 1, epics + tasks + 1):
        parent = 1 + (n - epics - 1) // PER_EPIC
        (nodes / f"S-{n}.yaml").write_text(
            f"# task {n}, by hand\nid: S-{n}\ntitle: Task {n}\nparent: S-{parent}\nstatus: draft\n"
            f"estimate: {{points: {n % 5 + 1}}}   # unknown key\n")
        ids.append(f"S-{n}")
    return ids


def worker(root: str, agent: str, cli: bool, console: bool = False) -> dict[str, Any]:
    """One agent's loop until the picker answers Done."""
    from leafwise.commands.registry import REGISTRY, Ctx, load_all
    from leafwise.commands.runner import execute

    load_all()

    def run(name: str, **args: Any) -> tuple[int, dict[str, Any]]:
        if cli or console:
            # --console: the console script, so a loop line may be answered by the loop server
            program = [str(Path(sys.executable).with_name("leafwise"))] if console else \
                [sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli"]
            argv = [*program, *name.split(), "--json", "--root", root]
            for key, value in args.items():
                argv += [value] if key == "node_id" else [f"--{key}"] if value is True else [f"--{key}", str(value)]
            proc = subprocess.run(argv, capture_output=True, text=True)
            return proc.returncode, json.loads(proc.stdout)
        out = execute(REGISTRY[name], Ctx(root=root), args)
        return out.exit_code, out.envelope

    NEXT = "--next"  # noqa: N806 - the follow-up is `start --next`, not an id
    stats: dict[str, Any] = {"agent": agent, "done": 0, "commands": 0, "lost": 0, "waits": 0, "errors": []}
    follow: str | None = None  # a lost race answers `Or: leafwise start --next …` (or an id): take it
    while True:
        if follow is None:
            code, env = run("next", agent=agent)
            stats["commands"] += 1
            task = env["result"]["task"] if code == 0 else None
            if task is None:
                if env["_next_action"]["marker"] == "done":
                    return stats
                stats["waits"] += 1
                time.sleep(0.01)
                continue
            follow = task["id"]
        code, env = run("start", next=True, agent=agent) if follow == NEXT else run("start", node_id=follow, agent=agent)
        stats["commands"] += 1
        task = env["result"]["task"] if code == 0 and follow == NEXT else {"id": follow}
        follow = None
        if task is None:  # `start --next` found nothing to hand out: back to `next` for the reason
            continue
        if code == 3:
            stats["lost"] += 1
            alternative = env["_next_action"]["or"] or ""
            words = alternative.split()
            follow = (NEXT if words[2:3] == ["--next"] else words[2]) if words[:2] == ["leafwise", "start"] else None
            continue
        if code == 0:
            code, env = run("complete", node_id=task["id"], summary=f"done by {agent}", agent=agent)
            stats["commands"] += 1
            stats["done"] += code == 0
        if code:
            stats["errors"].append(env["error"]["message"])


def check(root: Path, task_ids: list[str], epics: int) -> list[str]:
    """What went wrong, if anything: a task not done once, a lost comment, a missing event."""
    import yaml

    wrong = []
    for nid in task_ids:
        text = (root / ".leafwise/nodes" / f"{nid}.yaml").read_text()
        if yaml.safe_load(text).get("status") != "done" or "# unknown key" not in text or "by hand" not in text:
            wrong.append(f"{nid} not done or lost its comments")
    events = [json.loads(line) for line in (root / ".leafwise/journal.jsonl").read_text().splitlines()]
    for command in ("start", "complete"):
        seen = Counter(e["node"] for e in events if e["command"] == command)
        if seen != Counter(task_ids):
            wrong.append(f"journal: {command} events do not match the tasks one to one")
    closed = Counter(c["id"] for e in events if e["command"] == "complete" for c in e.get("cascade", []))
    if closed != Counter(f"S-{e}" for e in range(1, epics + 1)):
        wrong.append("an epic was not closed exactly once")
    valid = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", "validate", "--root", str(root)],
                           capture_output=True, text=True)
    if valid.returncode:
        wrong.append("validate: " + valid.stderr.strip())
    return wrong


def run_once(agents: int, tasks: int, cli: bool, console: str | None = None) -> dict[str, Any]:
    """`console`: "served" (every agent's loop through the loop server), "mixed" (every other agent's
    in its own processes, LEAFWISE_SERVER=0), or None."""
    with tempfile.TemporaryDirectory(prefix="leafwise-stress-") as tmp:
        root = Path(tmp)
        task_ids = make_plan(root, tasks)
        env = {**os.environ, "LEAFWISE_AGENT": ""}
        began = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, __file__, "--worker", str(root), f"agent-{i}"]
                                  + (["--cli"] if cli else []) + (["--console", console] if console else []),
                                  stdout=subprocess.PIPE, text=True,
                                  env={**env, "LEAFWISE_SERVER": "0" if console == "mixed" and i % 2 else "1"})
                 for i in range(agents)]
        reports = [json.loads(p.communicate()[0]) for p in procs]
        seconds = time.perf_counter() - began
        problems = [e for r in reports for e in r["errors"]] + check(root, task_ids, (tasks + PER_EPIC - 1) // PER_EPIC)
    commands = sum(r["commands"] for r in reports)
    return {"agents": agents, "tasks": tasks, "seconds": round(seconds, 2),
            "tasks_per_s": round(tasks / seconds, 1), "commands_per_s": round(commands / seconds, 1),
            "lost_races": sum(r["lost"] for r in reports), "waits": sum(r["waits"] for r in reports),
            "errors": len(problems), "first_error": problems[0] if problems else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, nargs="*", default=[1, 2, 4, 8, 16])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--cli", action="store_true", help="every command as a real leafwise subprocess")
    parser.add_argument("--console", choices=["served", "mixed"],
                        help="every command through the console script: all agents' loops through the loop "
                             "server, or every other agent's in its own processes")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--worker", nargs=2, metavar=("ROOT", "AGENT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, cli=args.cli, console=bool(args.console))))
        return 0
    rows = [run_once(n, args.tasks, args.cli, args.console) for n in args.agents]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'agents':>6} {'tasks':>6} {'seconds':>8} {'tasks/s':>8} {'cmds/s':>8} {'lost':>5} "
              f"{'waits':>6} {'errors':>6}")
        for r in rows:
            print(f"{r['agents']:>6} {r['tasks']:>6} {r['seconds']:>8} {r['tasks_per_s']:>8} "
                  f"{r['commands_per_s']:>8} {r['lost_races']:>5} {r['waits']:>6} {r['errors']:>6}")
        for r in rows:
            if r["first_error"]:
                print(f"{r['agents']} agents: {r['first_error']}", file=sys.stderr)
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
