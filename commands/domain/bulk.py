"""Bulk updates: many updates in one call, each through its own command (`runner.execute`), each checked alone."""

from __future__ import annotations

import json
import sys
from typing import Any

from leafwise.commands.contract import EXIT_USAGE, CommandError, Mutation, Result, fix, next_
from leafwise.commands.domain.assignments import format_assignment
from leafwise.commands.registry import Ctx, help_line, load_word
from leafwise.commands.runner import execute
from leafwise.store import Status, reader
from leafwise.store.schema import LIST_FIELDS

# An update names a command, or a status that maps to one.
STATUS_COMMANDS = {Status.DONE: "complete", Status.BLOCKED: "block", Status.CANCELLED: "cancel",
                   Status.IN_PROGRESS: "start", Status.DRAFT: "unblock"}
ALLOWED = {"complete", "block", "unblock", "cancel", "start", "edit", "heartbeat", "unclaim", "decide"}
# Each update is a whole command (about 20 ms): 3,000 in one call took 57 s.
MAX_UPDATES = 200
EXAMPLE = '[{"id": "SHOP-7", "status": "done", "summary": "…"}, {"id": "SHOP-9", "set": {"title": "…"}}]'


def _to_call(update: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(update, dict) or not isinstance(update.get("id"), str):
        raise ValueError("each update is an object with an id")
    args = {k: v for k, v in update.items() if k not in ("id", "command", "status", "set")}
    if "set" in update:
        values = update["set"]
        if not isinstance(values, dict) or not values:
            raise ValueError("set must be an object of field: value")
        return "edit", {"set": tuple(_assignment(k, v) for k, v in values.items()), **args}
    name = update.get("command") or STATUS_COMMANDS.get(update.get("status", ""))
    if name not in ALLOWED:
        raise ValueError(f"unknown command or status in {json.dumps(update)[:120]}")
    return name, args


def _assignment(key: str, value: Any) -> str:
    """`key=value` that edit reads back as this JSON value exactly: the text "~", "null", "'x'" or
    "  x  " is that text (before, the first two cleared the field and the others lost quotes and
    spaces); a number or a boolean is its text. A list field given as text keeps edit's `a,b` form."""
    if key in LIST_FIELDS and isinstance(value, str):
        return f"{key}={value}"
    line = format_assignment(key, value)
    if line is None and isinstance(value, str):  # both kinds of quote, read as YAML unquoted
        raise ValueError(f"{key}: a text holding both kinds of quote that starts with [ or {{ cannot be set "
                         "exactly through bulk; set it with edit")
    return line or f"{key}={value}"


def _stdin() -> bytes:
    """Standard input, at most one byte past the updates cap (which `load_json` then refuses)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        return stream.read(reader.UPDATES.cap + 1)
    return sys.stdin.read(reader.UPDATES.cap + 1).encode("utf-8", "surrogateescape")


def _load(ctx: Ctx, source: str | None, updates: Any) -> list[Any]:
    """The updates, from the argument, stdin (`-`) or a file, each parsed within the reader's caps
    for an updates file (`reader.UPDATES`: size and depth), the file read by the one reader."""
    where = "the updates" if updates is not None or source in (None, "-") else f"the updates in {source}"
    try:
        if updates is not None:
            data = reader.load_json(updates, reader.UPDATES) if isinstance(updates, str) else updates
        elif source == "-":
            data = reader.load_json(_stdin(), reader.UPDATES)
        elif source:
            data = reader.read_json(source, reader.UPDATES)
        else:
            raise ValueError("give a FILE, - for stdin, or updates")
    except (OSError, ValueError) as exc:  # reader.Refused too: a link, a FIFO, too large, too deep
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CommandError("bad_bulk_input", f"cannot read {where}: {why}",
                           fix(help_line("bulk", root=ctx.root), f"a JSON list like {EXAMPLE}"),
                           exit_code=EXIT_USAGE, category="usage") from exc
    if not isinstance(data, list):
        raise CommandError("bad_bulk_input", "the updates must be a JSON list",
                           fix(help_line("bulk", root=ctx.root), f"a JSON list like {EXAMPLE}"),
                           exit_code=EXIT_USAGE, category="usage")
    if len(data) > MAX_UPDATES:
        raise CommandError("bad_bulk_input", f"{len(data)} updates in one call; a call takes at most {MAX_UPDATES}",
                           fix(help_line("bulk", root=ctx.root),
                               f"send the first {MAX_UPDATES} updates, then the rest in further calls"),
                           exit_code=EXIT_USAGE, category="usage")
    return data


def apply(ctx: Ctx, source: str | None = None, updates: Any = None) -> Result:
    """Run each update through its own command; the successful and the failed ones."""
    items = _load(ctx, source, updates)
    successful: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for index, update in enumerate(items):
        try:
            name, args = _to_call(update)
        except ValueError as exc:
            failed.append({"index": index, "id": update.get("id") if isinstance(update, dict) else None,
                           "code": "bad_update", "reason": str(exc)})
            continue
        ctx.forget()
        # the CLI loads handler modules only up to bulk's: load the update's own command by its word
        outcome = execute(load_word(name)[name], ctx, {"node_id": update["id"], **args})
        env = outcome.envelope
        if env["status"] == "ok":
            successful.append({"index": index, "id": update["id"], "command": name})
            changes += (env["mutation"] or {}).get("changes", [])
        else:
            failed.append({"index": index, "id": update["id"], "command": name, "code": env["error"]["code"],
                           "reason": env["error"]["message"],
                           "fix": env["_next_action"]["command"] or env["_next_action"]["condition"]})
    ctx.forget()
    lines = [f"{len(successful)} applied, {len(failed)} failed"]
    lines += [f"  failed #{f['index']} {f['id']}: {f['reason']}" for f in failed]
    result = {"successful": successful, "failed": failed, "total": len(items)}
    mutation = Mutation("bulk_update", "bulk", bool(successful),
                        f"{len(successful)} applied, {len(failed)} failed", changes)
    if failed and not successful:
        first = failed[0]
        raise CommandError("bulk_failed", f"none of the {len(items)} updates applied; first: {first['reason']}",
                           fix(first.get("fix") or ctx.cmd("validate"), "fix the first failure and resend"),
                           category="refused", details=result, mutation=mutation, text=lines)
    hint = next_(ctx.cmd("show", failed[0]["id"]), "some updates failed: look at the first",
                 or_=ctx.cmd("next")) if failed else next_(ctx.cmd("next"), "all updates applied")
    return Result(result, hint, lines, mutation)
