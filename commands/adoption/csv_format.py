"""CSV: a header row and one item a row (Jira's and Linear's exports, a spreadsheet, Leafwise's own export).

Which column is which field: `--map title=Summary,status=Status,…` (a field=column pair each), else the
first header that `GUESSES` names for the field, case aside. A Leafwise export's `source_tool` and
`source_id` columns are the node's source again, so a plan moved by CSV still matches its tracker,
and its cells lose the one quote the export put before a formula-like start (`formula_safe`).
Statuses are read by their words
(`mapping.guess_status`: "Won't Do" → cancelled), priorities by `PRIORITY_WORDS`; `--map status.X=…`
and `--map priority.X=…` override both. Every other column goes to the node's doc.
"""

from __future__ import annotations

import csv
import io
import os
from typing import Any

from leafwise.commands.adoption import reading
from leafwise.commands.adoption.mapping import Item, Options, Parsed, ReleaseSpec, guess_status, release_id, text
from leafwise.commands.text import is_hidden

TOOL = "csv"
FIELDS = ("id", "title", "status", "priority", "assignee", "description", "parent", "depends_on", "tags",
          "release", "created", "summary", "blocked_reason")
GUESSES = {"id": ("id", "issue key", "key", "issue id"), "title": ("title", "summary", "name"),
           "status": ("status", "state"), "priority": ("priority",), "assignee": ("assignee", "owner"),
           "description": ("description", "body"),
           "parent": ("parent", "parent id", "parent issue", "parent key", "epic link"),
           "depends_on": ("depends_on", "depends on", "dependencies", "blocked by"),
           "tags": ("tags", "labels", "label"),
           "release": ("release", "fix version/s", "fix versions", "milestone", "cycle"),
           "created": ("created", "created at", "createdat", "created_at"), "summary": ("summary",),
           "blocked_reason": ("blocked_reason",)}
PRIORITY_WORDS = {"highest": "high", "urgent": "high", "critical": "high", "high": "high", "p0": "high",
                  "p1": "high", "medium": "normal", "normal": "normal", "p2": "normal", "low": "low",
                  "lowest": "low", "p3": "low", "p4": "low"}
NO_PRIORITY = frozenset({"", "none", "no priority"})
csv.field_size_limit(1 << 20)  # one cell: at most the reader's record cap
FORMULA_START = ("=", "+", "-", "@")  # what a spreadsheet may run as a formula (OWASP)
CONTROL_START = ("\t", "\r")  # and a cell starting with these, whatever follows


def _lead_blank(char: str) -> bool:
    """A character a spreadsheet may drop before it reads a formula: a quote, any Unicode space
    (NBSP, ideographic …) and invisible ones (zero-width, BOM)."""
    return char == "'" or char.isspace() or is_hidden(char)


def _formula_like(cell: str) -> bool:
    """A cell a spreadsheet would read as a formula, also behind spaces (` =1+2`, NBSP`@SUM`), or one
    that is such a cell behind quotes (so a title that starts with `'=` keeps its own quote through
    the round trip). One pass over the cell's start."""
    if cell.lstrip("'").startswith(CONTROL_START):
        return True
    for char in cell:
        if not _lead_blank(char):
            return char in FORMULA_START
    return False


def formula_safe(cell: str) -> str:
    """A cell of Leafwise's export: a formula-like one (`=HYPERLINK(...)`) behind one quote, which
    a spreadsheet shows as text."""
    return "'" + cell if _formula_like(cell) else cell


def as_written(cell: str) -> str:
    """A cell of Leafwise's export as the plan had it: the one quote `formula_safe` added, gone
    (`_formula_like` reads past quotes, so `as_written(formula_safe(x)) == x` for every x)."""
    return cell[1:] if cell.startswith("'") and _formula_like(cell[1:]) else cell


def _columns(header: list[str], options: Options, parsed: Parsed) -> dict[str, int]:
    own = options.table.get("field", {})
    folded = [h.strip().casefold() for h in header]
    out: dict[str, int] = {}
    for name, column in own.items():
        if name not in FIELDS:
            raise reading.InputError(parsed.file, "--map", f"{name} is not a field an import sets",
                                     f"map one of {', '.join(FIELDS)}")
        if column.casefold() not in folded:
            raise reading.InputError(parsed.file, "header", f"no column {column!r} (for {name})",
                                     f"use one of the header's columns: {', '.join(header)[:300]}")
        out[name] = folded.index(column.casefold())
    taken = set(out.values())
    for name in FIELDS:
        if name in out:
            continue
        found = next((folded.index(g) for g in GUESSES[name] if g in folded and folded.index(g) not in taken), None)
        if found is not None:
            out[name] = found
            taken.add(found)
    if "title" not in out:
        raise reading.InputError(parsed.file, "header", "no title column",
                                 "name it: --map title=COLUMN")
    parsed.notes.append("columns: " + ", ".join(f"{header[i]} → {n}" for n, i in out.items()))
    return out


