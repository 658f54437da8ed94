"""The agent guide: the loop and the rules, short enough to paste into an agent's instructions."""

from __future__ import annotations

from leafwise.commands.contract import Result, next_
from leafwise.commands.registry import Ctx

GUIDE = """\
# Working with Leafwise

This project's plan lives in `.leafwise/` (one YAML file per node). Drive it with
the `leafwise` CLI (or the `leafwise` MCP server: the same commands as tools).

## The loop
1. `leafwise context` once at the start: releases, hierarchy, what is blocked.
2. `leafwise start --next --agent <you>`: take the one task to work on now and claim it in one
   step (a lease; others are refused). `next` alone only looks: a `start ID` after it can lose a race.
3. `leafwise doc ID`: read the task's docs and diagrams BEFORE the code.
4. Do the work. Then `leafwise complete ID --summary "what you did and how you know it works"`,
   or `leafwise block ID --reason "what is missing and who can provide it"`.
5. Repeat from 2 until the answer is `Done.`

## Every answer ends with its next action: follow it
- `Next: <command>`  run it as is (ids are real; fill only <placeholders>).
- `Or: <command>`    the fallback, only if the Next/Wait/Fix line cannot be done.
- `Wait: <condition>` not yet (someone's claim, a blocked task, a lock). Do not ask again and
  again: its `Or:` is the waiting call, `leafwise start --next --agent <you> --wait 300`,
  which blocks until work comes free (woken by the plan's own writes) and then takes it.
- `Done.`            the workflow is complete: stop.
- `Error:` + `Fix: <command>` (on stderr; exit code 1-5): run the fix, then retry.
With `--json` (and over MCP) the same is in the envelope's `_next_action`.

## Rules
- Read a task's docs before its code; re-read them when a command points at them.
- Never mark a task done without evidence: tests that pass, a file and line that
  implements it. Say what the evidence is in the summary.
- Block with a reason a person can act on; never leave a task silently half-done.
- Tails become nodes at once: `leafwise add "<title>" --follows ID --tech-debt` for
  debt you leave behind, `leafwise add "<title>" --follows ID --trigger "<when>"` for
  an improvement that applies later. `add` refuses a title that repeats an open node's work
  (a near-duplicate): `show` the node it names and reuse it, or give yours a title that says what
  sets it apart. Only a person adds anyway (`--force`).
- Strategic questions are a person's: `leafwise ask ID "<question>" --option "A: …"
  --option "B: …"` blocks the node until someone decides.
- A person's answer, unblock note or comment on your task comes once, in the text above the
  `Next:` line ("Ana's answer on ID: …") and in the task's `messages` (`task` in next, start
  and doc; `next` in complete and block): read it before the work, it may change the task.
- Stuck or surprised? `leafwise diagnose ID` says why; `leafwise doctor` checks the setup.

## MCP
Register the server once: `claude mcp add leafwise -- leafwise mcp` (Claude Code);
other clients run the command `leafwise mcp` over stdio (see docs/mcp.md). Tools
are named like `get_project_context`, `get_next_task`, `start_task`, `get_doc`,
`complete_task`, `block_task`; follow each result's `_next_action`.
"""


def agent_guide(ctx: Ctx) -> Result:
    return Result({"text": GUIDE, "format": "markdown"},
                  next_(ctx.cmd("context"), "start a session from the plan's context"),
                  GUIDE.rstrip("\n").splitlines())
