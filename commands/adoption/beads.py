"""beads (`bd`): `.beads/issues.jsonl`, one issue a line (the schema of beads' `internal/types`).

Types epic/feature/task/bug/chore are kept as a tag (epic is the parent its children name); a
`parent-child` dependency (or a dotted id, `bd-1.2` under `bd-1`) is the hierarchy, `blocks` is
`depends_on`, `related` and `discovered-from` go to the doc. Priorities 0–1 are high, 2 normal,
3–4 low. A `tombstone` (a deleted issue) is skipped, with who deleted it and why, and so is an
`ephemeral` wisp (a workflow step beads reaps on its own).
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.adoption import reading
from leafwise.commands.adoption.mapping import Item, Options, Parsed, Skip, mapped_status, text

TOOL = "beads"
FILES = (".beads/issues.jsonl", "issues.jsonl", ".beads/beads.jsonl", "beads.jsonl")
STATUSES = {"open": "draft", "in_progress": "in-progress", "blocked": "blocked", "closed": "done",
            "deferred": "draft", "pinned": "draft", "hooked": "in-progress"}
STATUS_TAGS = {"deferred": "deferred", "pinned": "pinned"}
PRIORITIES = {0: "high", 1: "high", 2: "normal", 3: "low", 4: "low"}
TYPES = ("epic", "feature", "task", "bug", "chore")
KEYS = ("id", "title", "description", "design", "acceptance_criteria", "notes", "status", "priority", "issue_type",
        "assignee", "created_at", "labels", "dependencies", "close_reason", "parent")
SECTIONS = (("", "description"), ("Design", "design"), ("Acceptance criteria", "acceptance_criteria"),
            ("Notes", "notes"))


def parse(options: Options) -> Parsed:
    path = reading.locate(options.path, options.shown, FILES, "beads issues.jsonl")
    shown = options.shown if path == options.path else f"{options.shown}/{path.relative_to(options.path)}"
    parsed = Parsed(TOOL, shown)
    for number, line in enumerate(reading.load_text(path, shown, root=options.path).split("\n"), 1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            issue = reading.parse_json(line, shown, where, reading.RECORD)
        except reading.InputError as exc:
            options.bad(parsed, None, where, exc.message, "fix the JSON on that line", shown)
            continue
        if not isinstance(issue, dict) or not text(issue.get("id")):
            options.bad(parsed, None, where, "an issue must be an object with an id", "give it an id", shown)
            continue
        options.guarded(parsed, str(issue["id"]), where, lambda: _issue(parsed, options, issue, f"{where} ({issue['id']})"))
    ids = {i.key for i in parsed.items}
    for item in parsed.items:  # a dotted id names its parent when no parent-child dependency does
        head = item.key.rpartition(".")[0]
        if item.parent is None and head in ids:
            item.parent = head
    return parsed


def _status(parsed: Parsed, options: Options, item: Item, word: str) -> bool:
    if word == "tombstone" and not options.mapped("status", word):
        return False
    if not mapped_status(parsed, options, item, word, STATUSES, "beads"):
        return False
    if word in STATUS_TAGS:
        item.tags.append(STATUS_TAGS[word])
    return True


def _issue(parsed: Parsed, options: Options, issue: dict[str, Any], where: str) -> None:
    item = Item(str(issue["id"]), str(issue.get("title") or ""), where)
    word = str(issue.get("status") or "open")
    if word == "tombstone" and not options.mapped("status", word):
        who = f" by {issue['deleted_by']}" if issue.get("deleted_by") else ""
        why = f": {issue['delete_reason']}" if issue.get("delete_reason") else ""
        parsed.skipped.append(Skip(item.key, where, f"a tombstone (deleted{who}{why})"))
        return
    if issue.get("ephemeral") is True:  # a wisp: a workflow step beads itself reaps, not planned work
        parsed.skipped.append(Skip(item.key, where, "an ephemeral wisp (beads reaps these; not planned work)"))
        return
    if not _status(parsed, options, item, word):
        return
    priority = issue.get("priority", 2)
    mapped = options.mapped("priority", str(priority))
    if mapped is None and priority not in PRIORITIES:
        options.bad(parsed, item.key, where, f"priority {priority!r} is not 0 to 4",
                    f"map it: --map priority.{priority}=normal", parsed.file)
        return
    item.priority = mapped or PRIORITIES[priority]
    kind = str(issue.get("issue_type") or "task")
    item.tags = [kind] + [str(t) for t in issue.get("labels") or []] + item.tags
    item.assignee = text(issue.get("assignee"))
    item.created = text(issue.get("created_at"))
    if item.status == "done":
        item.summary = text(issue.get("close_reason"))
    elif issue.get("close_reason"):
        item.extra["close_reason"] = issue["close_reason"]
    item.sections = [(heading, text(issue.get(key)) or "") for heading, key in SECTIONS]
    item.extra.update({k: v for k, v in issue.items() if k not in KEYS})
    if not _dependencies(parsed, options, item, issue.get("dependencies") or []):
        return
    if item.parent is None and text(issue.get("parent")):  # newer exports name the parent too
        item.parent = str(issue["parent"])
    parsed.items.append(item)


def _dependencies(parsed: Parsed, options: Options, item: Item, deps: Any) -> bool:
    others: list[Any] = []
    for dep in deps if isinstance(deps, list) else []:
        if not isinstance(dep, dict) or not text(dep.get("depends_on_id")):
            options.bad(parsed, item.key, item.where, "a dependency needs a depends_on_id",
                        "write dependencies as {issue_id, depends_on_id, type}", parsed.file)
            return False
        target, kind = str(dep["depends_on_id"]), str(dep.get("type") or "blocks")
        if kind == "parent-child":
            item.parent = target
        elif kind == "blocks":
            item.depends_on.append(target)
        else:
            others.append(dep)
    if others:
        item.extra["dependencies"] = others  # related, discovered-from: context, not order
    return True