def parse(options: Options) -> Parsed:
    if options.path.is_dir() or not os.path.lexists(options.path):  # a FIFO, a device, a link: the reader names it
        raise reading.InputError(options.shown, None, "a folder, not a .csv file" if options.path.is_dir()
                                 else "no such file", "give the path of the .csv file")
    raw = reading.load_text(options.path, options.shown)
    parsed = Parsed(TOOL, options.shown)
    try:
        rows = list(csv.reader(io.StringIO(raw.lstrip("\ufeff"))))
    except csv.Error as exc:
        raise reading.InputError(options.shown, None, f"not CSV: {exc}",
                                 "save the sheet as CSV (comma separated)") from exc
    if not rows:
        raise reading.InputError(options.shown, None, "the file is empty", "export with a header row")
    header = rows[0]
    columns = _columns(header, options, parsed)
    if {"source_tool", "source_id"} <= {h.strip().casefold() for h in header}:  # a Leafwise export
        rows[1:] = [[as_written(c) for c in row] for row in rows[1:]]
    for number, row in enumerate(rows[1:], 2):
        if any(cell.strip() for cell in row):
            _row(parsed, options, header, columns, row, number)
    return parsed


def _split(value: str) -> list[str]:
    return [p.strip() for p in value.replace(";", ",").split(",") if p.strip()]


def _row(parsed: Parsed, options: Options, header: list[str], columns: dict[str, int], row: list[str],
         number: int) -> None:
    cell = lambda name: row[columns[name]].strip() if name in columns and columns[name] < len(row) else ""  # noqa: E731
    key = cell("id") or f"row-{number}"
    item = Item(key, cell("title"), f"line {number} ({key})")
    word = cell("status")
    status = (options.mapped("status", word) or guess_status(word)) if word else "draft"
    if status is None:
        options.bad(parsed, key, item.where, f"status {word!r}: no rule maps it", f"map it: --map status.{word}=draft")
        return
    item.status = status
    word = cell("priority")
    if word.casefold() not in NO_PRIORITY:
        item.priority = options.mapped("priority", word) or PRIORITY_WORDS.get(word.casefold())
        if item.priority is None:
            options.bad(parsed, key, item.where, f"priority {word!r}: no rule maps it",
                        f"map it: --map priority.{word}=normal")
            return
    item.assignee = text(cell("assignee"))
    folded = [h.strip().casefold() for h in header]
    own = "source_tool" in folded and "source_id" in folded  # a Leafwise CSV export: its text as the plan had it
    raw = lambda name: row[columns[name]] if name in columns and columns[name] < len(row) else ""  # noqa: E731
    whole = raw if own else cell
    item.description = text(whole("description"))
    item.summary = text(whole("summary"))
    item.blocked_reason = text(whole("blocked_reason"))
    item.parent = text(cell("parent"))
    item.depends_on = _split(cell("depends_on"))
    item.tags = _split(cell("tags"))
    item.created = _created(cell("created"))
    if cell("release"):
        item.release = release_id(cell("release"))
        if item.release not in {r.id for r in parsed.releases}:
            parsed.releases.append(ReleaseSpec(item.release, cell("release")))
    used = set(columns.values())
    if own:  # the node's own source
        tool, ident = (row[folded.index(k)].strip() if folded.index(k) < len(row) else ""
                       for k in ("source_tool", "source_id"))
        if tool and ident:
            item.source = {"tool": tool, "id": ident}
        used |= {folded.index("source_tool"), folded.index("source_id")}
    extra: dict[str, Any] = {}
    for index, name in enumerate(header):
        value = row[index].strip() if index < len(row) else ""
        if index not in used and value:
            extra[name] = value if name not in extra else f"{extra[name]}, {value}"  # Jira repeats a header
    if cell("created") and item.created is None:
        extra[header[columns["created"]]] = cell("created")
    item.extra = extra
    parsed.items.append(item)


def _created(value: str) -> str | None:
    """An ISO time, or Jira's `2026-10-01 09:00`, as ISO text in UTC; None otherwise."""
    if not value:
        return None
    if "T" in value:
        return value
    day, _, clock = value.partition(" ")
    if len(day) == 10 and day[4] == "-" and clock[:2].isdigit() and clock[3:5].isdigit():
        return f"{day}T{clock[:2]}:{clock[3:5]}:00Z"
    return None
