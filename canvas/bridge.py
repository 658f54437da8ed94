"""How the canvas runs a command: the registry and the runner, like the CLI and MCP.

Every action a person takes in the canvas becomes one `runner.execute` call,
so it gets the same checks, the same journal entry and the same envelope
(errors with their `Fix:`) as an agent would.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leafwise.commands import registry
from leafwise.commands.contract import action_lines
from leafwise.commands.registry import REGISTRY, Ctx, load_all
from leafwise.commands.runner import Outcome, execute
from leafwise.commands.text import quote


@dataclass(frozen=True, slots=True)
class Request:
    """One command to run: its registry name, its arguments and what to call it in messages."""

    name: str
    args: dict[str, Any]
    label: str  # e.g. "Unblock SHOP-32"
    node: str | None = None
    doc_before: str | None = None  # write-doc: the text it replaces (what an undo writes back)


def person(cwd: str | None = None) -> str:
    """Who sits at the keyboard (`registry.person_name`: LEAFWISE_USER, else git's user.name, else the login name).

    Never an agent's or an assignee's name: what a person does in the canvas is journaled as them.
    """
    return registry.person_name(Path(cwd) if cwd else None)


def run(root: Path, request: Request, actor: str | None = None) -> Outcome:
    """Run a registry command on the plan at `root` as `actor` (blocking: call it from a worker thread).

    A command with an `agent` argument gets the actor there too, so the handler journals the
    person, not the task's assignee.
    """
    load_all()
    command = REGISTRY[request.name]
    args = dict(request.args)
    if actor and any(p.name == "agent" for p in command.params) and not args.get("agent"):
        args["agent"] = actor
    return execute(command, Ctx(root=str(root), actor=actor), args)


# A core hint the canvas has a key for: (how the command starts, what to say after it, in the canvas's terms).
CANVAS_KEYS = (("leafwise start --next", "in the canvas: n in the plan shows the next task"),)


def canvas_hint(line: str, root: Path | str | None = None) -> str:
    """A remediation line ("Fix: leafwise …") for a person in the canvas: without the `--root` the canvas
    added to its own call (`Ctx.cmd` appends it; the person never typed it), and with the canvas's key
    for it when there is one."""
    if root is not None:
        for spelled in {quote(str(root)), str(root)}:
            line = line.replace(f" --root {spelled}", "")
    for command, words in CANVAS_KEYS:
        if f": {command}" in line:
            line += f"  ({words})"
    return line


def error_text(outcome: Outcome, root: Path | str | None = None) -> str:
    """The error and its remediation lines, as the CLI prints them on stderr, put for the canvas
    (`canvas_hint`: no `--root /the/plan`, the key when there is one) when `root` is the plan it ran on."""
    env = outcome.envelope
    lines = [env["error"]["message"], *(canvas_hint(line, root) for line in action_lines(env))]
    return "\n".join(lines)


def touched_ids(outcome: Outcome) -> set[str]:
    """Node ids a mutation reports changing (for a re-read when the watcher is off)."""
    mutation = outcome.envelope.get("mutation") or {}
    ids = {c["id"] for c in mutation.get("changes") or [] if isinstance(c, dict) and c.get("id")}
    result = outcome.envelope.get("result")
    if isinstance(result, dict):
        if isinstance(result.get("id"), str):
            ids.add(result["id"])
        # A cancel's cascade is only in its result.
        ids.update(c["id"] for c in result.get("cascade") or [] if isinstance(c, dict) and isinstance(c.get("id"), str))
    return ids
