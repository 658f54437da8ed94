"""A team's trial over smart HTTP with agents on the real MCP client: a bare repository behind git's smart
HTTP (`git http-backend` behind a token-checking http.server on 127.0.0.1, a 50 ms pre-receive delay so
races reach the server), clones in separate folders acting as machines, and agents in them, each its own
`leafwise mcp` process driven by the MCP python SDK's stdio client: `start_task(next)` then
`complete_task` until nothing is left to hand out. Then each clone commits its branch and pushes it, the
first clone merges every branch into main (the key-wise node merge driver in play), `team sync`, and
`validate`. Prints one JSON summary: tasks done, duplicates, refused steps, merge conflicts, validate.
With `--follow`, a person follows the whole run in `canvas --follow` (the real app, headless) from a clone
that never joined the team: what it saw of the claims, and whether origin/main's merge reached it.

    python bench/team_mcp_trial.py                      # 24 tasks, agents 1+2+2 in 3 clones
    python bench/team_mcp_trial.py --tasks 40 --agents 2,2 --seed 3
    python bench/team_mcp_trial.py --follow             # and a person following in the canvas
    python bench/team_mcp_trial.py --ttl 0.05 --stall   # 3 s leases; one agent stalls 3 leases holding a task

`--stall`: the first agent of the second clone, holding its second task, goes silent for three leases
(no heartbeat, as a frozen process) before it completes: another clone must take the task only after it
saw the claim unchanged past the lease, and the staller's late finish must be refused. With a lease set,
agents call `start_task` with `wait` (15 s) so the held tasks' end reaches them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from testkit.gitserver import clone, git, set_hook, smart_http, team_clones  # noqa: E402


def leafwise(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


async def agent(name: str, clone: Path, rng: random.Random, log: list[dict], ttl: float | None = None,
                stall: bool = False) -> None:
    """One agent: its own MCP server process in its clone, claiming and finishing until nothing is left
    (`ttl`: its lease in minutes, and it waits for held work; `stall`: silent for 3 leases on its 2nd task)."""
    server = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(clone))
    with open(clone.parent / f"{name}.stderr", "w") as err:
        async with stdio_client(server, errlog=err) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                asks = {"next": True, "agent": name, **({"ttl": ttl, "wait": 15} if ttl else {})}
                taken = 0
                for _ in range(200):
                    began = time.monotonic()
                    got = (await client.call_tool("start_task", asks)).structured_content
                    took = time.monotonic() - began
                    if got["status"] == "error":
                        log.append({"agent": name, "step": "start", "error": got["error"]["code"], "s": took,
                                    "next": got["_next_action"]})
                        if got["error"].get("retryable"):
                            await asyncio.sleep(0.5)
                            continue
                        return
                    task = got["result"]["task"]
                    if task is None:
                        log.append({"agent": name, "step": "stop", "s": took, "reason": got["result"]["reason"],
                                    "next": got["_next_action"]})
                        return
                    log.append({"agent": name, "step": "start", "id": task["id"], "s": took})
                    taken += 1
                    if stall and ttl and taken == 2:
                        log.append({"agent": name, "step": "stall", "id": task["id"]})
                        await asyncio.sleep(3 * ttl * 60)  # no heartbeat: silent past its lease
                    work = clone / "work"
                    work.mkdir(exist_ok=True)
                    (work / f"{task['id']}-{name}.txt").write_text(f"{task['id']} by {name}\n")  # the code
                    await asyncio.sleep(rng.uniform(0.05, 0.4))
                    began = time.monotonic()
                    done = (await client.call_tool("complete_task", {"node_id": task["id"], "agent": name,
                                                                      "summary": f"{task['id']} by {name}"})
                            ).structured_content
                    took = time.monotonic() - began
                    if done["status"] == "error":
                        log.append({"agent": name, "step": "complete", "id": task["id"], "error": done["error"]["code"],
                                    "s": took})
                    else:
                        mutation = done.get("mutation") or {}
                        log.append({"agent": name, "step": "complete", "id": task["id"], "s": took,
                                    "applied": mutation.get("applied"), "reason": mutation.get("reason"),
                                    "next": done["_next_action"]})


def conflicted(work: Path) -> list[str]:
    return git(work, "diff", "--name-only", "--diff-filter=U").split()


def done_in(work: Path, ref: str, tasks: int) -> set[str]:
    out = set()
    for i in range(1, tasks + 1):
        try:
            text = git(work, "show", f"{ref}:.leafwise/nodes/T-{i}.yaml")
        except AssertionError:
            continue
        if "\nstatus: done" in "\n" + text:
            out.add(f"T-{i}")
    return out


class Follower:
    """A person in `canvas --follow` (the real app, headless) on a clone that never joined: it records
    the most claims it showed at once, the toasts, and whether origin/main's merge reached it."""

    def __init__(self, work: Path, base: Path) -> None:
        from leafwise.canvas.app import make_canvas

        self.app = make_canvas(work, watch=False, settings_path=base / "canvas-settings.json", follow=True, every=1.0)
        self.most = 0
        self._run: asyncio.Task | None = None
        self._stop = asyncio.Event()

    async def start(self) -> None:
        ready = asyncio.Event()

        async def run() -> None:
            async with self.app.run_test(size=(160, 40)) as pilot:
                ready.set()
                while not self._stop.is_set():
                    self.most = max(self.most, sum(1 for c in self.app.team_claims.values() if c.state == "held"))
                    await pilot.pause(0.2)

        self._run = asyncio.ensure_future(run())
        await ready.wait()

    async def stop(self, tasks: int) -> dict:
        """Wait (up to 60 s) for the toast that origin/main has the tasks done, then close the canvas."""
        app = self.app
        said = lambda: [f"{n.title}: {n.message}" for n in app.notices if "moved" in n.title]  # noqa: E731
        end = time.monotonic() + 60
        while not said() and time.monotonic() < end:
            await asyncio.sleep(0.3)
        found = {"polls": app.team_polls, "error": app.team_error, "most_held_at_once": self.most,
                 "done_claims_seen": sum(1 for c in app.team_claims.values() if c.state == "done"),
                 "closed_on_main_open_here": len(app.team_upstream.closed_there(app.state.plan))
                 if app.team_upstream is not None else None,
                 "toasts": len(app.notices), "main_moved_toast": said()[:1]}
        self._stop.set()
        if self._run is not None:
            await self._run
        return found


