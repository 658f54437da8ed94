"""An import's items into the plan: matched with earlier imports, checked whole, then written.

Every imported node keeps `source: {tool, id}`. Importing again finds it by that and updates the
fields the source maps (a field the source leaves empty keeps the plan's value), so a second import
of the same file changes nothing. The whole import is checked before the first write (`prepare`):
a problem is an `InputError` (or, with --partial, a skipped item), never a half-written plan.
`committing.py` then writes it all or nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from leafwise.commands.adoption.mapping import InputError, Item, Options, Parsed, ReleaseSpec, Skip, render_doc
from leafwise.commands.domain.nodes import plain
from leafwise.store import CLOSED, Node, Plan, Status, reader
from leafwise.store.paths import UnsafePath


@dataclass
class Step:
    """One item's fate: its node (None: new), the fields it should have, its doc."""

    item: Item
    node: Node | None
    fields: dict[str, Any]
    doc: str | None
    changed: list[str] = field(default_factory=list)  # for an existing node: the fields that differ
    doc_changed: bool = False
    new_id: str | None = None

    @property
    def action(self) -> str:
        if self.node is None:
            return "add"
        return "update" if self.changed or self.doc_changed else "unchanged"


@dataclass
class Prepared:
    steps: list[Step]
    releases: list[ReleaseSpec]  # the ones the plan does not have yet
    skipped: list[Skip]
    notes: list[str]
    duplicates: list[dict[str, str]]
    known: dict[str, str]  # source keys the plan already has: {key: Leafwise id}


def source_index(plan: Plan) -> dict[tuple[str, str], Node]:
    """The nodes of earlier imports by (tool, id)."""
    out: dict[tuple[str, str], Node] = {}
    for node in plan.nodes.values():
        src = node.data.get("source")
        if isinstance(src, dict) and src.get("tool") is not None and src.get("id") is not None:
            out[(str(src["tool"]), str(src["id"]))] = node
    return out


def _identity(parsed: Parsed, item: Item) -> tuple[str, str]:
    if item.source and item.source.get("tool") is not None and item.source.get("id") is not None:
        return str(item.source["tool"]), str(item.source["id"])
    return parsed.tool, item.key


def _unique(parsed: Parsed, options: Options) -> list[Item]:
    seen: set[str] = set()
    kept = []
    for item in parsed.items:
        if not item.title or not item.title.strip():
            options.bad(parsed, item.key, item.where, "the item has no title", "give it a title in the source file",
                        parsed.file)
            continue
        if item.key in seen:
            options.bad(parsed, item.key, item.where, f"the id {item.key!r} is used twice",
                        "give each item its own id in the source file", parsed.file)
            continue
        seen.add(item.key)
        kept.append(item)
    return kept


def _parent_first(items: list[Item], parsed: Parsed, options: Options, notes: list[str]) -> list[Item]:
    """The items with every parent before its children; a parent cycle is malformed input."""
    by_key = {i.key: i for i in items}
    out: list[Item] = []
    state: dict[str, int] = {}  # 1: on the path, 2: placed
    for start in items:
        path: list[Item] = []
        cursor: Item | None = start
        while cursor is not None and state.get(cursor.key) is None:
            state[cursor.key] = 1
            path.append(cursor)
            cursor = by_key.get(cursor.parent) if cursor.parent else None
        if cursor is not None and state.get(cursor.key) == 1:
            loop = " → ".join(i.key for i in path[[i.key for i in path].index(cursor.key):] + [cursor])
            if options.partial:  # the item is kept, at the top: a note, never a skip (it is imported)
                notes.append(f"{cursor.key}: parent cycle {loop}: imported at the top")
            else:
                options.bad(parsed, cursor.key, cursor.where, f"parent cycle: {loop}",
                            "make one of them a top-level item in the source file")
            cursor.parent = None
        for item in reversed(path):
            state[item.key] = 2
            out.append(item)
    return out


def _desired(parsed: Parsed, item: Item, options: Options) -> dict[str, Any]:
    values: dict[str, Any] = {"title": " ".join(item.title.split()), "status": item.status}
    release = options.release or item.release
    for name, value in (("release", release), ("assignee", item.assignee), ("summary", item.summary),
                        ("description", item.description), ("priority", item.priority),
                        ("created", item.created)):
        if value is not None:
            values[name] = value
    if item.status == Status.BLOCKED:
        values["blocked_reason"] = item.blocked_reason or f"blocked in {parsed.tool}"
    if item.tags:
        values["tags"] = list(dict.fromkeys(item.tags))
    values.update(item.keep)
    tool, ident = _identity(parsed, item)
    values["source"] = dict(item.source) if item.source else {"tool": tool, "id": ident}
    return values


