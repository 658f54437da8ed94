"""An unreadable claim: a claim ref of one of the plan's tasks whose content does not parse as a claim.
One state with one step, the words every answer that meets it uses (team status, start, team repair)."""

from __future__ import annotations

from leafwise.commands.contract import NextAction, fix, wait
from leafwise.commands.registry import Ctx, command_line

UNREADABLE_WHY = ("the claim ref on the remote does not parse as a claim: no clone may take the task until "
                  "a person deletes it")


def unreadable_step(ctx: Ctx) -> NextAction:
    """The one step that clears an unreadable claim: a person's `team repair` (it deletes the ref, leased)."""
    line = command_line("team repair", root=ctx.root)
    if ctx.overrides(True):
        return fix(line, "delete the claim refs that cannot be read")
    return wait(f"a person runs {line}", "deleting an unreadable claim is a person's act")
