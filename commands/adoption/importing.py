"""`leafwise import FORMAT PATH`: read another tracker's files, map them, check them whole, write them.

The format modules read (`taskmaster.py` …), `writing.py` matches and writes; this module is the
command around them: the person's options, the dry run's mapping, the summary and its next action.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from leafwise.commands.adoption import reading
from leafwise.commands.adoption.mapping import InputError, Options, Parsed, parse_map, wrong_kind
from leafwise.commands.adoption.committing import apply
from leafwise.commands.adoption.transaction import Refused
from leafwise.commands.adoption.writing import Prepared, Step, prepare
from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_USAGE,
    MAX_ITEMS,
    CommandError,
    Mutation,
    Result,
    bounded,
    clean,
    fix,
    next_,
    placeholder,
)
from leafwise.commands.domain.nodes import get_node, require_project
from leafwise.commands.domain.planning import reopen_ancestors
from leafwise.commands.registry import Ctx
from leafwise.store import CLOSED, Status

# FORMAT → its module in commands/adoption/
FORMATS = {"taskmaster": "taskmaster", "backlog": "backlog", "beads": "beads", "github": "github",
           "csv": "csv_format", "json": "json_format"}
SHOWN_ITEMS = 400  # lines of a text answer's mapping


def parse(fmt: str, options: Options) -> Parsed:
    """The format's items. A value of the wrong kind outside any one item (a file-level field) is the
    file's problem, never an internal error (each item's own is its problem: `Options.guarded`)."""
    module = importlib.import_module(f"leafwise.commands.adoption.{FORMATS[fmt]}")
    try:
        parsed = module.parse(options)
    except (TypeError, AttributeError) as exc:
        raise InputError(options.shown, None, f"a field holds a value of the wrong kind ({wrong_kind(exc)})",
                         f"check that the file is {fmt}'s own export") from None
    if len(parsed.items) > reading.MAX_IMPORT_ITEMS:
        error = InputError(options.shown, None, f"{len(parsed.items):,} items; one import takes at most "
                           f"{reading.MAX_IMPORT_ITEMS:,}", reading.SPLIT)
        error.too_much = True
        raise error
    return parsed


def _options(ctx: Ctx, fmt: str, path: str, release: str | None, partial: bool,
             mapping: tuple[str, ...]) -> Options:
    try:
        table = parse_map(mapping)
    except ValueError as exc:
        raise CommandError("bad_map", f"--map: {exc}",
                           fix(ctx.cmd("import", fmt, path, dry_run=True), "write --map KEY=VALUE,KEY=VALUE"),
                           exit_code=EXIT_USAGE, category="usage") from exc
    full = Path(path) if Path(path).is_absolute() else ctx.cwd / path
    return Options(full, path, release, partial, table)


def _input_error(ctx: Ctx, fmt: str, path: str, exc: InputError, retry: dict[str, Any]) -> CommandError:
    where = f"{exc.file}" + (f", {exc.item}" if exc.item else "")
    # an item's problem: the dry run with --partial lists every item that would be skipped, and why
    dry = {**retry, "dry_run": True, "partial": True if exc.skippable else retry["partial"]}
    line = exc.command(ctx.cmd) if exc.command else \
        ctx.cmd("import", fmt, placeholder("part of the file"), **{**retry, "dry_run": True}) if exc.too_much else \
        ctx.cmd("import", fmt, path, **dry)
    told = f"{clean(exc.message, 500)}; nothing was imported" + (f" ({exc.fix})" if exc.too_much else "")
    return CommandError("bad_import_input", f"{clean(where, 300)}: {told}",
                        fix(line, clean(exc.fix, 300)), exit_code=EXIT_USAGE, category="usage",
                        source=("import", None), details={"file": exc.file, "item": exc.item, "fix": exc.fix},
                        mutation=Mutation("import_plan", "import", False, "the input is not valid"))


def _not_written(ctx: Ctx, fmt: str, path: str, exc: Refused, retry: dict[str, Any]) -> CommandError:
    """A file of the import could not be put in place: everything was undone; what stood in the way."""
    try:
        where = str(exc.path.relative_to(ctx.paths().repo))
    except ValueError:
        where = str(exc.path)
    again = ctx.cmd("import", fmt, path, **retry)
    todo = "the plan changed meanwhile: import again" if exc.conflict else \
        f"make {where} writable (remove what is in its place), then import again"
    return CommandError("import_not_written", f"{clean(where, 300)}: {clean(exc.reason, 200)}; nothing was imported "
                        "(every file the import had written was put back)", fix(again, todo),
                        exit_code=EXIT_CONFLICT if exc.conflict else 1,
                        category="conflict" if exc.conflict else "io", retryable=exc.conflict,
                        source=("import", None), details={"file": where, "reason": exc.reason},
                        mutation=Mutation("import_plan", "import", False, "a file could not be written; undone"))


def _interrupted(ctx: Ctx, fmt: str, path: str, dry_run: bool) -> list[str]:
    """An earlier import killed midway is finished (or undone) first, as repair would, and said; a dry
    run only says it."""
    from leafwise.commands.adoption import recovery
    from leafwise.store.locks import LockBusy

    try:
        outcome = recovery.finish(ctx.paths(), dry_run)
    except LockBusy as exc:
        raise CommandError("import_busy", f"another import is writing this plan now ({exc})",
                           fix(ctx.cmd("import", fmt, path), "import again once it is done"),
                           exit_code=EXIT_CONFLICT, category="conflict", retryable=True) from exc
    if outcome is None:
        return []
    if outcome.way == "refused":
        raise CommandError("import_interrupted", f"{clean(outcome.said(), 600)}; nothing was imported",
                           fix(ctx.cmd("validate"), recovery.PERSON_FIX), exit_code=1, category="io",
                           source=("import", None))
    if dry_run:
        return [f"an import was interrupted (pid {outcome.pid}, {outcome.written}): this import rolls it "
                f"{outcome.way} first ({outcome.files} file(s), {outcome.lines} journal line(s))"]
    ctx.forget()
    return [outcome.said()]


def run(ctx: Ctx, fmt: str, path: str, release: str | None = None, parent: str | None = None,
        dry_run: bool = False, partial: bool = False, mapping: tuple[str, ...] = (),
        agent: str | None = None) -> Result:
    if fmt not in FORMATS:
        by_suffix = {".csv": "csv", ".jsonl": "beads", ".json": "github"}.get(Path(path).suffix.casefold())
        close = [f for f in FORMATS if f.startswith(str(fmt)[:2].casefold())] + [by_suffix or "csv"]
        raise CommandError("unknown_format", f"no import format {clean(fmt, 40)!r}; the formats: {', '.join(FORMATS)}",
                           fix(ctx.cmd("import", close[0], path, dry_run=True),
                               "name one of the formats"), exit_code=EXIT_USAGE, category="usage")
    finished = _interrupted(ctx, fmt, path, dry_run)
    plan = ctx.plan()
    require_project(ctx, plan, "import")
    retry = {"release": release, "parent": parent, "partial": partial, "map": list(mapping) or None}
    under = get_node(ctx, parent, plan).id if parent else None
    if under and plan.nodes[under].status == Status.CANCELLED:
        raise CommandError("parent_cancelled", f"{under} is cancelled; work is not imported under cancelled work",
                           fix(ctx.cmd("import", fmt, path, **{**retry, "parent": None, "dry_run": True}),
                               "import it elsewhere"), exit_code=EXIT_CONFLICT, category="conflict",
                           source=("node", under))
    if release is not None and release not in {r.id for r in plan.project.releases}:
        raise CommandError("unknown_release", f"release {clean(release, 64)!r} is not in project.yaml",
                           fix(ctx.cmd("release add", release, title=release), "add the release first"),
                           exit_code=5, category="not_found", source=("release", release))
    options = _options(ctx, fmt, path, release, partial, mapping)
    try:
        parsed = parse(fmt, options)
        prepared = prepare(plan, parsed, options)
    except InputError as exc:
        raise _input_error(ctx, fmt, path, exc, retry) from exc
    prepared.notes[:0] = finished
    if dry_run:
        return _dry_answer(ctx, fmt, path, parsed, prepared, retry)
    try:
        ids = apply(ctx, plan, prepared, under, agent)
    except Refused as exc:
        raise _not_written(ctx, fmt, path, exc, retry) from exc
    if under and plan.nodes[under].status == Status.DONE and any(
            s.node is None and s.item.parent is None and s.fields["status"] not in CLOSED for s in prepared.steps):
        reopen_ancestors(ctx, plan, under)  # open work under a done parent reopens it, as add does
    return _answer(ctx, parsed, prepared, ids)


def _summary(prepared: Prepared) -> dict[str, int]:
    counts = {"added": 0, "updated": 0, "unchanged": 0}
    for step in prepared.steps:
        counts[{"add": "added", "update": "updated", "unchanged": "unchanged"}[step.action]] += 1
    counts["skipped"] = len(prepared.skipped)
    return counts


def _row(step: Step, node_id: str | None) -> dict[str, Any]:
    return {"key": step.item.key, "id": node_id, "title": step.fields["title"], "status": step.fields["status"],
            "action": step.action, "parent": step.item.parent, "release": step.fields.get("release"),
            "depends_on": step.item.depends_on, "changed": list(dict.fromkeys(step.changed))
            + (["doc"] if step.doc_changed else [])}


def _first(items: list[Any], kind: str, lines: list[str]) -> list[Any]:
    """The first MAX_ITEMS of a list the answer carries (the cap of `bounded`); a line says how many more."""
    if len(items) > MAX_ITEMS:
        lines.append(f"  … {len(items) - MAX_ITEMS} more {kind} (of {len(items)}; the first {MAX_ITEMS} listed)")
    return items[:MAX_ITEMS]


def _common_lines(parsed: Parsed, prepared: Prepared) -> list[str]:
    lines = [f"  release {r.id}: {clean(r.title)}" + (f" (target {r.target})" if r.target else "")
             for r in prepared.releases[:MAX_ITEMS]]
    more: list[str] = []
    _first(prepared.releases, "releases", more)
    lines += more
    for kind, items, line in (
            ("skipped", prepared.skipped, lambda s: f"  skipped {clean(s.key or '-', 60)} ({clean(s.where, 80)}): "
                                                    f"{clean(s.why, 200)}"),
            ("notes", prepared.notes, lambda n: f"  note: {clean(n, 200)}"),
            ("near-duplicates", prepared.duplicates, lambda d: f"  near-duplicate: {clean(d['key'], 60)} "
                                                              f"“{clean(d['title'], 80)}” ~ {d['like']} ({d['why']})")):
        more = []
        lines += [line(item) for item in _first(items, kind, more)] + more
    return lines


def _result(parsed: Parsed, prepared: Prepared, rows: list[dict[str, Any]], dry_run: bool) -> dict[str, Any]:
    return {"tool": parsed.tool, "file": parsed.file, "dry_run": dry_run, **_summary(prepared),
            **bounded(rows, None),
            "releases": [{"id": r.id, "title": r.title, "target": r.target} for r in prepared.releases[:MAX_ITEMS]],
            "skips": [{"key": s.key, "where": s.where, "why": s.why} for s in prepared.skipped[:MAX_ITEMS]],
            "notes": prepared.notes[:MAX_ITEMS], "duplicates": prepared.duplicates[:MAX_ITEMS],
            # each list above at most MAX_ITEMS (the cap of `bounded`): how many each held
            "listed_of": {"releases": len(prepared.releases), "skips": len(prepared.skipped),
                          "notes": len(prepared.notes), "duplicates": len(prepared.duplicates)}}


def _counts_line(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts[k]} {k}" for k in ("added", "updated", "unchanged", "skipped"))


def _dry_answer(ctx: Ctx, fmt: str, path: str, parsed: Parsed, prepared: Prepared,
                retry: dict[str, Any]) -> Result:
    rows = [_row(s, s.node.id if s.node else None) for s in prepared.steps]
    counts = _summary(prepared)
    lines = [f"Would import {parsed.tool} from {clean(parsed.file, 200)}: {_counts_line(counts)} "
             "(dry run: nothing written)"]
    for row in rows[:SHOWN_ITEMS]:
        mark = {"add": "+", "update": "~", "unchanged": "="}[row["action"]]
        where = ", ".join(x for x in (f"release {row['release']}" if row["release"] else "",
                                      f"under {row['parent']}" if row["parent"] else "",
                                      f"after {', '.join(row['depends_on'])}" if row["depends_on"] else "") if x)
        lines.append(f"  {mark} {clean(row['key'], 60)} → {row['id'] or 'new'} “{clean(row['title'], 80)}” "
                     f"{row['status']}" + (f" ({where})" if where else "")
                     + (f" changes: {', '.join(row['changed'])}" if row["changed"] else ""))
    if len(rows) > SHOWN_ITEMS:
        lines.append(f"  … and {len(rows) - SHOWN_ITEMS} more (--json lists the first {min(len(rows), MAX_ITEMS)})")
    lines += _common_lines(parsed, prepared)
    changes = counts["added"] + counts["updated"] > 0
    hint = next_(ctx.cmd("import", fmt, path, **retry), "the mapping looks right: import it") if changes else \
        next_(ctx.cmd("tree"), "nothing would change")
    return Result(_result(parsed, prepared, rows, True), hint, lines,
                  Mutation("import_plan", "import", False, "dry run: nothing written"))


def _answer(ctx: Ctx, parsed: Parsed, prepared: Prepared, ids: dict[str, str]) -> Result:
    rows = [_row(s, ids.get(s.item.key)) for s in prepared.steps]
    counts = _summary(prepared)
    lines = [f"Imported {parsed.tool} from {clean(parsed.file, 200)}: {_counts_line(counts)}"]
    for row in rows[:SHOWN_ITEMS]:
        if row["action"] != "unchanged":
            mark = "+" if row["action"] == "add" else "~"
            lines.append(f"  {mark} {row['id']} “{clean(row['title'], 80)}” {row['status']} "
                         f"← {clean(row['key'], 60)}"
                         + (f" ({', '.join(row['changed'])})" if row["changed"] else ""))
    lines += _common_lines(parsed, prepared)
    changes = [{"id": r["id"], "op": "create" if r["action"] == "add" else "update", "source": r["key"]}
               for r in rows if r["action"] != "unchanged"]
    applied = bool(changes) or bool(prepared.releases)
    return Result(_result(parsed, prepared, rows, False),
                  next_(ctx.cmd("tree"), "see the imported plan", or_=ctx.cmd("validate")), lines,
                  Mutation("import_plan", "import", applied, _counts_line(counts) if applied
                           else "already imported; nothing changed", changes))
