"""The agent-loop trial: several agents, each a real MCP client of its own `leafwise mcp`, and a person at
the CLI, on one real plan; then the journal is read for what went wrong.

    python bench/agent_trial.py PLAN_FOLDER --agents 4 --minutes 3

Each agent follows only `_next_action`: it runs the command line as the tool call it stands for,
"works" a moment after a start, and completes with a summary; one task in `--ask-every` it asks the
person a question instead and goes on with other work; on `Wait:` it makes the waiting call the
answer offers (`Or:` … `--wait`), or sleeps `--poll` seconds when none is offered (a poll). The person
answers each open question and unblocks each blocked task with a note, every `--person-every` s.

At the end it prints, from the agents' calls and the plan's journal:
- wasted calls: answers that changed nothing and handed nothing out (a Wait, an error), of all calls;
- wrong actors: journal events an agent caused that name someone else (or the person's events an agent);
- forced completions: completions that overrode another's hold;
- undelivered words: the person's answers and notes that never reached an agent (no `delivered` event);
- stalls: the longest time work was available while every agent waited.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
from leafwise.commands.surfaces.tool_answers import tool_call
from mcp import Client
from mcp.client.stdio import StdioServerParameters

FILL = {"<summary>": "implemented, with tests (see the diff)", "<reason>": "needs credentials from a person",
        "<seconds>": "30"}
PERSON = "trial-person"
# Only the agents run these in the trial (the person decides and unblocks): any other actor is wrong.
AGENT_COMMANDS = {"start", "complete", "block", "ask", "heartbeat", "unclaim", "add", "comment", "delivered",
                  "cascade"}


def fill(line: str, agent: str) -> str:
    for placeholder, value in {**FILL, "<agent>": agent}.items():
        line = line.replace(f'"{placeholder}"', shlex.quote(value)).replace(placeholder, shlex.quote(value))
    return line


def changed(envelope: dict[str, Any]) -> bool:
    mutation = envelope.get("mutation") or {}
    return bool(mutation.get("applied") or mutation.get("changes"))


async def run_agent(name: str, plan: Path, args: argparse.Namespace, stats: Counter, log: list[dict]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("LEAFWISE_ROOT", "LEAFWISE_AGENT")}
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(plan), env=env)
    rng = random.Random(name)
    deadline = time.monotonic() + args.minutes * 60
    async with Client(params) as client:
        line = f"leafwise start --next --agent {name} --wait 30"
        while time.monotonic() < deadline:
            try:
                tool, arguments = tool_call(fill(line, name))
            except ValueError as exc:
                stats["unrunnable hints"] += 1
                print(f"{name}: cannot run {line!r}: {exc}", flush=True)
                line = f"leafwise start --next --agent {name} --wait 30"
                continue
            if tool == "complete_task" and args.ask_every and rng.random() < 1 / args.ask_every:
                tool, arguments = "ask_decision", {"node_id": arguments["node_id"], "agent": name,
                                                   "question": "Keep the old API for one more release?",
                                                   "option": ["A: keep it, deprecated", "B: remove it now"]}
            began = time.monotonic()
            result = await client.call_tool(tool, arguments)
            envelope: dict[str, Any] = result.structured_content or {}
            action = envelope.get("_next_action") or {}
            text = " ".join(getattr(c, "text", "") for c in result.content)
            stats["calls"] += 1
            handed = bool(((envelope.get("result") or {}).get("task") or {}).get("id")) if tool in (
                "start_task", "get_next_task") else False
            wasted = result.is_error or (action.get("marker") == "wait" and not changed(envelope) and not handed)
            stats["wasted"] += bool(wasted)
            stats["errors"] += bool(result.is_error)
            stats["words seen"] += text.count("answer on") + text.count("note on") + text.count("comment on")
            log.append({"agent": name, "tool": tool, "node": arguments.get("node_id"), "marker": action.get("marker"),
                        "seconds": round(time.monotonic() - began, 3), "wasted": bool(wasted)})
            marker = action.get("marker")
            if marker == "done":
                stats["ended: Done."] += 1
                return
            if marker == "wait":
                offered = action.get("or") or ""
                if "--wait" in offered:
                    line = offered
                else:
                    stats["polls"] += 1
                    await anyio.sleep(args.poll)
                    line = f"leafwise start --next --agent {name} --wait 30"
                continue
            if tool == "start_task" and not result.is_error:
                await anyio.sleep(args.work * rng.uniform(0.5, 1.5))
            line = action.get("command") or f"leafwise start --next --agent {name} --wait 30"
        stats["ended: time"] += 1


def cli(plan: Path, *words: str) -> dict[str, Any]:
    env = {**os.environ, "LEAFWISE_USER": PERSON}
    env.pop("LEAFWISE_AGENT", None)
    out = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *words, "--json"], cwd=plan,
                         env=env, capture_output=True, text=True, timeout=60).stdout
    try:
        return json.loads(out)
    except ValueError:
        return {}


async def run_person(plan: Path, args: argparse.Namespace, stats: Counter, stop: anyio.Event) -> None:
    while not stop.is_set():
        context = await anyio.to_thread.run_sync(cli, plan, "context")
        for item in (context.get("result") or {}).get("blocked") or []:
            if item.get("decision"):
                await anyio.to_thread.run_sync(cli, plan, "decide", item["id"], "--option", "1", "--note",
                                               "keep it one more release")
                stats["decisions"] += 1
            else:
                await anyio.to_thread.run_sync(cli, plan, "unblock", item["id"], "--note", "credentials are in the vault")
                stats["unblocks"] += 1
        with anyio.move_on_after(args.person_every):
            await stop.wait()


def journal_findings(plan: Path, agents: set[str], since: str) -> dict[str, Any]:
    events = [json.loads(x) for x in (plan / ".leafwise" / "journal.jsonl").read_text().splitlines() if x.strip()]
    events = [e for e in events if str(e.get("time", "")) >= since]
    wrong = [e for e in events if (e.get("command") in AGENT_COMMANDS and e.get("actor") not in agents)
             or (e.get("command") in ("decide", "unblock") and e.get("actor") in agents)]
    forced = [e for e in events if e.get("command") == "complete" and (e.get("forced_by") or e.get("holder"))]
    words = [e for e in events if e.get("command") in ("decide", "unblock") and e.get("actor") == PERSON]
    delivered = Counter(e.get("node") for e in events if e.get("command") == "delivered")
    undelivered = [e for e in words if not delivered.get(e.get("node"))]
    return {"events": len(events), "wrong actors": len(wrong), "wrong examples": wrong[:3],
            "forced completions": len(forced), "words": len(words), "undelivered": len(undelivered),
            "undelivered examples": [(e.get("command"), e.get("node")) for e in undelivered[:5]]}


async def main_async(args: argparse.Namespace) -> tuple[dict[str, Counter], Counter, list[dict]]:
    stats = {f"agent-{i + 1}": Counter() for i in range(args.agents)}
    person: Counter = Counter()
    log: list[dict] = []
    stop = anyio.Event()
    async with anyio.create_task_group() as outer:
        outer.start_soon(run_person, args.plan, args, person, stop)
        async with anyio.create_task_group() as group:
            for name in stats:
                group.start_soon(run_agent, name, args.plan, args, stats[name], log)
        stop.set()
    return stats, person, log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("plan", type=Path, help="the folder that holds .leafwise/")
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--work", type=float, default=2.0, help="seconds an agent works on a task")
    parser.add_argument("--poll", type=float, default=3.0, help="seconds an agent sleeps on a Wait with no waiting call")
    parser.add_argument("--ask-every", type=int, default=4, help="ask the person instead of completing, 1 in N")
    parser.add_argument("--person-every", type=float, default=5.0, help="seconds between the person's rounds")
    args = parser.parse_args()
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    began = time.monotonic()
    stats, person, log = anyio.run(main_async, args)
    total = sum(s["calls"] for s in stats.values())
    wasted = sum(s["wasted"] for s in stats.values())
    print(f"\n{'agent':10} {'calls':>6} {'wasted':>6} {'errors':>6} {'polls':>5}  ended")
    for name, counts in stats.items():
        ended = ", ".join(k.removeprefix("ended: ") for k in counts if k.startswith("ended"))
        print(f"{name:10} {counts['calls']:6} {counts['wasted']:6} {counts['errors']:6} {counts['polls']:5}  {ended}")
    findings = journal_findings(args.plan, set(stats), since)
    slowest = max((e["seconds"] for e in log), default=0)
    print(f"\n{time.monotonic() - began:.0f} s, {total} calls, wasted {wasted} ({100 * wasted / max(total, 1):.1f}%), "
          f"person: {dict(person)}, unrunnable hints: {sum(s['unrunnable hints'] for s in stats.values())}")
    print(f"wrong actors {findings['wrong actors']}, forced completions {findings['forced completions']}, "
          f"person's words {findings['words']}, undelivered {findings['undelivered']}, "
          f"slowest call {slowest:.1f} s")
    if findings["wrong examples"] or findings["undelivered examples"]:
        print(json.dumps({k: findings[k] for k in ("wrong examples", "undelivered examples")}, indent=1)[:2000])


if __name__ == "__main__":
    main()