def ref_steals(bare: Path, claims: list[str]) -> list[dict]:
    """Every claim commit on the remote that took a task from a silent holder (its `stolen_from`)."""
    found = []
    for ref in claims:
        for sha in git(bare, "log", "--format=%H", ref).split():
            state = json.loads(git(bare, "cat-file", "blob", f"{sha}:claim.json"))
            if state.get("stolen_from"):
                found.append({"id": state["node"], "by": f"{state['agent']}@{state['clone']}",
                              "from": state["stolen_from"]})
    return found


def pct(values: list[float], p: int) -> int:
    if not values:
        return 0
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))])


async def trial(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed)
    per_clone = [int(n) for n in args.agents.split(",")]
    base = Path(tempfile.mkdtemp(prefix="leafwise-mcp-trial-"))
    with smart_http(base) as prefix:
        clones = team_clones(base, lambda repo: f"{prefix}/{repo.name}", len(per_clone), tasks=args.tasks)
        set_hook(base / "plan.git", 0.05)
        agents = []
        for c, (work, count) in enumerate(zip(clones, per_clone)):
            git(work, "checkout", "-q", "-b", f"agents/clone-{c}")
            agents += [(f"a{c}{k}", work) for k in range(count)]
        log: list[dict] = []
        follower = Follower(clone(f"{prefix}/plan.git", base / "person"), base) if args.follow else None
        if follower is not None:
            await follower.start()
        began = time.monotonic()
        staller = f"a1{0}" if args.stall else None
        await asyncio.gather(*(agent(name, work, random.Random(rng.random()), log, args.ttl, name == staller)
                               for name, work in agents))
        seconds = time.monotonic() - began

        for c, work in enumerate(clones):
            git(work, "add", "-A")
            if git(work, "status", "--porcelain").strip():
                git(work, "commit", "-q", "-m", f"the agents' work in clone-{c}")
            git(work, "push", "-q", "origin", f"agents/clone-{c}")
        lead = clones[0]
        git(lead, "checkout", "-q", "main")
        git(lead, "fetch", "-q", "origin")
        merges = []
        for c in range(len(clones)):
            proc = subprocess.run(["git", "merge", "--no-edit", "-q", f"origin/agents/clone-{c}"], cwd=lead,
                                  capture_output=True, text=True, env={**__import__("os").environ,
                                                                       "GIT_AUTHOR_NAME": "lead",
                                                                       "GIT_AUTHOR_EMAIL": "l@x", "GIT_COMMITTER_NAME": "lead",
                                                                       "GIT_COMMITTER_EMAIL": "l@x"})
            files = conflicted(lead) if proc.returncode else []
            merges.append({"branch": f"agents/clone-{c}", "code": proc.returncode, "conflicts": files,
                           "said": (proc.stdout + proc.stderr).strip().splitlines()[-3:]})
            if proc.returncode:
                git(lead, "merge", "--abort")
        git(lead, "push", "-q", "origin", "main")
        followed = await follower.stop(args.tasks) if follower is not None else None
        synced = leafwise(lead, "team", "sync")
        validated = leafwise(lead, "validate")
        claims = git(base / "plan.git", "for-each-ref", "--format=%(refname)", "refs/leafwise/claims/").split()
        steals = ref_steals(base / "plan.git", claims)

    starts = [e for e in log if e["step"] == "start" and "id" in e]
    completes = [e for e in log if e["step"] == "complete" and "error" not in e and e.get("applied") is not False]
    unapplied = [{k: e[k] for k in ("agent", "id", "reason")} for e in log
                 if e["step"] == "complete" and e.get("applied") is False]
    by_task: dict[str, list[str]] = {}
    for e in completes:
        by_task.setdefault(e["id"], []).append(e["agent"])
    branch_done = {f"agents/clone-{c}": done_in(clones[0], f"origin/agents/clone-{c}", args.tasks)
                   for c in range(len(clones))}
    in_two = sorted(t for t in {t for s in branch_done.values() for t in s}
                    if sum(t in s for s in branch_done.values()) > 1)
    return {
        "transport": "smart HTTP", "tasks": args.tasks, "clones": len(clones), "agents": len(agents),
        "mcp_sessions": len(agents), "seconds": round(seconds, 1),
        "done_on_main": len(done_in(clones[0], "HEAD", args.tasks)),
        "completed_calls": len(completes), "duplicates": sum(1 for a in by_task.values() if len(a) > 1) + len(in_two),
        "done_in_two_branches": in_two,
        "started_twice": sorted(t for t in {e["id"] for e in starts} if sum(e["id"] == t for e in starts) > 1),
        "refused": [e for e in log if "error" in e],
        "stalled": [e["id"] for e in log if e["step"] == "stall"],
        "completes_not_applied": unapplied,
        "steals": steals,
        "stops": [{"agent": e["agent"], "reason": e["reason"], "next": e["next"]["marker"],
                   "line": e["next"].get("condition") or e["next"].get("command")} for e in log if e["step"] == "stop"],
        "per_agent": {name: sum(1 for e in completes if e["agent"] == name) for name, _ in agents},
        "claim_p50_ms": pct([e["s"] for e in starts], 50), "claim_p95_ms": pct([e["s"] for e in starts], 95),
        "complete_p50_ms": pct([e["s"] for e in completes], 50),
        "complete_p95_ms": pct([e["s"] for e in completes], 95),
        "claim_refs": len(claims), "merges": merges,
        "team_sync": {"code": synced.returncode, "last": (synced.stdout or synced.stderr).strip().splitlines()[-1:]},
        "validate": {"code": validated.returncode, "out": (validated.stdout or validated.stderr).strip().splitlines()[-4:]},
        "follower": followed, "folder": str(base), "median_start_s": round(statistics.median([e["s"] for e in starts]), 3) if starts else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--agents", default="1,2,2", help="agents per clone, comma-separated (one clone each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--follow", action="store_true", help="a person follows in canvas --follow (headless)")
    parser.add_argument("--ttl", type=float, default=None, help="each agent's lease in minutes (0.05: 3 s)")
    parser.add_argument("--stall", action="store_true", help="one agent goes silent 3 leases holding a task")
    args = parser.parse_args()
    found = asyncio.run(trial(args))
    print(json.dumps(found, indent=1))
    ok = found["duplicates"] == 0 and found["done_on_main"] == args.tasks and found["validate"]["code"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
