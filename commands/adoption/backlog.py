"""Backlog.md (`backlog.md`): a `backlog/` folder of Markdown tasks with YAML front matter.

`tasks/` are the board, `drafts/` tasks not yet accepted (draft, tagged `draft`), `completed/`
tasks cleaned off the board (done), `archive/tasks/` tasks taken off it (cancelled, tagged
`archived`). `milestones/` are releases. The body (Description, Acceptance Criteria, Notes …) is the
node's doc as written; its Description is also the node's description and its Final Summary the
summary. The config's statuses are mapped by name (`STATUS_WORDS`); `--map status.NAME=STATUS`
overrides any of them, and a status no rule knows is an error that says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leafwise.commands.adoption import reading
from leafwise.commands.adoption.mapping import Item, Options, Parsed, ReleaseSpec, Skip, guess_status, release_id, text

TOOL = "backlog"
FOLDERS = (("tasks", None, None), ("drafts", "draft", "draft"), ("completed", "done", None),
           ("archive/tasks", "cancelled", "archived"), ("archive/drafts", "cancelled", "archived"))
PRIORITIES = {"high": "high", "medium": "normal", "low": "low"}
KEYS = ("id", "title", "status", "assignee", "labels", "milestone", "dependencies", "parent_task_id", "parent",
        "priority", "created_date")


def _root(options: Options) -> Path:
    for folder in (options.path, options.path / "backlog", options.path / ".backlog"):
        if (folder / "config.yml").is_file() or (folder / "tasks").is_dir():
            if folder.is_symlink():  # everything read lies inside the folder the person named
                raise reading.link_error(options.path, options.shown, folder)
            return folder
    raise reading.InputError(options.shown, None, "no Backlog.md folder here (no config.yml or tasks/)",
                             "give the path of the backlog/ folder")


def status_table(config: dict[str, Any], options: Options) -> dict[str, str | None]:
    """Each status of the config → a Leafwise status (None: no rule knows it)."""
    names = [str(s) for s in config.get("statuses") or ["To Do", "In Progress", "Done"]]
    table: dict[str, str | None] = {}
    for name in names:
        own = options.mapped("status", name)
        table[name] = own or guess_status(name)
    return table


def parse(options: Options) -> Parsed:
    root = _root(options)

    def shown(p: Path) -> str:
        return f"{options.shown.rstrip('/')}/{p.relative_to(options.path)}" if p != options.path else options.shown

    config: dict[str, Any] = {}
    if (root / "config.yml").is_file():
        loaded = reading.parse_yaml(reading.load_text(root / "config.yml", shown(root / "config.yml"),
                                                      root=options.path),
                                    shown(root / "config.yml"), "config.yml")
        config = loaded if isinstance(loaded, dict) else {}
    parsed = Parsed(TOOL, shown(root))
    table = status_table(config, options)
    links: list[Path] = []  # links met on the way, each skipped and named
    parsed.notes.append("statuses: " + ", ".join(f"{k} → {v or '?'}" for k, v in table.items())
                        + " (change one with --map status.NAME=STATUS)")
    milestones = _milestones(options.path, root, shown, parsed, links)
    prefix = str(config.get("task_prefix") or "task")
    archived: list[Item] = []
    for folder, forced, tag in FOLDERS:
        before = len(parsed.items)
        for path in reading.markdown_files(options.path, root / folder, links):
            options.guarded(parsed, None, shown(path),
                            lambda: _task(parsed, options, path, shown(path), table, milestones, forced, tag, prefix))
        if folder.startswith("archive"):
            archived += parsed.items[before:]
    gone = {id(a) for a in archived}
    live = {i.key for i in parsed.items if id(i) not in gone}
    parsed.skipped += [Skip(None, shown(p), "a symbolic link: never followed (put the real file there)") for p in links]
    for item in archived:  # an archived task whose id a live one took again keeps a key of its own
        if item.key in live:
            parsed.notes.append(f"{item.key}: an archived task with the id of a live one: {item.key}~archived")
            item.key += "~archived"
    return parsed


def split_front_matter(raw: str) -> tuple[str | None, str]:
    """(front matter, body) of a Markdown file; None when it has none."""
    if not raw.startswith("---\n"):
        return None, raw
    end = raw.find("\n---", 3)
    if end < 0:
        return None, raw
    after = raw.find("\n", end + 4)
    return raw[4:end + 1], raw[after + 1:] if after >= 0 else ""


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def people_quoted(head: str) -> str:
    """Front matter with `assignee: @name` made YAML (an `@` cannot start a plain value): Backlog.md
    writes and reads it so, quoting such values before it parses them; we do the same."""
    lines = head.split("\n")
    for index, line in enumerate(lines):
        key, colon, raw = line.partition(":")
        if not colon or key.strip() not in ("assignee", "reporter"):
            continue
        value = raw.strip()
        if value.startswith("@"):
            lines[index] = f"{key}: {_quoted(value)}"
        elif value.startswith("[") and value.endswith("]") and "@" in value:
            items = [v.strip() for v in value[1:-1].split(",") if v.strip()]
            lines[index] = f"{key}: [" + ", ".join(_quoted(v) if v.startswith("@") else v for v in items) + "]"
    return "\n".join(lines)


def _milestones(named: Path, root: Path, shown: Any, parsed: Parsed, links: list[Path]) -> dict[str, str]:
    """Milestone id and title → release id; each milestone a release."""
    out: dict[str, str] = {}
    for path in reading.markdown_files(named, root / "milestones", links) + \
            reading.markdown_files(named, root / "archive/milestones", links):
        head, _ = split_front_matter(reading.load_text(path, shown(path), reading.RECORD, root=named))
        meta = reading.parse_yaml(head or "", shown(path), "front matter") if head else None
        if not isinstance(meta, dict) or not text(meta.get("title") or meta.get("id")):
            continue
        title = str(meta.get("title") or meta.get("id"))
        rid = release_id(title)
        parsed.releases.append(ReleaseSpec(rid, title))
        out[title.casefold()] = rid
        if meta.get("id") is not None:
            out[str(meta["id"]).casefold()] = rid
    return out


def _section(body: str, heading: str) -> str | None:
    """The text of a `## heading` section, its Backlog.md markers left out."""
    start = body.find(f"## {heading}\n")
    if start < 0:
        return None
    rest = body[start + len(heading) + 4:]
    end = rest.find("\n## ")
    lines = [ln for ln in (rest if end < 0 else rest[:end]).split("\n") if not ln.startswith("<!-- ")]
    return text("\n".join(lines).strip())


def canonical(value: Any, prefix: str) -> str:
    """A task id as Backlog.md matches it: `task-4`, `BACK-4` and `back-04` are one task when the
    config's prefix is back (a project that changed its prefix keeps its old references)."""
    word = str(value).strip()
    head, dash, number = word.partition("-") if not word[:1].isdigit() else ("", "-", word)
    parts = number.split(".")
    if not dash or not all(p.isdigit() for p in parts):
        return word.upper()
    numbered = ".".join(str(int(p)) for p in parts)
    return f"{head.upper()}-{numbered}" if head.casefold() == "draft" else f"{prefix.upper()}-{numbered}"


