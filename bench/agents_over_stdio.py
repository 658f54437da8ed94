"""Several agents on one real plan, each a real MCP client talking to its own `leafwise mcp` over stdio.

Each agent follows only `_next_action`: it turns the command line into the tool
call it stands for, runs it, "works" for a moment after a start, completes
with a summary, and stops at `Done.` (or after --max-steps). Now and then an
agent asks a person a question instead (`--ask-every`). Meanwhile a person can
watch and triage in the canvas (`leafwise --root PLAN`), which is the point:

    python bench/agents_over_stdio.py PLAN_FOLDER --agents 3 --work 2.0

It prints one line per call and, at the end, per agent: calls, errors, tasks
completed, and how each run ended. Nothing here is a test: it is the trial a
person runs by hand, written down so it can be run again.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
from leafwise.commands.surfaces.tool_answers import tool_call
from mcp import Client
from mcp.client.stdio import StdioServerParameters

FILL = {"<summary>": "implemented, with tests (see the diff)", "<reason>": "needs credentials from a person"}


def fill(line: str, agent: str) -> str:
    for placeholder, value in {**FILL, "<agent>": agent}.items():
        line = line.replace(placeholder, value)
    return line


async def run_agent(name: str, plan: Path, args: argparse.Namespace, stats: dict[str, Counter]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "LEAFWISE_ROOT"}
    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "leafwise.commands.surfaces.cli", "mcp"],
                                   cwd=str(plan), env=env)
    rng = random.Random(name)
    mine = stats[name]
    async with Client(params) as client:
        line = f"leafwise start --next --agent {name}"
        for _step in range(args.max_steps):
            tool, arguments = tool_call(fill(line, name))
            if tool == "complete_task" and args.ask_every and rng.random() < 1 / args.ask_every:
                tool, arguments = "ask_decision", {"node_id": arguments["node_id"], "agent": name,
                                                   "question": "Keep the old API for one more release?",
                                                   "option": ["A: keep it, deprecated", "B: remove it now"]}
            result = await client.call_tool(tool, arguments)
            envelope: dict[str, Any] = result.structured_content or {}
            action = envelope.get("_next_action") or {}
            mine["calls"] += 1
            mine["errors"] += bool(result.is_error)
            mine["completed"] += tool == "complete_task" and not result.is_error
            print(f"{time.strftime('%H:%M:%S')} {name:8} {tool}({arguments.get('node_id', '')})"
                  f" -> {action.get('marker')}: {action.get('command') or action.get('condition') or ''}",
                  flush=True)
            marker = action.get("marker")
            if marker == "done":
                mine["ended: Done."] += 1
                return
            if marker == "wait":
                await anyio.sleep(args.wait)
                line = action.get("or") or f"leafwise start --next --agent {name}"
                continue
            if tool == "start_task" and not result.is_error:
                await anyio.sleep(args.work * rng.uniform(0.5, 1.5))
            line = action["command"]
        mine["ended: step cap"] += 1


async def main_async(args: argparse.Namespace) -> dict[str, Counter]:
    stats: dict[str, Counter] = {f"agent-{i + 1}": Counter() for i in range(args.agents)}
    async with anyio.create_task_group() as group:
        for name in stats:
            group.start_soon(run_agent, name, args.plan, args, stats)
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("plan", type=Path, help="the folder that holds .leafwise/")
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--work", type=float, default=2.0, help="seconds an agent works on a task")
    parser.add_argument("--wait", type=float, default=3.0, help="seconds an agent waits on a Wait:")
    parser.add_argument("--ask-every", type=int, default=0, help="ask a person instead of completing, 1 in N")
    parser.add_argument("--max-steps", type=int, default=200)
    args = parser.parse_args()
    stats = anyio.run(main_async, args)
    print(f"\n{'agent':10} {'calls':>6} {'errors':>6} {'completed':>9}  ended")
    for name, counts in stats.items():
        ended = ", ".join(k.removeprefix("ended: ") for k in counts if k.startswith("ended"))
        print(f"{name:10} {counts['calls']:6} {counts['errors']:6} {counts['completed']:9}  {ended}")


if __name__ == "__main__":
    main()
