"""Task Master (`task-master-ai`): `.taskmaster/tasks/tasks.json`, tagged or legacy.

Tagged: `{"<tag>": {"tasks": [...], "metadata": {...}}}`; legacy: `{"tasks": [...]}` (the tag
"master"). Each tag is a release (id from its name), or with `--release R` an epic in R (no epic
when there is one tag). Tasks are nodes, their subtasks the nodes under them. Task ids restart in
every tag, so an item's key is `<tag>/<id>` (`master/2.1` for a subtask).
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.adoption import reading
from leafwise.commands.adoption.mapping import (
    Item,
    Options,
    Parsed,
    ReleaseSpec,
    mapped_status,
    release_id,
    text,
)

TOOL = "taskmaster"
FILES = (".taskmaster/tasks/tasks.json", "tasks/tasks.json", "tasks.json")
STATUSES = {"pending": "draft", "in-progress": "in-progress", "done": "done", "review": "in-progress",
            "deferred": "draft", "cancelled": "cancelled", "blocked": "blocked"}
STATUS_TAGS = {"review": "review", "deferred": "deferred"}  # what the status word keeps as a tag
PRIORITIES = {"high": "high", "critical": "high", "medium": "normal", "low": "low"}
TASK_KEYS = ("id", "title", "description", "details", "testStrategy", "status", "dependencies", "priority",
             "subtasks", "parentTaskId")


def parse(options: Options) -> Parsed:
    path = reading.locate(options.path, options.shown, FILES, "Task Master tasks.json")
    shown = options.shown if path == options.path else f"{options.shown}/{path.relative_to(options.path)}"
    data = reading.parse_json(reading.load_text(path, shown, root=options.path), shown)
    parsed = Parsed(TOOL, shown)
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        data = {"master": data}  # the legacy, untagged layout
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise reading.InputError(shown, None, "not a Task Master tasks file (an object of tags, each with tasks)",
                                 "give the path of .taskmaster/tasks/tasks.json")
    tags = [t for t, v in data.items() if isinstance(v.get("tasks"), list)]
    as_epics = options.release is not None and len(tags) > 1
    for tag in tags:
        release = None if options.release else release_id(tag)
        meta = data[tag].get("metadata")
        about = text(meta.get("description")) if isinstance(meta, dict) else None
        if release:  # a tag's own description names it better, but the one Task Master writes itself
            own = about if about and about != f"Tasks for {tag} context" else None
            parsed.releases.append(ReleaseSpec(release, own or tag))
        epic = None
        if as_epics:
            epic = f"tag:{tag}"
            parsed.items.append(Item(epic, tag, f"tag {tag}", description=about))
        for index, task in enumerate(data[tag]["tasks"]):
            options.guarded(parsed, None, f"tag {tag}, task #{index + 1}",
                            lambda: _task(parsed, options, tag, index, task, epic, release))
    parsed.notes.append("tags → " + ("epics in release " + str(options.release) if as_epics else
                                     "release " + str(options.release) if options.release else "releases"))
    return parsed


def _status(parsed: Parsed, options: Options, item: Item, value: Any) -> bool:
    word = str(value or "pending")
    if not mapped_status(parsed, options, item, word, STATUSES, "Task Master"):
        return False
    if word in STATUS_TAGS and not options.mapped("status", word):
        item.tags.append(STATUS_TAGS[word])
    return True


def _common(parsed: Parsed, options: Options, item: Item, raw: dict[str, Any]) -> bool:
    if not _status(parsed, options, item, raw.get("status")):
        return False
    if raw.get("priority") is not None:
        word = str(raw["priority"])
        item.priority = options.mapped("priority", word) or PRIORITIES.get(word)
        if item.priority is None:
            options.bad(parsed, item.key, item.where, f"priority {word!r} is not high, medium or low",
                        f"map it: --map priority.{word}=normal", parsed.file)
            return False
    item.description = text(raw.get("description"))
    item.sections = [("Details", text(raw.get("details")) or ""),
                     ("Test strategy", text(raw.get("testStrategy")) or "")]
    item.extra = {k: v for k, v in raw.items() if k not in TASK_KEYS}
    return True


def _task(parsed: Parsed, options: Options, tag: str, index: int, task: Any, epic: str | None,
          release: str | None) -> None:
    where = f"tag {tag}, task #{index + 1}"
    if not isinstance(task, dict) or task.get("id") is None:
        options.bad(parsed, None, where, "a task must be an object with an id", "give every task an id", parsed.file)
        return
    key = f"{tag}/{task['id']}"
    where = f"tag {tag}, task {task['id']}"
    item = Item(key, str(task.get("title") or ""), where, parent=epic, release=release)
    if not _common(parsed, options, item, task):
        return
    item.depends_on = [_dep(tag, d, None) for d in task.get("dependencies") or []]
    parsed.items.append(item)
    subtasks = task.get("subtasks") or []
    siblings = {str(s.get("id")) for s in subtasks if isinstance(s, dict)}
    for sub in subtasks:
        if not isinstance(sub, dict) or sub.get("id") is None:
            options.bad(parsed, None, f"{where}, a subtask", "a subtask must be an object with an id",
                        "give every subtask an id", parsed.file)
            continue
        child = Item(f"{key}.{sub['id']}", str(sub.get("title") or ""), f"{where}, subtask {sub['id']}",
                     parent=key)
        if _common(parsed, options, child, sub):
            child.depends_on = [_dep(tag, d, (str(task["id"]), siblings)) for d in sub.get("dependencies") or []]
            parsed.items.append(child)


def _dep(tag: str, dep: Any, sub_of: tuple[str, set[str]] | None) -> str:
    """A dependency's key: "2.1" is a subtask; a subtask's bare number is its sibling's."""
    word = str(dep)
    if sub_of is not None and "." not in word and word in sub_of[1]:
        return f"{tag}/{sub_of[0]}.{word}"
    return f"{tag}/{word}"