def _status(parsed: Parsed, options: Options, item: Item, word: str, table: dict[str, str | None],
            forced: str | None, shown: str) -> bool:
    """The item's status: its folder's (drafts, completed, archive), else its own by the table."""
    status = forced or table.get(word) or options.mapped("status", word) or ("draft" if not word else None)
    if status == "skip":
        parsed.skipped.append(Skip(item.key, item.where, f"status {word} is mapped to skip"))
        return False
    if status is None:
        options.bad(parsed, item.key, item.where, f"status {word!r} is not in config.yml's statuses and no rule "
                    "maps it", f"map it: --map status.{word}=draft", shown)
        return False
    item.status = status
    if forced and word and word != "Draft":
        item.extra["status_in_backlog"] = word
    return True


def _milestone(parsed: Parsed, item: Item, name: str, milestones: dict[str, str]) -> None:
    item.release = milestones.get(name.casefold())
    if item.release is None:  # named by a task only: still a milestone, so a release
        item.release = milestones[name.casefold()] = release_id(name)
        if item.release not in {r.id for r in parsed.releases}:
            parsed.releases.append(ReleaseSpec(item.release, name))
        parsed.notes.append(f"milestone {name} has no file in milestones/: a release of that name")


def _people(item: Item, value: Any) -> None:
    names = value if isinstance(value, list) else [value] if value else []
    people = [str(a).lstrip("@") for a in names if str(a).strip()]
    item.assignee = people[0] if people else None
    if len(people) > 1:
        item.extra["assignees"] = people


