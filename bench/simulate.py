"""Many agents and a person on one plan: a seeded, deterministic simulation.

Agents follow only the hints (`_next_action`): half of them through the real MCP
server (the SDK's in-process client), half through the real CLI (click, in
process, `--json`). A person answers decisions and unblocks with notes,
comments, adds work under closed parents, cancels, reprioritises; hand edits
break a node file and repair it; the clock jumps past lease expiry; agents
crash mid-task and come back knowing nothing. After every step the invariants
are checked (see `check`). One seed, one story: the same seed replays exactly.

    python bench/simulate.py                 # 1,000 seeds for 1, 4 and 8 agents
    python bench/simulate.py --seeds 50 --agents 8
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio

logging.getLogger("watchfiles").setLevel(logging.WARNING)

FILL = {"<summary>": "implemented with tests", "<reason>": "waiting for credentials"}
MAX_FIX_CHAIN = 5
LEASE = timedelta(minutes=60)  # the plan's lease (claims.DEFAULT_TTL_MINUTES)
BEAT_EVERY = LEASE / 2  # a working agent renews its lease halfway, as the agent guide asks


class Clock:
    """The simulation's time: advances a little per step; jumps past lease expiry on demand."""

    def __init__(self) -> None:
        self.now = datetime(2027, 1, 4, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def tick(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Agent:
    name: str
    surface: str  # "mcp" | "cli"
    line: str = ""  # the command line the last hint gave
    waiting: str | None = None  # the Wait: condition, while waiting
    finished: bool = False
    fix_chain: int = 0
    calls: int = 0
    errors: int = 0
    holding: str | None = None  # the task it started and works on
    beat_at: datetime | None = None  # when it last started or heartbeat that task


@dataclass
class Stats:
    calls: int = 0
    errors: int = 0
    completed: int = 0
    violations: list[str] = field(default_factory=list)
    stalls: int = 0
    wasted: dict[str, int] = field(default_factory=dict)  # "command: error code" -> how many


def make_plan(root: Path, rng: random.Random) -> None:
    plan = root / ".leafwise"
    (plan / "nodes").mkdir(parents=True)
    (plan / "docs").mkdir()
    (plan / "project.yaml").write_text("schema: 1\npid: sim\nname: Sim\nid_prefix: S\nreleases:\n"
                                       "  - {id: R1, title: One}\n  - {id: R2, title: Two}\n")
    (plan / "docs" / "design.md").write_text("# Design\n")
    n = 0
    leaves: list[str] = []
    for e in range(rng.randint(2, 3)):
        n += 1
        epic = f"S-{n}"
        docs = "docs: [docs/design.md]\n" if e == 0 else ""
        (plan / "nodes" / f"{epic}.yaml").write_text(
            f"id: {epic}\ntitle: Epic {e}\nstatus: draft\nrelease: R{1 + e % 2}\n{docs}")
        for leaf in range(rng.randint(2, 4)):
            n += 1
            dep = f"depends_on: [{rng.choice(leaves)}]\n" if leaves and rng.random() < 0.25 else ""
            (plan / "nodes" / f"S-{n}.yaml").write_text(
                f"id: S-{n}\ntitle: Task {e}.{leaf}\nparent: {epic}\nstatus: draft\n{dep}")
            leaves.append(f"S-{n}")


class Sim:
    def __init__(self, seed: int, agents: int, root: Path, client_for: dict[str, Any]) -> None:
        from leafwise.commands.registry import load_all

        self.rng = random.Random(seed)
        self.root = root
        self.clock = Clock()
        self.stats = Stats()
        self.agents = [Agent(f"agent-{i}", "mcp" if i % 2 == 0 else "cli",
                             line=f"leafwise start --next --agent agent-{i}") for i in range(agents)]
        self.clients = client_for
        self.registry = load_all()
        self.broken: dict[str, str] = {}  # node id -> its good text, while a hand edit broke it
        self.expect: dict[str, str] = {}  # node id -> a person's note the next starter must see
        self.holder: dict[str, str] = {}  # node id -> who started it last
        self.person_steps = 0
        self.done_count: dict[str, int] = {}  # node id -> completions in its current round (journal)
        self.journal_at = 0  # bytes of the journal already checked
        self.reported_twice: list[str] = []

    # --- the surfaces ---------------------------------------------------------------------------

    def cli(self, argv: list[str]) -> dict[str, Any]:
        from click.testing import CliRunner
        from leafwise.commands.surfaces import cli

        cli.CLOCK[:] = [self.clock]
        result = CliRunner().invoke(cli.build(), [*argv, "--json", "--root", str(self.root)])
        text = result.stdout.strip().splitlines()
        return json.loads(text[-1]) if text else {"status": "error", "_next_action": {"marker": "fix"}}

    async def mcp(self, agent: Agent, argv: list[str]) -> dict[str, Any]:
        from leafwise.commands.surfaces.tool_answers import tool_call

        name, arguments = tool_call(shlex.join(["leafwise", *argv]))
        result = await self.clients[agent.name].call_tool(name, arguments)
        return result.structured_content

    async def run(self, agent: Agent | None, argv: list[str]) -> dict[str, Any]:
        if agent is not None and agent.surface == "mcp":
            env = await self.mcp(agent, argv)
        else:
            env = self.cli(argv)
        if agent is not None:
            agent.calls += 1
            self.stats.calls += 1
            if env.get("status") == "error":
                agent.errors += 1
                self.stats.errors += 1
                key = f"{argv[0]}: {(env.get('error') or {}).get('code')}"
                self.stats.wasted[key] = self.stats.wasted.get(key, 0) + 1
        return env

    # --- agents ------------------------------------------------------------------------------------

    def argv(self, agent: Agent, line: str) -> list[str]:
        words = shlex.split(line)[1:]
        words = [FILL.get(w, agent.name if w == "<agent>" else w) for w in words]
        if "--root" in words:
            i = words.index("--root")
            del words[i:i + 2]
        return words

    async def beat(self, agent: Agent) -> None:
        """A live agent at work renews its lease when half of it has gone (one call, counted)."""
        if agent.holding is None or agent.beat_at is None or self.clock.now - agent.beat_at < BEAT_EVERY:
            return
        env = await self.run(agent, ["heartbeat", agent.holding, "--agent", agent.name])
        if env.get("status") == "ok":
            agent.beat_at = self.clock.now
        else:  # the lease is gone (a person's force, a clock jump while it was down): it stops holding
            agent.holding = agent.beat_at = None

    async def agent_step(self, agent: Agent) -> None:
        if agent.finished:
            return
        await self.beat(agent)
        line = agent.line
        words = self.argv(agent, line)
        if words[:1] == ["complete"] and self.rng.random() < 0.05:  # a strategic question instead
            nid = words[1]
            words = ["ask", nid, "Which way?", "--option", "A: simple", "--option", "B: fast", "--agent", agent.name]
        elif words[:1] == ["complete"] and self.rng.random() < 0.03:
            words = ["block", words[1], "--reason", "needs a person", "--agent", agent.name]
        env = await self.run(agent, words)
        self.observe(agent, words, env)
        action = env.get("_next_action") or {}
        marker = action.get("marker")
        if marker == "done":
            agent.finished, agent.waiting, agent.fix_chain = True, None, 0
        elif marker == "wait":
            agent.waiting, agent.fix_chain = action.get("condition") or "", 0
            agent.line = f"leafwise start --next --agent {agent.name}"
        elif marker == "fix":
            agent.fix_chain += 1
            if agent.fix_chain > MAX_FIX_CHAIN:
                self.stats.violations.append(f"{agent.name}: Fix: chain longer than {MAX_FIX_CHAIN} at {line}")
                agent.fix_chain = 0
                agent.line = f"leafwise start --next --agent {agent.name}"
            else:
                agent.line = action.get("command") or f"leafwise start --next --agent {agent.name}"
            agent.waiting = None
        else:
            agent.fix_chain, agent.waiting = 0, None
            agent.line = action.get("command") or f"leafwise start --next --agent {agent.name}"
        if agent.line and "<" in agent.line.replace("<summary>", "").replace("<reason>", "").replace("<agent>", ""):
            agent.line = f"leafwise start --next --agent {agent.name}"  # a placeholder only a person fills
        if not agent.line.split()[1:2] or agent.line.split()[1] not in {w.split()[0] for w in self.registry}:
            agent.line = f"leafwise start --next --agent {agent.name}"

    def observe(self, agent: Agent, words: list[str], env: dict[str, Any]) -> None:
        result = env.get("result") or {}
        if words[0] in ("complete", "block", "unclaim", "ask") and env.get("status") == "ok":
            agent.holding = agent.beat_at = None
        if words[0] == "start" and env.get("status") == "ok" and result.get("task"):
            nid = result["task"]["id"]
            self.holder[nid] = agent.name
            agent.holding, agent.beat_at = nid, self.clock.now
            note = self.expect.pop(nid, None)
            texts = " ".join(m.get("text", "") for m in result["task"].get("messages") or [])
            if note and note not in texts:
                self.stats.violations.append(f"{agent.name} started {nid} without the person's note {note!r}")
        if words[0] == "complete" and env.get("status") == "ok" and (env.get("mutation") or {}).get("applied"):
            nid = result["id"]
            self.stats.completed += 1
            if self.holder.get(nid) != agent.name:
                self.stats.violations.append(f"{agent.name} completed {nid} held by {self.holder.get(nid)}")

    def crash(self) -> None:
        agent = self.rng.choice(self.agents)
        agent.line = f"leafwise next --agent {agent.name}"  # a restarted agent knows nothing
        agent.finished, agent.waiting, agent.fix_chain = False, None, 0
        agent.holding = agent.beat_at = None  # and renews nothing until it starts again

    # --- the person and the world -------------------------------------------------------------------

    def plan(self):
        from leafwise.store import PlanPaths, load_plan

        return load_plan(PlanPaths(self.root))

    async def person_step(self) -> None:
        from leafwise.store import Status

        plan = self.plan()
        nodes = list(plan.nodes.values())
        roll = self.rng.random()
        n = self.person_steps = self.person_steps + 1
        decisions = [x for x in nodes if x.open_decision is not None]
        blocked = [x for x in nodes if x.status == Status.BLOCKED and x.open_decision is None]
        if decisions and roll < 0.5:
            target = self.rng.choice(decisions)
            note = f"note-{n}"
            env = await self.run(None, ["decide", target.id, "--option", "2", "--note", note])
            if env.get("status") == "ok":
                self.expect[target.id] = note
        elif blocked and roll < 0.7:
            target = self.rng.choice(blocked)
            note = f"unblock-{n}"
            env = await self.run(None, ["unblock", target.id, "--note", note])
            if env.get("status") == "ok" and env["result"]["status"] == Status.DRAFT:
                self.expect[target.id] = note
        elif roll < 0.78:
            open_ = [x for x in nodes if x.status in (Status.DRAFT, Status.IN_PROGRESS) and not x.children]
            if open_:
                target = self.rng.choice(open_)
                await self.run(None, ["comment", target.id, "--text", f"comment-{n}"])
        elif roll < 0.84:
            closed = [x for x in nodes if x.status == Status.DONE and x.children]
            if closed:
                target = self.rng.choice(closed)
                await self.run(None, ["add", f"Follow-up work {n}", "--parent", target.id, "--force"])
        elif roll < 0.87:
            drafts = [x for x in nodes if x.status == Status.DRAFT and not x.children]
            if drafts:
                await self.run(None, ["cancel", self.rng.choice(drafts).id, "--reason", "out of scope"])
        elif roll < 0.92:
            drafts = [x for x in nodes if x.status == Status.DRAFT]
            if drafts:
                await self.run(None, ["edit", self.rng.choice(drafts).id, "--set",
                                      f"priority={self.rng.choice(['high', 'low', 'normal'])}"])
        elif roll < 0.96 and not self.broken:
            leaves = sorted(p for p in (self.root / ".leafwise/nodes").glob("*.yaml"))
            path = self.rng.choice(leaves)
            self.broken[path.stem] = path.read_text()
            path.write_text(path.read_text() + "title: [unclosed\n")
        elif self.broken:
            nid, text = self.broken.popitem()
            (self.root / ".leafwise/nodes" / f"{nid}.yaml").write_text(text)

    # --- invariants ---------------------------------------------------------------------------------

    def check(self) -> None:
        from leafwise.commands.plan_files import find_problems

        plan = self.plan()
        for problem in find_problems(plan):
            if problem.severity != "error":
                continue
            if self.broken and (problem.node in self.broken or any(b in problem.message for b in self.broken)):
                continue
            self.stats.violations.append(f"invalid plan: {problem.code} {problem.node}: {problem.message}")
        seen = self.done_count
        journal = self.root / ".leafwise/journal.jsonl"
        if not journal.exists():
            return
        with journal.open("rb") as fh:  # only the lines appended since the last check
            fh.seek(self.journal_at)
            chunk = fh.read()
        complete = chunk.rfind(b"\n") + 1
        self.journal_at += complete
        for line in chunk[:complete].decode().splitlines():
            event = json.loads(line)
            if event.get("command") == "complete" and event.get("changes"):
                seen[event["node"]] = seen.get(event["node"], 0) + 1
            for item in event.get("cascade") or []:  # reopened by work added below it: a new round
                if item.get("to") == "in-progress":
                    seen.pop(item.get("id"), None)
            if event.get("command") == "edit" and "status" in (event.get("changes") or {}):
                seen.pop(event.get("node"), None)
        twice = sorted(nid for nid, count in seen.items() if count > 1)
        if twice and twice != self.reported_twice:
            self.stats.violations.append(f"done twice: {twice}")
            self.reported_twice = twice

    def real_wait(self, condition: str) -> bool:
        from leafwise.store import CLOSED, Status

        plan = self.plan()
        open_ = [n for n in plan.nodes.values() if n.status not in CLOSED]
        if not open_:
            return False
        return any(n.status == Status.BLOCKED for n in open_) or any(n.status == Status.IN_PROGRESS for n in open_) \
            or bool(self.broken)


async def simulate(seed: int, agents: int, steps: int = 120) -> Stats:
    from leafwise.commands.surfaces.mcp_server import build_server
    from mcp import Client

    tmp = Path(tempfile.mkdtemp(prefix=f"leafwise-sim-{seed}-"))
    try:
        make_plan(tmp, random.Random(seed))
        sim = Sim(seed, agents, tmp, {})
        clients: list[Any] = []
        for agent in sim.agents:
            if agent.surface == "mcp":
                client = Client(build_server(str(tmp), cwd=tmp, clock=sim.clock))
                sim.clients[agent.name] = await client.__aenter__()
                clients.append(client)
        try:
            await _story(sim, steps)
        finally:
            for client in reversed(clients):
                await client.__aexit__(None, None, None)
        return sim.stats
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _story(sim: Sim, steps: int) -> None:
    rng = sim.rng
    for _ in range(steps):
        sim.clock.tick(rng.randint(5, 90))
        roll = rng.random()
        if roll < 0.72:
            await sim.agent_step(rng.choice(sim.agents))
        elif roll < 0.92:
            await sim.person_step()
        elif roll < 0.96:
            sim.crash()
        else:  # an hour passes: agents at work renew their leases on the way, a crashed one's lease lapses
            sim.clock.tick(31 * 60)
            for agent in sim.agents:
                await sim.beat(agent)
            sim.clock.tick(30 * 60)
        sim.check()
    # the end: the person repairs what is broken and answers everything; the agents run to an end
    while sim.broken:
        nid, text = sim.broken.popitem()
        (sim.root / ".leafwise/nodes" / f"{nid}.yaml").write_text(text)
    for _round in range(400):
        pending = [a for a in sim.agents if not a.finished]
        if not pending:
            break
        if all(a.waiting is not None for a in pending):
            before = sim.stats.calls
            await sim.person_step()
            if sim.plan_blocked():
                await _settle(sim)
            sim.clock.tick(61 * 60)
            for agent in pending:
                await sim.agent_step(agent)
            if sim.stats.calls == before:
                break
        else:
            await sim.agent_step(rng.choice(pending))
        sim.check()
    for agent in sim.agents:
        if not agent.finished and not (agent.waiting and sim.real_wait(agent.waiting)):
            sim.stats.stalls += 1
            sim.stats.violations.append(f"{agent.name} stalled at {agent.line!r} ({agent.waiting})")


async def _settle(sim: Sim) -> None:
    """The person answers every open decision and unblocks everything (with notes)."""
    from leafwise.store import Status

    for node in sim.plan().nodes.values():
        if node.open_decision is not None:
            env = await sim.run(None, ["decide", node.id, "--option", "1", "--note", f"final-{node.id}"])
            if env.get("status") == "ok":
                sim.expect[node.id] = f"final-{node.id}"
        elif node.status == Status.BLOCKED:
            env = await sim.run(None, ["unblock", node.id, "--note", f"go-{node.id}"])
            if env.get("status") == "ok" and env["result"]["status"] == Status.DRAFT:
                sim.expect[node.id] = f"go-{node.id}"


def _plan_blocked(self: Sim) -> bool:
    from leafwise.store import Status

    return any(n.status == Status.BLOCKED for n in self.plan().nodes.values())


Sim.plan_blocked = _plan_blocked  # type: ignore[attr-defined]


def run_seed(seed: int, agents: int, steps: int = 120) -> Stats:
    return anyio.run(simulate, seed, agents, steps)


def _one(job: tuple[int, int, int]) -> Stats:
    seed, agents, steps = job
    return run_seed(seed, agents, steps)


def main(argv: list[str] | None = None) -> int:
    import multiprocessing
    import os

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--agents", type=int, nargs="*", default=[1, 4, 8])
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--jobs", type=int, default=2 * (os.cpu_count() or 1),
                        help="worker processes (seeds run in parallel)")
    parser.add_argument("--wasted", action="store_true", help="also list the wasted calls by command and error")
    args = parser.parse_args(argv)
    print(f"{'agents':>6} {'seeds':>6} {'tasks':>7} {'calls/task':>10} {'wasted/task':>11} {'wasted %':>8} "
          f"{'stalls':>6} {'violations':>10} {'seconds':>8}", flush=True)
    bad = 0
    with multiprocessing.get_context("fork").Pool(max(1, args.jobs)) as pool:
        for n in args.agents:
            total = Stats()
            started = time.perf_counter()
            jobs = [(seed, n, args.steps) for seed in range(args.seeds)]
            for seed, stats in zip(range(args.seeds), pool.imap(_one, jobs, chunksize=4)):
                total.calls += stats.calls
                total.errors += stats.errors
                total.completed += stats.completed
                total.stalls += stats.stalls
                total.violations += [f"seed {seed}: {v}" for v in stats.violations]
                for key, count in stats.wasted.items():
                    total.wasted[key] = total.wasted.get(key, 0) + count
            tasks = max(total.completed, 1)
            print(f"{n:>6} {args.seeds:>6} {total.completed:>7} {total.calls / tasks:>10.2f} "
                  f"{total.errors / tasks:>11.3f} {100 * total.errors / max(total.calls, 1):>7.2f}% "
                  f"{total.stalls:>6} {len(total.violations):>10} {time.perf_counter() - started:>8.1f}", flush=True)
            for violation in total.violations[:10]:
                print("   ", violation)
            if args.wasted:
                for key, count in sorted(total.wasted.items(), key=lambda kv: -kv[1]):
                    print(f"       {count:>6}  {key}")
            bad += len(total.violations)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
