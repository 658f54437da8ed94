"""Run one registry command on any surface and get its envelope: the one code path."""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leafwise.commands.arguments import Surface, again, check
from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    Result,
    envelope,
    fix,
    wait,
)
from leafwise.commands.registry import Command, Ctx, help_line
from leafwise.store import UnsafePath
from leafwise.store.ids import canonical_id
from leafwise.store.loader import TooLarge
from leafwise.store.writer import LockBusy


@dataclass(slots=True)
class Outcome:
    envelope: dict[str, Any]
    text: list[str]
    exit_code: int


ID_ARGUMENTS = ("node_id", "parent", "follows", "depends_on")


def _upper_ids(arguments: dict[str, Any]) -> dict[str, Any]:
    """Ids are accepted in any case (hx-10 is HX-10): ids are capitals by the format."""
    def up(value: Any) -> Any:
        if (node_id := canonical_id(value)) is not None:
            return node_id
        if isinstance(value, (list, tuple)):
            return type(value)(up(v) for v in value)
        return value

    return {k: up(v) if k in ID_ARGUMENTS else v for k, v in arguments.items()}


def _longest(arguments: dict[str, Any]) -> frozenset[str]:
    """The text argument that was too large: the longest one."""
    texts = {k: len(v) for k, v in arguments.items() if isinstance(v, str)}
    return frozenset([max(texts, key=texts.__getitem__)]) if texts else frozenset()


_UNSCANNED_EXIT: list[bool] = []


def _exit_unscanned() -> None:
    """A CLI process ends after its one command. At its exit the interpreter runs one more full
    collection over everything still alive (the loaded plan: 20-30 ms of CPU at 11,100 nodes), only
    to find what the exit frees anyway: freezing the heap in an exit hook (atexit runs before that
    pass) skips it. Nothing changes while the process runs: an in-process CLI call (tests) freezes
    only when its whole process exits."""
    if not _UNSCANNED_EXIT:
        import atexit
        import gc

        atexit.register(gc.freeze)
        _UNSCANNED_EXIT.append(True)


def execute(command: Command, ctx: Ctx, arguments: dict[str, Any], surface: Surface = "call",
            extra: Sequence[str] = ()) -> Outcome:
    """Run `command` with `arguments` as `surface` gives them (`arguments.check`: the one check), and
    answer with its envelope; `extra` is what a CLI line had that matches no argument."""
    if surface == "cli":
        _exit_unscanned()
    try:
        arguments = _upper_ids(check(command, arguments, ctx.cmd, surface, extra, ctx.actor))
        outcome: Result | CommandError = command.handler(ctx, **arguments)
        if not command.mutating and (plan := ctx.loaded_plan) is not None and plan.project.settings.get("team"):
            from leafwise.commands.domain.team_reads import join_first  # a clone that never joined: the join

            outcome = join_first(ctx, outcome)
    except CommandError as exc:
        outcome = exc
    except TooLarge as exc:
        outcome = CommandError("too_large", str(exc), fix(again(command, ctx.cmd, arguments, _longest(arguments)),
                                                          "send less: split the text or keep the details in a doc"),
                               exit_code=EXIT_USAGE, category="usage")
    except UnsafePath as exc:
        outcome = CommandError("unsafe_path", str(exc),
                               fix(help_line(command.name, root=ctx.root), "use a plan id or path"),
                               exit_code=EXIT_USAGE, category="usage")
    except LockBusy as exc:
        outcome = CommandError("lock_busy", str(exc), wait("the lock is free (retry in a few seconds)",
                                                           "another writer holds it"),
                               exit_code=EXIT_CONFLICT, category="conflict")
    except OSError as exc:
        outcome = CommandError("io_error", f"{exc.strerror or exc}: {exc.filename or ''}".strip(": "),
                               fix(ctx.cmd("doctor"), "check the plan folder and its permissions"),
                               exit_code=EXIT_FAILURE, category="io")
    except Exception as exc:  # noqa: BLE001 - the contract holds even for our own bugs
        outcome = CommandError(
            "internal_error", f"{type(exc).__name__}: {exc}",
            fix(ctx.cmd("doctor"), "an unexpected failure; doctor checks the installation"),
            exit_code=EXIT_FAILURE, category="internal",
            details={"traceback": traceback.format_exc(limit=6)})
    env = envelope(command.full, outcome)
    if isinstance(outcome, CommandError):
        return Outcome(env, outcome.text, outcome.exit_code)
    return Outcome(env, outcome.text, EXIT_OK)
