"""Team mode under fire: clones of one bare repository, agents in each racing through a plan's tasks
through the real CLI, over file://, git daemon and smart HTTP on 127.0.0.1, with agents frozen
(SIGSTOP) beyond the lease, killed (SIGKILL) and restarted under their name, and each clone's clock (its agents') offset by up to
±10 minutes. Checks every task was completed exactly once (by the holder of that moment: a frozen
agent's late finish is refused), and prints one row per transport.

    python bench/team.py                            # 60 tasks, 3 clones x 2 agents, all three transports
    python bench/team.py --tasks 30 --transports file --seed 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from testkit.gitserver import daemon, git, set_hook, smart_http, team_clones  # noqa: E402

AGENT = r"""
import contextlib, io, json, random, sys, time
from datetime import timedelta
from leafwise.commands.surfaces import cli
from leafwise.store.writer import utc_now

name, log_path, ttl, offset, seed = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
cli.CLOCK[:] = [lambda: utc_now() + timedelta(seconds=offset)]  # this agent's wall clock is off
rng = random.Random(seed)

def run(*args):
    out = io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            cli.main([*args, "--json"])
            code = 0
        except SystemExit as done:
            code = done.code or 0
    ms = (time.monotonic() - start) * 1000
    try:
        env = json.loads(out.getvalue())
    except ValueError:
        env = {}
    return code, env, ms

with open(log_path, "a", buffering=1) as log:
    while True:
        code, env, ms = run("next", "--agent", name)  # as an agent does: look, then take
        log.write(json.dumps({"op": "next", "code": code, "ms": ms}) + "\n")
        line = (env.get("_next_action") or {}).get("command") or ""
        if code == 0 and line.startswith("leafwise complete "):  # restarted after a kill mid-complete
            orphan = line.split()[2]
            code, env, ms = run("complete", orphan, "--summary", f"done by {name} (finished after a restart)",
                                "--agent", name)
            log.write(json.dumps({"op": "complete", "code": code, "ms": ms, "task": orphan, "finished": True}) + "\n")
        code, env, ms = run("start", "--next", "--agent", name, "--ttl", ttl)
        task = ((env.get("result") or {}).get("task") or {}).get("id") if code == 0 else None
        stolen = (env.get("result") or {}).get("stolen_from") if code == 0 else None
        log.write(json.dumps({"op": "start", "code": code, "ms": ms, "task": task, "stolen": bool(stolen)}) + "\n")
        if not task:
            time.sleep(0.3)
            continue
        time.sleep(rng.uniform(0.1, 0.5))  # the work
        if rng.random() < 0.3:
            code, env, ms = run("heartbeat", task, "--agent", name, "--ttl", ttl)
            log.write(json.dumps({"op": "heartbeat", "code": code, "ms": ms, "task": task}) + "\n")
        code, env, ms = run("complete", task, "--summary", f"done by {name}", "--agent", name)
        log.write(json.dumps({"op": "complete", "code": code, "ms": ms, "task": task}) + "\n")
