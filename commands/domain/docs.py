"""A node's docs: read them with its ancestors' (docs flow down), or replace its own doc."""

from __future__ import annotations

import sys
from typing import Any

from leafwise.commands.contract import (
    EXIT_USAGE,
    CommandError,
    Mutation,
    NextAction,
    Result,
    clean,
    fix,
    next_,
    placeholder,
    wait,
)
from leafwise.commands.core import readiness
from leafwise.commands.core.picker import order_key
from leafwise.commands.core.views import inherited_docs
from leafwise.commands.domain.messages import carry
from leafwise.commands.domain.nodes import get_node, record, set_fields, write
from leafwise.commands.registry import Ctx
from leafwise.commands.text import plan_words
from leafwise.store import CLOSED, Node, Plan, Status, reader
from leafwise.store.loader import read_bounded
from leafwise.store.paths import PLAN_DIR, UnsafePath
from leafwise.store.writer import write_text

MAX_DOC_CHARS = 200_000
MAX_DOCS = 20  # distinct docs and diagrams one answer reads (the node's own first, then its ancestors')
MAX_TOTAL_CHARS = 4 * MAX_DOC_CHARS


def _read(plan: Plan, kind: str, rel: str, origin: str | None) -> dict[str, Any]:
    """One linked doc: its text, or why there is none in `note` ("missing", or the refusal of a path
    outside the plan's docs/ and diagrams/, which is never read: a clone's author wrote the path)."""
    item = {"kind": kind, "path": rel, "text": "", "missing": True, "from": origin, "note": "missing"}
    try:
        path = plan.paths.inside(rel)
        # never a link, a FIFO or a device (a FIFO would hang the reader), never more than the limit
        text = read_bounded(path, MAX_DOC_CHARS * 4).decode("utf-8", errors="replace")[:MAX_DOC_CHARS]
        return {**item, "text": text, "missing": False, "note": None}
    except UnsafePath as exc:
        return {**item, "note": f"not read: {clean(exc, 160)}"}
    except OSError:
        return item


def read_docs(ctx: Ctx, node_id: str) -> list[dict[str, Any]]:
    """The node's docs and diagrams with their text ("missing" ones flagged), then its
    ancestors' docs, nearest ancestor first (`from` names the ancestor): docs flow down."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    wanted = [(kind, rel, None) for kind, rels in (("doc", node.docs), ("diagram", node.diagrams)) for rel in rels]
    wanted += [("doc", item["path"], item["from"]) for item in inherited_docs(plan, node)]
    unique = list(dict.fromkeys((kind, rel) for kind, rel, _ in wanted))  # a link listed twice is one doc
    origin = {(kind, rel): source for kind, rel, source in reversed(wanted)}  # where each was first linked
    out: list[dict[str, Any]] = []
    total = 0
    for at, key in enumerate(unique):
        if len(out) >= MAX_DOCS or total >= MAX_TOTAL_CHARS:  # a node file can link thousands (planted)
            left = len(unique) - at
            out.append({"kind": key[0], "path": key[1], "text": "", "missing": True, "from": origin[key],
                        "note": f"not read, with {left - 1} more: one answer reads at most {MAX_DOCS} docs and "
                                f"{MAX_TOTAL_CHARS:,} characters" if left > 1 else
                                f"not read: one answer reads at most {MAX_DOCS} docs and {MAX_TOTAL_CHARS:,} characters"})
            break
        item = _read(plan, key[0], key[1], origin[key])
        total += len(item["text"])
        out.append(item)
    return out


def _next_leaf(plan: Plan, node: Node) -> Node | None:
    """The parent's open leaf the picker would reach first."""
    leaves = [d for d in plan.descendants(node.id) if not d.children and d.status not in CLOSED]
    return min(leaves, key=order_key(plan)) if leaves else None


def doc(ctx: Ctx, node_id: str, write: str | None = None, agent: str | None = None) -> Result:
    """`doc`: the node's docs, then its ancestors' (or, with `write` a file or `-`, replace its own doc)."""
    if write is not None:
        text = _read_stdin(ctx, node_id) if write == "-" else _read_file(ctx, node_id, write)
        return write_doc(ctx, node_id, text)
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    docs = read_docs(ctx, node_id)
    task = {"id": node_id, "title": clean(node.title)}
    lines = carry(ctx, plan, node, task, clean(agent, 80) if agent else None)  # the person's word first
    for item in docs:
        origin = f" (from {item['from']})" if item["from"] else ""
        lines.append(f"── {clean(item['path'])}{origin}" + (f" ({item['note']})" if item["note"] else ""))
        # each line shown as written: render_text makes hidden characters visible (never dropped)
        lines += item["text"].replace("\r\n", "\n").rstrip("\n").split("\n")
    if not docs:
        lines.append(f"{node_id} has no docs yet.")
    return Result({"id": node_id, "docs": docs, "task": task}, _after_reading(ctx, plan, node, bool(docs), agent),
                  lines)


