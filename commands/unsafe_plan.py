"""The answer when a plan is not used because of a link or special file among its own (store/paths.py
`confinement_problem`): one error for every surface that looks for the plan (Ctx.paths, init)."""

from __future__ import annotations

from leafwise.commands.contract import EXIT_INVALID, CommandError, CommandLine, fix
from leafwise.store.paths import PlanUnsafe


def unsafe_plan_error(exc: PlanUnsafe, cmd: CommandLine) -> CommandError:
    """exit 4 (invalid plan), naming the path; the fix is `repair` where it may replace the entry (a linked
    journal, claims, lock or cache folder), else `doctor`, and the message says the person's step."""
    action = (fix(cmd("repair"), exc.step) if exc.repairable
              else fix(cmd("doctor"), "doctor lists every link in the plan folder, with the step"))
    return CommandError("unsafe_plan_folder", str(exc), action, exit_code=EXIT_INVALID,
                        category="invalid_plan", source=("file", exc.rel), details={"path": exc.rel})