def _adjust(items: list[Item], parsed: Parsed, notes: list[str]) -> None:
    """Statuses the plan cannot hold, or would not reach itself: a done parent with open children is in
    progress, and so is a draft parent one of whose children is (as `start` marks it)."""
    open_children = {i.parent for i in items if i.parent and i.status not in CLOSED}
    busy_children = {i.parent for i in items if i.parent and i.status == Status.IN_PROGRESS}
    for item in items:
        if item.status == Status.DONE and item.key in open_children:
            item.status = Status.IN_PROGRESS
            item.extra.setdefault("status_in_source", "done")
            notes.append(f"{item.key}: done in {parsed.tool} but has open children: imported as in-progress")
        elif item.status == Status.DRAFT and item.key in busy_children:
            item.status = Status.IN_PROGRESS
            notes.append(f"{item.key}: a child is in progress: imported as in-progress")


def _references(items: list[Item], known: dict[str, Node], parsed: Parsed, notes: list[str]) -> None:
    """Drop references the import cannot resolve, keeping them in the doc (never lost)."""
    keys = {i.key for i in items}
    parents = {i.key: i.parent for i in items}
    for item in items:
        if item.parent and item.parent not in keys and item.parent not in known:
            item.extra["parent_in_source"] = item.parent
            notes.append(f"{item.key}: parent {item.parent} is not in the import: imported at the top")
            item.parent = None
        kept = []
        for dep in dict.fromkeys(item.depends_on):
            above, cursor = set(), parents.get(item.key)
            while cursor and cursor not in above:
                above.add(cursor)
                cursor = parents.get(cursor)
            if dep not in keys and dep not in known:
                item.extra.setdefault("dependencies_not_imported", []).append(dep)
                notes.append(f"{item.key}: dependency {dep} is not in the import: dropped (kept in its doc)")
            elif dep in above or dep == item.key:
                item.extra.setdefault("dependencies_on_its_parents", []).append(dep)
                notes.append(f"{item.key}: depends on {dep}, which contains it: dropped (the hierarchy orders them)")
            else:
                kept.append(dep)
        item.depends_on = kept


def _break_cycles(items: list[Item], parsed: Parsed, options: Options, notes: list[str]) -> None:
    """A dependency cycle is malformed input (neither task could ever start); with --partial the
    dependency that closes it is dropped, and kept in the item's doc."""
    by_key = {i.key: i for i in items}
    state: dict[str, int] = {}  # 1: on the path, 2: done
    for start in items:
        if state.get(start.key):
            continue
        stack: list[tuple[Item, int]] = [(start, 0)]
        state[start.key] = 1
        while stack:
            item, at = stack[-1]
            if at == len(item.depends_on):
                state[item.key] = 2
                stack.pop()
                continue
            stack[-1] = (item, at + 1)
            dep = by_key.get(item.depends_on[at])
            if dep is None or state.get(dep.key) == 2:
                continue
            if state.get(dep.key) == 1:
                path = [i.key for i, _ in stack]
                loop = " → ".join(path[path.index(dep.key):] + [dep.key])
                if not options.partial:
                    error = InputError(parsed.file, item.where, f"dependency cycle: {loop}",
                                       "remove one of these dependencies in the source file "
                                       "(or import with --partial, which drops the last one)")
                    error.skippable = True
                    raise error
                item.depends_on = [d for d in item.depends_on if d != dep.key]
                stack[-1] = (item, at)
                item.extra.setdefault("dependencies_in_a_cycle", []).append(dep.key)
                notes.append(f"{item.key}: dependency cycle {loop}: its dependency on {dep.key} dropped")
                continue
            state[dep.key] = 1
            stack.append((dep, 0))


def _read_doc(plan: Plan, rel: str) -> str | None:
    try:
        return reader.read_text(plan.paths.inside(rel), reader.DOC)
    except (OSError, UnsafePath, ValueError):
        return None


def _fitted(parsed: Parsed, item: Item, options: Options, notes: list[str]) -> dict[str, Any] | None:
    """The item's node fields within a node file's limits: a description or summary too long for a
    field goes to the doc; anything else too large is a malformed item."""
    from leafwise.store.node_files import check_node
    from leafwise.store.safe_yaml import MAX_NODE_BYTES, SchemaError, TooLarge, check_size
    from leafwise.store.schema import MAX_TEXT_CHARS, PRIORITIES

    for name, heading in (("description", "Description"), ("summary", "Summary")):
        value = getattr(item, name)
        if value and len(value) > MAX_TEXT_CHARS:
            item.sections.append((heading, value))
            setattr(item, name, None)
            notes.append(f"{item.key}: its {name} is over {MAX_TEXT_CHARS:,} characters: in its doc instead")
    fields = _desired(parsed, item, options)
    try:  # the loader's own check, before anything is written: a file it would refuse is never made
        check_node({"id": "IMPORT-1", **fields, "created": None}, "IMPORT-1")
        check_size(fields)
        if len(json.dumps(fields, default=str)) > MAX_NODE_BYTES // 2:
            raise TooLarge("its fields together are too large for a node file", None, "shorten them")
    except SchemaError as exc:
        options.bad(parsed, item.key, item.where, str(exc), exc.fix or "correct it in the source file", parsed.file)
        return None
    if fields.get("priority") not in (None, *PRIORITIES):  # lax in the loader, but an import writes it
        options.bad(parsed, item.key, item.where, f"priority {fields['priority']!r} is not high, normal or low",
                    f"map it: --map priority.{fields['priority']}=normal", parsed.file)
        return None
    return fields