def _after_reading(ctx: Ctx, plan: Plan, node: Node, has_docs: bool, agent: str | None) -> NextAction:
    """What to do once the docs are read: the parent's next leaf, the work, or wait for its holder."""
    node_id = node.id
    holder = node.assignee if node.status == Status.IN_PROGRESS else None
    agent = clean(agent, 80) if agent else None
    leaf = _next_leaf(plan, node) if readiness.open_children(plan, node) else None
    if leaf is not None:
        return next_(ctx.cmd("doc", leaf.id), f"{node_id} is a parent: its next open leaf is {leaf.id}",
                     or_=ctx.cmd("start", agent=placeholder("agent"), next=True))
    if node.status == Status.IN_PROGRESS and agent and holder and holder != agent:
        return wait(f"{plan_words(holder, 80)} holds {node_id}", "another agent works on it",
                    or_=ctx.cmd("start", agent=agent, next=True))
    if node.status == Status.IN_PROGRESS:
        return next_(ctx.cmd("complete", node_id, summary=placeholder("summary"), agent=agent or holder),
                     "docs read: do the work, then complete" if has_docs else "no docs to read",
                     or_=ctx.cmd("block", node_id, reason=placeholder("reason"), agent=agent or holder))
    if node.status in CLOSED:
        return next_(ctx.cmd("next"), f"{node_id} is {node.status}")
    return next_(ctx.cmd("start", node_id, agent=placeholder("agent")) if node.status == Status.DRAFT
                 else ctx.cmd("show", node_id), "docs read" if has_docs else "no docs to read",
                 or_=None if has_docs else ctx.cmd("write-doc", node_id, content=placeholder("content")))


def _read_file(ctx: Ctx, node_id: str, name: str) -> str:
    """The text of the file the caller names, by the one reader (a regular file, within the doc cap)."""
    try:
        return reader.read_text(name, reader.DOC)
    except (OSError, reader.Refused) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CommandError("unreadable_input", f"cannot read {name}: {why}",
                           fix(ctx.cmd("doc", node_id, write="-"), "pipe the text on stdin instead"),
                           exit_code=EXIT_USAGE, category="usage") from exc


def _read_stdin(ctx: Ctx, node_id: str) -> str:
    """Standard input, at most the doc cap (one byte past it says it is too large)."""
    stream = getattr(sys.stdin, "buffer", None)
    raw = stream.read(reader.DOC.cap + 1) if stream is not None else \
        sys.stdin.read(reader.DOC.cap + 1).encode("utf-8", "surrogateescape")
    if len(raw) > reader.DOC.cap:
        raise CommandError("doc_too_large", f"the doc on standard input is over {reader.DOC.cap:,} bytes",
                           fix(ctx.cmd("doc", node_id, write="-"), "split it into smaller docs"),
                           exit_code=EXIT_USAGE, category="usage")
    return reader.decode(raw)


def write_doc(ctx: Ctx, node_id: str, content: str) -> Result:
    """Replace the node's own doc (docs/ID.md unless it links one), linking it if needed."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    if len(content) > MAX_DOC_CHARS:
        raise CommandError("doc_too_large", f"the doc is {len(content)} characters; the limit is {MAX_DOC_CHARS}",
                           fix(ctx.cmd("doc", node_id, write="-"), "split it into smaller docs"),
                           exit_code=EXIT_USAGE, category="usage")
    rel = node.docs[0] if node.docs else f"docs/{node_id}.md"
    path = plan.paths.inside(rel)
    if plan.paths.cycles.is_dir():  # a running cycle may put docs off limits
        from leafwise.commands.domain.cycle_gates import check_paths

        check_paths(ctx, [path])
    existed = path.is_file()  # whether this write creates the doc or replaces it: its text is not needed
    write_text(path, content if content.endswith("\n") else content + "\n")
    linked = {}
    if not node.docs:
        linked = write(ctx, node, lambda d: set_fields(d, {"docs": [rel]}))
    record(ctx, "doc", node_id, linked, path=rel)
    changes = [{"id": node_id, "file": f"{PLAN_DIR}/{rel}", "op": "replace" if existed else "create"}]
    return Result({"id": node_id, "path": rel, "linked": bool(linked), "chars": len(content)},
                  next_(ctx.cmd("doc", node_id), "read it back"),
                  [f"Wrote {PLAN_DIR}/{rel}" + (" and linked it" if linked else "")],
                  Mutation("update_doc", "write", True, "doc written", changes))
