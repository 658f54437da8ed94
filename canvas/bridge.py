"""How the canvas runs a command: the registry and the runner, like the CLI and MCP.

Every action a person takes in the canvas becomes one `runner.execute` call,
so it gets the same checks, the same journal entry and the same envelope
(errors with their `Fix:`) as an agent would.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leafwise.commands.contract import action_lines
from leafwise.commands.registry import REGISTRY, Ctx, load_all
from leafwise.commands.runner import Outcome, execute


@dataclass(frozen=True, slots=True)
class Request:
    """One command to run: its registry name, its arguments and what to call it in messages."""

    name: str
    args: dict[str, Any]
    label: str  # e.g. "Unblock SHOP-32"
    node: str | None = None


def run(root: Path, request: Request, actor: str | None = None) -> Outcome:
    """Run a registry command on the plan at `root` (blocking: call it from a worker thread)."""
    load_all()
    command = REGISTRY[request.name]
    return execute(command, Ctx(root=str(root), actor=actor), dict(request.args))


def error_text(outcome: Outcome) -> str:
    """The error and its remediation lines, as the CLI prints them on stderr."""
    env = outcome.envelope
    lines = [env["error"]["message"], *action_lines(env)]
    return "\n".join(lines)


def touched_ids(outcome: Outcome) -> set[str]:
    """Node ids a mutation reports changing (for a re-read when the watcher is off)."""
    mutation = outcome.envelope.get("mutation") or {}
    ids = {c["id"] for c in mutation.get("changes") or [] if isinstance(c, dict) and c.get("id")}
    result = outcome.envelope.get("result")
    if isinstance(result, dict) and isinstance(result.get("id"), str):
        ids.add(result["id"])
    return ids
