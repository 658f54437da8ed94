"""`leafwise export FORMAT [PATH]`: the plan as JSON (every field, the docs, the releases, the journal
if asked), as Markdown (a readable plan by release and epic) or as CSV (one row a node).

`leafwise import json` reads the JSON back (json_format.py): the round trip. Without PATH the export
is the answer's text (and `result.content` in --json); with it, the file is written atomically.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from leafwise.commands.adoption.csv_format import formula_safe
from leafwise.commands.contract import EXIT_USAGE, CommandError, Result, clean, done, fix
from leafwise.commands.domain.nodes import plain
from leafwise.commands.registry import Ctx
from leafwise.commands.text import finite
from leafwise.store import CLOSED, Node, Plan, Status, journal, reader
from leafwise.store.ids import id_order
from leafwise.store.paths import UnsafePath
from leafwise.store.schema import marked_priority
from leafwise.store.writer import write_text

CSV_COLUMNS = ("id", "title", "status", "priority", "assignee", "parent", "release", "depends_on", "tags",
               "summary", "description", "blocked_reason", "created", "updated", "source_tool", "source_id")
MARKDOWN_SPECIAL = "\\`*_[]<>#|"
SUMMARY_CHARS = 160  # a done task's summary in the Markdown plan: its first line's worth (json has it whole)


FORMATS = ("json", "markdown", "csv")


def run(ctx: Ctx, fmt: str, path: str | None = None, with_journal: bool = False) -> Result:
    if fmt not in FORMATS:
        raise CommandError("unknown_format", f"no export format {clean(fmt, 40)!r}; the formats: {', '.join(FORMATS)}",
                           fix(ctx.cmd("export", "markdown", path), "name one of the formats"),
                           exit_code=EXIT_USAGE, category="usage")
    plan = ctx.plan()
    if with_journal and fmt != "json":
        raise CommandError("journal_json_only", "--journal is for the json export only",
                           fix(ctx.cmd("export", "json", path, journal=True), "export json with the journal"),
                           exit_code=EXIT_USAGE, category="usage")
    content = {"json": lambda: as_json(ctx, plan, with_journal), "markdown": lambda: as_markdown(plan),
               "csv": lambda: as_csv(plan)}[fmt]()
    result: dict[str, Any] = {"format": fmt, "nodes": len(plan.nodes), "releases": len(plan.project.releases),
                              "path": path, "chars": len(content)}
    if path is None:
        result["content"] = content
        return Result(result, done(f"the plan as {fmt}"), content.rstrip("\n").split("\n"))
    target = Path(path) if Path(path).is_absolute() else ctx.cwd / path
    try:
        write_text(target, content)
    except OSError as exc:
        raise CommandError("unwritable_export", f"cannot write {clean(path, 200)}: {exc.strerror or exc}",
                           fix(ctx.cmd("export", fmt, f"plan.{_suffix(fmt)}", journal=with_journal or None),
                               "write it to a folder you can write"),
                           exit_code=EXIT_USAGE, category="usage") from exc
    return Result(result, done(f"{len(plan.nodes)} nodes written to {clean(path, 200)}"),
                  [f"Exported {len(plan.nodes)} nodes and {len(plan.project.releases)} releases as {fmt} "
                   f"to {clean(path, 200)}"])


def _suffix(fmt: str) -> str:
    return {"json": "json", "markdown": "md", "csv": "csv"}[fmt]


def _nodes(plan: Plan) -> list[Node]:
    return sorted(plan.nodes.values(), key=lambda n: id_order(n.id))


def _doc_texts(plan: Plan, node: Node) -> dict[str, str]:
    out = {}
    for rel in node.docs:
        try:
            out[rel] = reader.read_text(plan.paths.inside(rel), reader.DOC)
        except (OSError, UnsafePath, ValueError):
            continue  # a missing doc: validate reports it
    return out


def as_json(ctx: Ctx, plan: Plan, with_journal: bool) -> str:
    project = plan.project
    nodes = []
    for node in _nodes(plan):
        entry = {str(k): plain(v) for k, v in node.data.items()}
        docs = _doc_texts(plan, node)
        if docs:
            entry["_docs"] = docs
        nodes.append(entry)
    data: dict[str, Any] = {
        "format": "leafwise.export", "version": 1,
        "project": {"pid": project.pid, "name": project.name, "id_prefix": project.id_prefix},
        "releases": [{"id": r.id, "title": r.title, "target": str(r.target) if r.target else None}
                     for r in project.releases],
        "nodes": nodes,
    }
    # a planted .nan/.inf is null, as in every --json answer (text.finite): strict JSON readers refuse NaN
    text = json.dumps(finite(data), indent=2, ensure_ascii=False, default=str, allow_nan=False)
    if not with_journal:
        return text + "\n"
    # one compact line an event, decoded and dumped one at a time: a 46 MB journal held as dicts and
    # indented took 830 MB
    events = [json.dumps(finite(e), ensure_ascii=False, default=str, allow_nan=False)
              for e in journal.newest_first(ctx.paths())]
    events.reverse()
    body = ",\n    ".join(events)
    return text[:-2] + (',\n  "journal": [\n    ' + body + "\n  ]\n}\n" if events else ',\n  "journal": []\n}\n')


def _md(value: str) -> str:
    """Plan text as inert Markdown: one line, its markup characters escaped."""
    line = " ".join(str(value).split())
    return "".join("\\" + c if c in MARKDOWN_SPECIAL else c for c in line)


def _md_node(plan: Plan, node: Node, depth: int, out: list[str], seen: set[str]) -> None:
    seen.add(node.id)
    box = "x" if node.status in CLOSED else " "
    title = f"~~{_md(node.title)}~~" if node.status == Status.CANCELLED else _md(node.title)
    bits = [node.status.value] + ([f"@{_md(node.assignee)}"] if node.assignee else []) + \
        ([f"priority {node.data['priority']}"] if marked_priority(node.data.get("priority")) else [])
    if node.depends_on:
        bits.append("after " + ", ".join(node.depends_on))
    line = f"{'  ' * depth}- [{box}] **{node.id}** {title} — {', '.join(bits)}"
    if node.status == Status.BLOCKED and node.blocked_reason:
        line += f" — blocked: {_md(node.blocked_reason)}"
    if node.summary and node.status == Status.DONE:
        words = " ".join(node.summary.split())
        line += f" — {_md(words if len(words) <= SUMMARY_CHARS else words[:SUMMARY_CHARS - 1].rstrip() + '…')}"
    out.append(line)
    key = plan.sort_key()
    for child in sorted((plan.nodes[c] for c in node.children if c in plan.nodes and c not in seen), key=key):
        _md_node(plan, child, depth + 1, out, seen)


def as_markdown(plan: Plan) -> str:
    project = plan.project
    leaves = [n for n in plan.nodes.values() if not n.children and n.status != Status.CANCELLED]
    finished = sum(1 for n in leaves if n.status == Status.DONE)
    out = [f"# {_md(project.name)}", "",
           f"{len(plan.nodes)} nodes; {finished} of {len(leaves)} leaves done", ""]
    roots = sorted(plan.roots(), key=plan.sort_key())
    seen: set[str] = set()
    groups = [(r.id, f"{_md(r.id)} — {_md(r.title)}" + (f" (target {r.target})" if r.target else ""))
              for r in project.releases] + [(None, "No release")]
    for release, heading in groups:
        members = [n for n in roots if n.effective_release == release
                   or (release is None and n.effective_release not in {r.id for r in project.releases})]
        if not members:
            continue
        out += [f"## {heading}", ""]
        for node in members:
            _md_node(plan, node, 0, out, seen)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def as_csv(plan: Plan) -> str:
    """One row a node; a cell a spreadsheet would run as a formula starts with a quote (`import csv`
    takes it off again)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for node in _nodes(plan):
        data = node.data
        src = data.get("source") if isinstance(data.get("source"), dict) else {}
        values = {**{k: plain(data.get(k)) for k in CSV_COLUMNS}, "source_tool": src.get("tool"),
                  "source_id": src.get("id")}
        for k in ("depends_on", "tags"):
            values[k] = ", ".join(str(v) for v in data.get(k) or [])
        writer.writerow(["" if values[k] is None else formula_safe(str(values[k])) for k in CSV_COLUMNS])
    return buf.getvalue()
