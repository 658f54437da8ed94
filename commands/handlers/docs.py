"""`doc`: read a node's markdown docs, or replace its own doc (`--write FILE|-`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from leafwise.commands.contract import EXIT_USAGE, CommandError, Mutation, Result, clean, fix, next_, wait
from leafwise.commands.core import readiness
from leafwise.commands.core.hints import agent_arg
from leafwise.commands.core.picker import order_key
from leafwise.commands.core.views import inherited_docs
from leafwise.commands.handlers.shared import get_node, record, set_fields, write
from leafwise.commands.registry import Ctx, Param, command
from leafwise.store import CLOSED, Status
from leafwise.store.loader import read_bounded
from leafwise.store.paths import PLAN_DIR, UnsafePath
from leafwise.store.writer import write_text

MAX_DOC_CHARS = 200_000




def _read(plan, kind: str, rel: str, origin: str | None) -> dict[str, Any]:
    try:
        path = plan.paths.inside(rel)
        # never a link, a FIFO or a device (a FIFO would hang the reader), never more than the limit
        text = read_bounded(path, MAX_DOC_CHARS * 4).decode("utf-8", errors="replace")[:MAX_DOC_CHARS]
        return {"kind": kind, "path": rel, "text": text, "missing": False, "from": origin}
    except (UnsafePath, OSError):
        return {"kind": kind, "path": rel, "text": "", "missing": True, "from": origin}


def read_docs(ctx: Ctx, node_id: str) -> list[dict[str, Any]]:
    """The node's docs and diagrams with their text ("missing" ones flagged), then its
    ancestors' docs, nearest ancestor first (`from` names the ancestor): docs flow down."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    out = [_read(plan, kind, rel, None) for kind, rels in (("doc", node.docs), ("diagram", node.diagrams))
           for rel in rels]
    out += [_read(plan, "doc", item["path"], item["from"]) for item in inherited_docs(plan, node)]
    return out


def _next_leaf(plan, node) -> Any:
    """The parent's open leaf the picker would reach first."""
    leaves = [d for d in plan.descendants(node.id) if not d.children and d.status not in CLOSED]
    return min(leaves, key=order_key(plan)) if leaves else None


@command("doc", "Read a node's docs and diagrams, then its ancestors' docs (or replace its doc with --write FILE|-).",
         mutating=False, tool="get_doc", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("agent", "who reads (shapes the hint: only the holder is told to complete)"),
                 Param("write", "replace the node's doc with this file's text (- for stdin)", cli_only=True)))
def doc(ctx: Ctx, node_id: str, write: str | None = None, agent: str | None = None) -> Result:
    if write is not None:
        text = sys.stdin.read() if write == "-" else _read_file(ctx, node_id, write)
        return write_doc(ctx, node_id, text)
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    node_id = node.id
    docs = read_docs(ctx, node_id)
    lines: list[str] = []
    for item in docs:
        origin = f" (from {item['from']})" if item["from"] else ""
        lines.append(f"── {clean(item['path'])}{origin}" + (" (missing)" if item["missing"] else ""))
        # each line shown as written: render_text makes hidden characters visible (never dropped)
        lines += item["text"].replace("\r\n", "\n").rstrip("\n").split("\n")
    holder = node.assignee if node.status == Status.IN_PROGRESS else None
    agent = clean(agent, 80) if agent else None
    mine = f" --agent {agent_arg(agent or holder)}" if agent or holder else ""
    open_kids = readiness.open_children(plan, node)
    leaf = _next_leaf(plan, node) if open_kids else None
    if not docs:
        lines.append(f"{node_id} has no docs yet.")
    if leaf is not None:
        after = next_(ctx.cmd(f"doc {leaf.id}"), f"{node_id} is a parent: its next open leaf is {leaf.id}",
                      or_=ctx.cmd(f"start --next --agent {agent_arg(None)}"))
    elif node.status == Status.IN_PROGRESS and agent and holder and holder != agent:
        after = wait(f"{clean(holder, 80)} holds {node_id}", "another agent works on it",
                     or_=ctx.cmd(f"start --next --agent {agent_arg(agent)}"))
    elif node.status == Status.IN_PROGRESS:
        after = next_(ctx.cmd(f'complete {node_id} --summary "<summary>"{mine}'),
                      "docs read: do the work, then complete" if docs else "no docs to read",
                      or_=ctx.cmd(f'block {node_id} --reason "<reason>"{mine}'))
    elif node.status in CLOSED:
        after = next_(ctx.cmd("next"), f"{node_id} is {node.status}")
    else:
        after = next_(ctx.cmd(f"start {node_id} --agent <agent>") if node.status == Status.DRAFT
                      else ctx.cmd(f"show {node_id}"), "docs read" if docs else "no docs to read",
                      or_=ctx.cmd(f'write-doc {node_id} --content "<content>"') if not docs else None)
    return Result({"id": node_id, "docs": docs}, after, lines)


def _read_file(ctx: Ctx, node_id: str, name: str) -> str:
    try:
        return Path(name).read_text()
    except OSError as exc:
        raise CommandError("unreadable_input", f"cannot read {name}: {exc.strerror}",
                           fix(ctx.cmd(f"doc {node_id} --write -"), "pipe the text on stdin instead"),
                           exit_code=EXIT_USAGE, category="usage") from exc


@command("write-doc", "Replace a node's own doc (docs/ID.md unless it links one), linking it if needed.",
         mutating=True, tool="update_doc", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("content", "the markdown text", required=True)))
def write_doc(ctx: Ctx, node_id: str, content: str) -> Result:
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    if len(content) > MAX_DOC_CHARS:
        raise CommandError("doc_too_large", f"the doc is {len(content)} characters; the limit is {MAX_DOC_CHARS}",
                           fix(ctx.cmd(f"doc {node_id} --write -"), "split it into smaller docs"),
                           exit_code=EXIT_USAGE, category="usage")
    rel = node.docs[0] if node.docs else f"docs/{node_id}.md"
    path = plan.paths.inside(rel)
    if plan.paths.cycles.is_dir():  # a running cycle may put docs off limits
        from leafwise.commands.handlers.cycle_gates import check_paths

        check_paths(ctx, [path])
    old = path.read_text() if path.is_file() else None
    write_text(path, content if content.endswith("\n") else content + "\n")
    linked = {}
    if not node.docs:
        linked = write(ctx, node, lambda d: set_fields(d, {"docs": [rel]}))
    record(ctx, "doc", node_id, linked, path=rel)
    changes = [{"id": node_id, "file": f"{PLAN_DIR}/{rel}", "op": "create" if old is None else "replace"}]
    return Result({"id": node_id, "path": rel, "linked": bool(linked), "chars": len(content)},
                  next_(ctx.cmd(f"doc {node_id}"), "read it back"),
                  [f"Wrote {PLAN_DIR}/{rel}" + (" and linked it" if linked else "")],
                  Mutation("update_doc", "write", True, "doc written", changes))