"""


def url_for(kind: str, prefix: str | None):
    return (lambda repo: repo.as_uri()) if kind == "file" else (lambda repo: f"{prefix}/{repo.name}")


def spawn(work: Path, name: str, logs: Path, ttl_min: float, rng: random.Random, offset: float) -> subprocess.Popen:
    """An agent in clone `work`; `offset`: its machine's clock error in seconds (one per clone: the agents
    of one clone share a machine and its clock, as their lease files assume)."""
    return subprocess.Popen([sys.executable, "-c", AGENT, name, str(logs / f"{name}.jsonl"), str(ttl_min),
                             str(offset), str(rng.randrange(1 << 30))], cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _holds(log: Path) -> bool:
    """The agent's last step was a start that got a task: it holds one now."""
    try:
        last = json.loads(log.read_text().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return False
    return last["op"] in ("start", "heartbeat") and bool(last.get("task"))


def ref_states(bare: Path) -> dict[str, dict]:
    """node id -> the claim state on the server itself (the bare repository)."""
    out = git(bare, "for-each-ref", "--format=%(objectname) %(refname)", "refs/leafwise/claims")
    states = {}
    for line in out.splitlines():
        sha, ref = line.split(" ", 1)
        states[ref.rsplit("/", 1)[1]] = json.loads(git(bare, "cat-file", "blob", f"{sha}:claim.json"))
    return states


def yaml_done(clones: list[Path], tasks: int) -> dict[str, list[int]]:
    """node id -> the clones whose plan says it is done (the outcome, written by complete in that clone)."""
    found: dict[str, list[int]] = {}
    for c, work in enumerate(clones):
        for i in range(tasks):
            node = f"T-{i + 1}"
            if "status: done" in (work / ".leafwise" / "nodes" / f"{node}.yaml").read_text():
                found.setdefault(node, []).append(c)
    return found


def read_logs(logs: Path) -> list[dict]:
    rows = []
    for path in logs.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            try:
                rows.append({**json.loads(line), "agent": path.stem})
            except ValueError:
                pass  # a line cut by SIGKILL
    return rows


# long: one run from start to end (servers, clones, agents, faults, the checks), read top to bottom
def run_one(kind: str, args: argparse.Namespace, rng: random.Random) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"lw-team-{kind}-") as tmp, ExitStack() as stack:
        base = Path(tmp)
        prefix = None
        if kind == "daemon":
            prefix = stack.enter_context(daemon(base))
        elif kind == "http":
            prefix = stack.enter_context(smart_http(base))
        clones = team_clones(base, url_for(kind, prefix), args.clones, tasks=args.tasks)
        if args.delay and kind != "file":  # a local remote's hooks never run (the hardened receive-pack)
            set_hook(base / "plan.git", delay=args.delay)
        logs = base / "logs"
        logs.mkdir()
        ttl_min = args.ttl / 60
        agents: dict[str, tuple[subprocess.Popen, Path]] = {}
        offsets = {work: rng.uniform(-600, 600) for work in clones}
        for c, work in enumerate(clones):
            for i in range(args.agents):
                name = f"c{c}a{i}"
                agents[name] = (spawn(work, name, logs, ttl_min, rng, offsets[work]), work)
        began, frozen, killed, spawned = time.monotonic(), 0, 0, len(agents)
        done: set[str] = set()
        bare = base / "plan.git"
        while time.monotonic() - began < args.limit:
            time.sleep(0.5)
            done = {n for n, st in ref_states(bare).items() if st["state"] == "done"}
            if len(done) >= args.tasks:
                break
            live = [n for n, (p, _) in agents.items() if p.poll() is None]
            holding = [n for n in live if _holds(logs / f"{n}.jsonl")]  # faults with teeth: on a held task
            live = holding or live
            if live and rng.random() < args.faults:
                victim = rng.choice(live)
                proc, work = agents[victim]
                if rng.random() < 0.7:  # frozen past its lease, then woken: its late finish must be refused
                    os.killpg(proc.pid, signal.SIGSTOP)
                    time.sleep(args.ttl * rng.uniform(2.0, 3.0))
                    os.killpg(proc.pid, signal.SIGCONT)
                    frozen += 1
                else:  # killed mid-task; a fresh agent takes its place in that clone
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    killed += 1
                    spawned += 1
                    # the same agent restarted, under its own name: its `next` names a complete it was killed in
                    agents[victim] = (spawn(work, victim, logs, ttl_min, rng, offsets[work]), work)
        elapsed = time.monotonic() - began
        for proc, _ in agents.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        rows = read_logs(logs)
        states = ref_states(bare)
        outcome = yaml_done(clones, args.tasks)
        # the done claim's agent wrote the outcome in its own clone (agent names start with c<clone>)
        orphans = [n for n, st in states.items() if st["state"] == "done" and not outcome.get(n)]
        wrong = [n for n, st in states.items() if st["state"] == "done" and outcome.get(n)
                 and int(st["agent"].split("a")[0][1:]) not in outcome[n]]
    completes = {n: len(where) for n, where in outcome.items()}
    claim_ms = [r["ms"] for r in rows if r["op"] == "start" and r["task"]]
    complete_ms = [r["ms"] for r in rows if r["op"] == "complete" and r["code"] == 0]
    next_ms = [r["ms"] for r in rows if r["op"] == "next" and r["code"] == 0]
    return {"transport": {"file": "file://", "daemon": "git daemon", "http": "smart HTTP"}[kind],
            "push_delay": "none" if kind == "file" else f"{args.delay:g} s",
            "tasks": args.tasks, "done": len(completes), "agents": f"{args.clones}x{args.agents}+{spawned - args.clones * args.agents}",
            "duplicates": sum(n - 1 for n in completes.values()) + len(wrong),
            "ref_done_no_yaml": len(orphans),
            "finished_after_restart": sum(1 for r in rows if r.get("finished") and r["code"] == 0),
            "steals": sum(1 for r in rows if r["op"] == "start" and r.get("stolen")),
            "refused_finishes": sum(1 for r in rows if r["op"] == "complete" and r["code"] == 3),
            "frozen": frozen, "killed": killed, "seconds": round(elapsed, 1),
            "claim_p50": _pct(claim_ms, 50), "claim_p95": _pct(claim_ms, 95),
            "complete_p50": _pct(complete_ms, 50), "complete_p95": _pct(complete_ms, 95),
            "next_p50": _pct(next_ms, 50), "next_p95": _pct(next_ms, 95)}


def _pct(values: list[float], p: int) -> int:
    if not values:
        return 0
    if len(values) == 1:
        return round(values[0])
    return round(statistics.quantiles(values, n=100)[p - 1])


COLUMNS = ("transport", "push_delay", "tasks", "done", "agents", "duplicates", "ref_done_no_yaml", "finished_after_restart", "steals",
           "refused_finishes", "frozen", "killed", "seconds", "claim_p50", "claim_p95", "complete_p50", "complete_p95",
           "next_p50", "next_p95")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=60)
    parser.add_argument("--clones", type=int, default=3)
    parser.add_argument("--agents", type=int, default=2, help="agents per clone")
    parser.add_argument("--transports", default="file,daemon,http")
    parser.add_argument("--ttl", type=float, default=3.0, help="lease in seconds")
    parser.add_argument("--delay", type=float, default=0.05,
                        help="seconds each push waits on the server (a pre-receive hook: git daemon and smart HTTP "
                             "only, since a file:// remote's hooks never run)")
    parser.add_argument("--faults", type=float, default=0.25, help="chance per half second of a freeze or kill")
    parser.add_argument("--limit", type=float, default=240.0, help="seconds per transport at most")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    results = [run_one(kind, args, rng) for kind in args.transports.split(",")]
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for row in results:
        print("| " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
    print("latencies in ms (claim: a start --next that got a task; complete: a complete that was accepted; "
          "next: every next, one bounded fetch each)")
    print("done: tasks whose outcome is in a clone's plan; duplicates: done in two clones, or by another than "
          "the claim's holder; ref_done_no_yaml: an agent killed between the claim's done and its YAML write, "
          "never finished; finished_after_restart: such a task finished by the restarted agent (its next named it)")
    bad = [r for r in results if r["duplicates"] or r["done"] + r["ref_done_no_yaml"] < r["tasks"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