def _task(parsed: Parsed, options: Options, path: Path, shown: str, table: dict[str, str | None],
          milestones: dict[str, str], forced: str | None, tag: str | None, prefix: str) -> None:
    try:
        head, body = split_front_matter(reading.load_text(path, shown, reading.RECORD, root=options.path))
        if head is None:  # a readme or notes beside the tasks: Backlog.md does not read it as a task either
            parsed.skipped.append(Skip(None, path.name, "not a task file (no front matter)"))
            return
        meta = reading.parse_yaml(people_quoted(head), shown, "front matter")
    except reading.InputError as exc:  # one file's problem: --partial imports the others
        options.bad(parsed, None, exc.item or path.name, exc.message, exc.fix, shown)
        return
    if not isinstance(meta, dict) or meta.get("id") is None:
        options.bad(parsed, None, path.name, "the front matter has no id", "add id: to the front matter", shown)
        return
    key = canonical(meta["id"], prefix)
    item = Item(key, str(meta.get("title") or ""), f"{path.name} ({key})")
    if not _status(parsed, options, item, str(meta.get("status") or ""), table, forced, shown):
        return
    _people(item, meta.get("assignee"))
    item.tags = [str(t) for t in meta.get("labels") or []] + ([tag] if tag else [])
    if meta.get("milestone"):
        _milestone(parsed, item, str(meta["milestone"]), milestones)
    item.depends_on = [canonical(d, prefix) for d in meta.get("dependencies") or []]
    parent = meta.get("parent_task_id") or meta.get("parent")
    item.parent = canonical(parent, prefix) if parent else None
    if meta.get("priority") is not None:
        word = str(meta["priority"])
        item.priority = options.mapped("priority", word) or PRIORITIES.get(word.casefold())
        if item.priority is None:
            options.bad(parsed, key, item.where, f"priority {word!r} is not high, medium or low",
                        f"map it: --map priority.{word}=normal", shown)
            return
    if meta.get("created_date"):
        item.created = _timestamp(str(meta["created_date"]))
    item.description = _section(body, "Description")
    item.summary = _section(body, "Final Summary")
    item.sections = [("", body)]
    item.extra.update({k: v for k, v in meta.items() if k not in KEYS})
    if item.created is None and meta.get("created_date"):
        item.extra["created_date"] = meta["created_date"]
    parsed.items.append(item)


def _timestamp(value: str) -> str | None:
    """'2026-12-02 06:12' (Backlog.md's date_format) → 2026-12-02T06:12:00Z; None if it is not one."""
    day, _, clock = value.strip().partition(" ")
    if len(day) != 10 or not (day[:4] + day[5:7] + day[8:]).isdigit():
        return None
    hh, _, mm = (clock or "00:00").partition(":")
    if not (hh.isdigit() and mm[:2].isdigit()):
        return None
    return f"{day}T{int(hh):02d}:{int(mm[:2]):02d}:00Z"
