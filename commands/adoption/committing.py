"""A prepared import into the plan's files, all or none (`transaction.py` does the writing).

Every file's new bytes are made first: the new releases into project.yaml (round trip, the person's
layout kept), a new node file for each new item under an id reserved for it (so references to a
node made later in the same import are written at once), each updated node file edited under the
store's rules (`writer.rewrite`), each doc. Only then does the transaction put them in place.
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.adoption.mapping import ReleaseSpec
from leafwise.commands.adoption.transaction import Transaction
from leafwise.commands.adoption.writing import Prepared, Step
from leafwise.commands.domain.nodes import plain, set_fields
from leafwise.commands.registry import Ctx
from leafwise.store import Plan, Status, timestamps
from leafwise.store.node_files import check_bytes, check_node
from leafwise.store.numbering import reserve
from leafwise.store.safe_yaml import parse_yaml, read_bounded
from leafwise.store.writer import render_new_node, rewrite


def apply(ctx: Ctx, plan: Plan, prepared: Prepared, under: str | None, agent: str | None) -> dict[str, str]:
    """Write the prepared import; returns {source key: Leafwise id} of every item."""
    tx = Transaction(ctx.paths())
    if prepared.releases:
        _releases(ctx, tx, prepared.releases)
    new = [s for s in prepared.steps if s.node is None]
    prefix = plan.project.id_prefix
    ids = dict(prepared.known)
    for step, number in zip(new, reserve(ctx.paths(), prefix, len(new))):
        step.new_id = ids[step.item.key] = f"{prefix}-{number}"
    for step in _order(prepared.steps):
        parent = ids.get(step.item.parent) if step.item.parent else under
        deps = [ids[d] for d in step.item.depends_on if d in ids]
        if step.node is None:
            _create(ctx, tx, step, parent, deps, agent)
        elif step.changed or step.doc_changed:
            _update(ctx, tx, step, parent if step.item.parent else None, deps, agent)
    tx.commit()
    ctx.forget()
    return ids


def _order(steps: list[Step]) -> list[Step]:
    """The steps with each item's parent and dependencies before it (where a cycle of the two
    allows), so a plan stopped between two renames names no node that is not there yet."""
    by_key = {s.item.key: s for s in steps}
    out: list[Step] = []
    seen: set[str] = set()
    for start in steps:
        stack = [(start, False)]
        while stack:
            step, expanded = stack.pop()
            key = step.item.key
            if expanded:
                out.append(step)
                continue
            if key in seen:
                continue
            seen.add(key)
            stack.append((step, True))
            for ref in reversed([step.item.parent, *step.item.depends_on]):
                if ref in by_key and ref not in seen:
                    stack.append((by_key[ref], False))
    return out


def event(ctx: Ctx, command: str, node_id: str | None, changes: dict[str, tuple[Any, Any]],
          actor: str | None, **extra: Any) -> dict[str, Any]:
    """One journal line, shaped as `nodes.record` shapes it (appended by the transaction, last)."""
    out = {"actor": ctx.who(actor), "command": command, "node": node_id,
           "changes": {k: list(v) for k, v in changes.items()}}
    out.update({k: v for k, v in extra.items() if v not in (None, [], {})})
    return out


def _current(path: Any) -> bytes | None:
    """The bytes a doc the import rewrites holds now (None: none, or no file in its place, which
    the exclusive create then names)."""
    try:
        return read_bounded(path, 1 << 24)
    except (OSError, ValueError):
        return None


def _releases(ctx: Ctx, tx: Transaction, releases: list[ReleaseSpec]) -> None:
    from datetime import date

    from ruamel.yaml.comments import CommentedMap

    from leafwise.commands.domain.releases import dumped, project_for_edit

    path = ctx.paths().project_file
    old, doc, yaml = project_for_edit(ctx)
    if not isinstance(doc.get("releases"), list):
        doc["releases"] = []
    have = {str(r.get("id")) for r in doc["releases"] if isinstance(r, dict)}
    for rel in releases:
        if rel.id in have:
            continue
        entry = CommentedMap(id=rel.id, title=rel.title)
        if rel.target:
            entry["target"] = date.fromisoformat(rel.target)
        entry.fa.set_flow_style()
        doc["releases"].append(entry)
        tx.events.append(event(ctx, "release add", None, {}, None, release=rel.id))
    tx.add(path, dumped(yaml, doc, old), old=old, lock="project")


def _create(ctx: Ctx, tx: Transaction, step: Step, parent: str | None, deps: list[str], agent: str | None) -> None:
    node_id = step.new_id
    assert node_id is not None
    now = ctx.clock()
    fields = dict(step.fields)
    created = timestamps.parse(fields.get("created"))
    # a source's time outside the years a plan file's timestamp holds (a planted 0001-01-01) is today's
    fields["created"] = created if created is not None and 1970 <= created.year <= 9999 else now
    ordered: dict[str, Any] = {"id": node_id, "title": fields.pop("title")}
    if parent:
        ordered["parent"] = parent
    ordered.update({k: fields.pop(k) for k in ("release", "status", "assignee", "blocked_reason", "summary")
                    if k in fields})
    if deps:
        ordered["depends_on"] = deps
    ordered.update(fields)
    ordered["updated"] = now
    paths = ctx.paths()
    if step.doc is not None:
        ordered["docs"] = [f"docs/{node_id}.md"]
        doc_path = paths.inside(f"docs/{node_id}.md")
        tx.add(doc_path, step.doc.encode(), old=_current(doc_path))
    content = check_bytes(render_new_node(ordered), node_id)
    check_node(parse_yaml(content), node_id)
    tx.add(paths.node_file(node_id), content)
    tx.events.append(event(ctx, "import", node_id, {"status": (None, step.fields["status"])}, agent,
                           title=step.fields["title"], parent=parent, source=step.fields["source"]))


def _update(ctx: Ctx, tx: Transaction, step: Step, parent: str | None, deps: list[str], agent: str | None) -> None:
    node = step.node
    assert node is not None
    values = {k: v for k, v in step.fields.items() if k in step.changed}
    if "parent" in step.changed and parent:
        values["parent"] = parent
    if "depends_on" in step.changed:
        values["depends_on"] = deps
    if "blocked_reason" in step.changed and step.fields["status"] != Status.BLOCKED:
        values["blocked_reason"] = None
    paths = ctx.paths()
    rel = node.docs[0] if node.docs else f"docs/{node.id}.md"
    if step.doc_changed and step.doc is not None:
        doc_path = paths.inside(rel)
        tx.add(doc_path, step.doc.encode(), old=_current(doc_path))
        if not node.docs:
            values["docs"] = [rel]
    changes: dict[str, tuple[Any, Any]] = {}
    if values:
        raw = read_bounded(paths.node_file(node.id))

        def edit(doc: dict[str, Any]) -> None:
            changes.update(set_fields(doc, values))
            if changes:
                doc["updated"] = ctx.clock()

        new = rewrite(raw, node.id, edit)
        if new != raw:
            tx.add(paths.node_file(node.id), new, old=raw, lock=node.id)
    tx.events.append(event(ctx, "import", node.id, {k: (plain(a), plain(b)) for k, (a, b) in changes.items()},
                           agent, source=step.fields["source"], path=rel if step.doc_changed else None))

