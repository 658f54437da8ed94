"""A simulated coding agent for `leafwise demo`: the real loop, through the real CLI.

Every step is a `leafwise … --json` subprocess, and the agent does what the
envelope's `_next_action` says: `next` → `start` → sometimes `doc` → mostly
`complete --summary …`, sometimes `block --reason …` or an `ask` for a
person, and now and then a tech-debt tail (`add --tech-debt --follows ID`).
It stops on `Done.`, on SIGTERM/SIGINT, or after waiting `--patience`
seconds on a `Wait:` (a person may unblock work meanwhile, so it keeps asking).
With `--parent-pipe` it also stops when its stdin closes: `leafwise demo` holds
the other end, so the agent ends with the canvas however the canvas ends
(a closed terminal, SIGKILL), never writing on alone.

    python -m leafwise.canvas.demo.agent --root DIR [--speed 1.0] [--agent demo-agent] [--max-tasks N]
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from leafwise.store import reader

SUMMARIES = (
    "Implemented {t} with unit tests for the happy path and the two obvious edge cases.",
    "{T} works end to end; covered by an integration test and noted in the changelog.",
    "Built {t} on the existing service layer; no schema change, tests green.",
    "{T} is in place behind the current routes; added fixtures and a regression test.",
    "Finished {t}; refactored the nearby helper it needed and kept the public API unchanged.",
)
REASONS = (
    "Waiting for the staging credentials from ops (ticket OPS-231)",
    "The provider's sandbox answers differently from its API docs; asked their support",
    "Needs the final copy from marketing before the texts can be wired in",
    "CI is red on main because of an unrelated migration; cannot verify this change",
    "Depends on a design review of the new layout that is scheduled for Thursday",
)
TAILS = (
    "Add missing tests around {t}",
    "Extract the {t} helpers into their own module",
    "Replace the ad-hoc retries in {t} with the shared retry policy",
    "Document the edge cases found while building {t}",
)
QUESTIONS = (
    ("Should {t} ship behind a feature flag first?",
     ("A: Yes, flag it and roll out to 10% of users", "B: No, ship it to everyone with the release")),
    ("Which storage should {t} use?",
     ("A: The main Postgres database (simple, one more table)", "B: Redis (fast, but data may be lost on restart)")),
)


class DemoAgent:
    def __init__(self, root: Path, agent: str, speed: float, patience: float, seed: int | None,
                 max_tasks: int | None = None):
        self.root = root
        self.max_tasks = max_tasks
        self.tasks = 0
        self.agent = agent
        self.speed = max(0.05, speed)
        self.patience = patience
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.errors = 0

    def log(self, text: str) -> None:
        print(text, flush=True)

    def cli(self, *args: str) -> dict[str, Any]:
        """Run `leafwise ARGS --json` in the plan's folder; the envelope, whatever the exit code."""
        proc = subprocess.run([sys.executable, "-P", "-m", "leafwise.commands.surfaces.cli", *args, "--json"],
                              cwd=self.root, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL,
                              env={**os.environ, "LEAFWISE_AGENT": self.agent})  # the journal names it
        try:  # our own CLI's answer, parsed within the reader's caps for one (reader.ANSWER)
            env = reader.load_json(proc.stdout, reader.ANSWER)
            if not isinstance(env, dict):
                raise ValueError("not an envelope")
        except ValueError:  # reader.Refused too
            env = {"status": "error", "error": {"message": (proc.stderr or proc.stdout).strip()[:300]},
                   "_next_action": {"marker": "fix", "command": None}}
        status = env.get("status")
        detail = env.get("error", {}).get("message") if status == "error" else ""
        self.log(f"$ leafwise {' '.join(shlex.quote(a) for a in args)} → {status} {detail or ''}".rstrip())
        return env

    def follow(self, command: str, **fill: str) -> dict[str, Any]:
        """Run a hinted command line, filling its placeholders (`<agent>`, `"<summary>"`, …)."""
        words = shlex.split(command)
        if words and words[0] == "leafwise":
            words = words[1:]
        values = {"<agent>": self.agent, **{f"<{k}>": v for k, v in fill.items()}}
        return self.cli(*[values.get(w, w) for w in words])

    def pause(self, factor: float = 1.0) -> bool:
        """Sleep a step; False when told to stop."""
        return not self.stop.wait(self.speed * factor)

    def run(self) -> int:
        waited = 0.0
        while not self.stop.is_set():
            env = self.cli("next", "--agent", self.agent)
            action = env.get("_next_action") or {}
            marker = action.get("marker")
            if marker == "done":
                self.log("Done. The plan is finished.")
                return 0
            if marker == "wait":
                if waited >= self.patience:
                    self.log(f"Wait: {action.get('condition')} — gave up after {self.patience:g}s")
                    return 0
                waited += self.speed * 3
                if not self.pause(3):
                    break
                continue
            waited = 0.0
            command = action.get("command") or ""
            if marker != "next" or " start " not in f" {command} " and " complete " not in f" {command} ":
                self.errors += 1
                if self.errors > 5:
                    self.log(f"Giving up: {env.get('error') or action}")
                    return 1
                if not self.pause(2):
                    break
                continue
            self.errors = 0
            self.work_on(env, command)
            self.tasks += 1
            if self.max_tasks is not None and self.tasks >= self.max_tasks:
                self.log(f"Stopped after {self.tasks} task(s), as asked.")
                return 0
            if not self.pause():
                break
        self.log("Stopped.")
        return 0

    def work_on(self, env: dict[str, Any], command: str) -> None:
        task = (env.get("result") or {}).get("task") or {}
        node_id = task.get("id") or command.split()[2]
        title = task.get("title") or node_id
        if " start " in f" {command} ":
            started = self.follow(command)
            if started.get("status") != "ok" or not self.pause():
                return
            action = started.get("_next_action") or {}
            if (action.get("command") or "").startswith("leafwise doc") and self.rng.random() < 0.8:
                self.follow(action["command"])
                if not self.pause(0.5):
                    return
        self.finish(node_id, title)

    def finish(self, node_id: str, title: str) -> None:
        t = title[:1].lower() + title[1:]
        roll = self.rng.random()
        if roll < 0.05:
            self.cli("block", node_id, "--reason", self.rng.choice(REASONS), "--agent", self.agent)
            return
        if roll < 0.07:
            question, options = self.rng.choice(QUESTIONS)
            self.cli("ask", node_id, question.format(t=t), *[a for o in options for a in ("--option", o)],
                     "--agent", self.agent)
            return
        summary = self.rng.choice(SUMMARIES).format(t=t, T=title)
        done = self.cli("complete", node_id, "--summary", summary, "--agent", self.agent)
        if done.get("status") == "ok" and self.rng.random() < 0.12 and self.pause(0.5):
            self.cli("add", self.rng.choice(TAILS).format(t=t), "--tech-debt", "--follows", node_id)


def stop_when_closed(agent: DemoAgent) -> None:
    """Read stdin to its end (the parent writes nothing): the end comes when the parent is gone."""
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    agent.log("The process that started this agent has ended (its pipe closed): stopping.")
    agent.stop.set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the folder holding .leafwise/")
    parser.add_argument("--agent", default="demo-agent")
    parser.add_argument("--speed", type=float, default=1.0, help="seconds between steps")
    parser.add_argument("--patience", type=float, default=120.0, help="seconds to keep asking on Wait:")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before the first step")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-tasks", type=int, default=None, help="stop after this many tasks")
    parser.add_argument("--parent-pipe", action="store_true",
                        help="stop when stdin closes (the process that started the agent holds its other end)")
    args = parser.parse_args(argv)
    agent = DemoAgent(Path(args.root), args.agent, args.speed, args.patience, args.seed, args.max_tasks)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: agent.stop.set())
    if args.parent_pipe:
        threading.Thread(target=stop_when_closed, args=(agent,), daemon=True, name="parent-pipe").start()
    if args.delay and agent.stop.wait(args.delay):
        return 0
    return agent.run()


if __name__ == "__main__":
    sys.exit(main())