def fingerprint(step: Step) -> str:
    """A digest of everything the source says of the item (its references as the source's keys)."""
    import hashlib

    said = {k: v for k, v in step.fields.items() if k != "source"}
    said.update(parent=step.item.parent, depends_on=step.item.depends_on, doc=step.doc)
    text = json.dumps(said, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _compare(plan: Plan, step: Step, resolve: dict[str, str]) -> None:
    """What differs between an existing node and what the import says it is. An item whose source
    is as it was at the last import (the same `source.hash`) changes nothing: what the plan did since
    (a task completed, a title edited) stands."""
    node = step.node
    assert node is not None
    data = node.data
    last = data.get("source") if isinstance(data.get("source"), dict) else {}
    if "hash" in step.fields["source"] and last.get("hash") == step.fields["source"]["hash"]:
        return
    want = dict(step.fields)
    want["parent"] = resolve.get(step.item.parent) if step.item.parent else data.get("parent")
    want["depends_on"] = [resolve[d] for d in step.item.depends_on if d in resolve]
    if (step.item.parent and step.item.parent not in resolve) or len(want["depends_on"]) < len(step.item.depends_on):
        step.changed += ["parent", "depends_on"]  # a reference to a node this import creates
    for name, value in want.items():
        if name == "created" or value is None:
            continue
        have = plain(data.get(name))
        if name in ("depends_on", "tags") and not value and not have:
            continue
        if have != value:
            step.changed.append(name)
    if data.get("blocked_reason") and step.fields["status"] != Status.BLOCKED:
        step.changed.append("blocked_reason")
    if step.doc is not None:
        rel = node.docs[0] if node.docs else f"docs/{node.id}.md"
        step.doc_changed = _read_doc(plan, rel) != step.doc


def _check_release(release: ReleaseSpec, options: Options) -> None:
    """A source's release goes into project.yaml as it is: its id and target are checked here, for every
    format, before anything is written (a planted `--all` would stop every command on the plan)."""
    from datetime import date

    from leafwise.store.ids import is_release_id

    shown = repr(release.id[:40])
    if not is_release_id(release.id):
        raise InputError(options.shown, f"release {shown}", "is not a release id: letters, digits and . _ -, "
                         "starting with a letter or digit", "rename the release in the source")
    try:
        date.fromisoformat(release.target) if release.target else None
    except ValueError:
        raise InputError(options.shown, f"release {shown}", f"its target {release.target[:40]!r} is not a date "
                         "(YYYY-MM-DD)", "fix or remove the target in the source") from None


def prepare(plan: Plan, parsed: Parsed, options: Options) -> Prepared:
    """Everything the import will do, checked whole; nothing is written."""
    from leafwise.commands.core import duplicates

    notes = list(parsed.notes)
    items = _parent_first(_unique(parsed, options), parsed, options, notes)
    index = source_index(plan)
    matched = {item.key: index.get(_identity(parsed, item)) for item in items}
    # an earlier import's nodes of the same tool answer references too (a --partial import's rest)
    known = {key: node for (tool, key), node in index.items() if tool == parsed.tool}
    known.update({k: n for k, n in matched.items() if n is not None})
    _references(items, known, parsed, notes)
    _break_cycles(items, parsed, options, notes)
    _adjust(items, parsed, notes)
    resolve = {k: n.id for k, n in known.items()}
    steps = []
    for item in items:
        fields = _fitted(parsed, item, options, notes)
        if fields is None:
            continue
        step = Step(item, matched[item.key], fields, render_doc(item, parsed.tool))
        if parsed.fingerprints:
            step.fields["source"]["hash"] = fingerprint(step)
        if step.node is not None:
            _compare(plan, step, resolve)
        steps.append(step)
    have = {r.id for r in plan.project.releases}
    used = {s.fields.get("release") for s in steps}
    releases = [r for r in parsed.releases if r.id not in have and r.id in used]
    for release in releases:
        _check_release(release, options)
    missing = sorted({r for r in used if r and r not in have and r not in {x.id for x in releases}})
    if missing:
        raise InputError(options.shown, None, f"release {missing[0]} is not in the plan",
                         "add the release first, or import into one with --release",
                         lambda cmd: cmd("release add", missing[0], title=missing[0]))
    mine = {n.id for n in matched.values() if n is not None}
    open_titles = [(n.id, n.title) for n in plan.nodes.values() if n.status not in CLOSED and n.id not in mine]
    dups = []
    for step in steps:
        if step.node is None and (m := duplicates.find(step.fields["title"], open_titles)) is not None:
            dups.append({"key": step.item.key, "title": step.fields["title"], "like": m.id, "why": m.why})
    return Prepared(steps, releases, parsed.skipped, notes, dups, resolve)
