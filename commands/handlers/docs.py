"""`doc`: read a node's markdown docs, or replace its own doc (`--write FILE|-`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from leafwise.commands.contract import (
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    fix,
    next_,
)
from leafwise.commands.handlers.shared import get_node, record, set_fields, write
from leafwise.commands.registry import Ctx, Param, command
from leafwise.store import Status
from leafwise.store.paths import PLAN_DIR, UnsafePath
from leafwise.store.writer import write_text

MAX_DOC_CHARS = 200_000


def read_docs(ctx: Ctx, node_id: str) -> list[dict[str, Any]]:
    """The node's docs and diagrams with their text ("missing" ones flagged)."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    out = []
    for kind, rels in (("doc", node.docs), ("diagram", node.diagrams)):
        for rel in rels:
            try:
                path = plan.paths.inside(rel)
                text = path.read_text(errors="replace")[:MAX_DOC_CHARS]
                out.append({"kind": kind, "path": rel, "text": text, "missing": False})
            except (UnsafePath, OSError):
                out.append({"kind": kind, "path": rel, "text": "", "missing": True})
    return out


@command("doc", "Read a node's docs and diagrams (or replace its doc with --write FILE|-).",
         mutating=False, tool="get_doc", idempotent=True,
         params=(Param("node_id", "node id", positional=True, required=True),
                 Param("write", "replace the node's doc with this file's text (- for stdin)", cli_only=True)))
def doc(ctx: Ctx, node_id: str, write: str | None = None) -> Result:
    if write is not None:
        text = sys.stdin.read() if write == "-" else _read_file(ctx, node_id, write)
        return write_doc(ctx, node_id, text)
    docs = read_docs(ctx, node_id)
    node = get_node(ctx, node_id)
    lines: list[str] = []
    for item in docs:
        lines.append(f"── {item['path']}" + (" (missing)" if item["missing"] else ""))
        lines += item["text"].rstrip("\n").splitlines()
    after = next_(ctx.cmd(f'complete {node_id} --summary "<summary>"'), "docs read: do the work, then complete",
                  or_=ctx.cmd(f'block {node_id} --reason "<reason>"'))
    if not docs:
        lines.append(f"{node_id} has no docs yet.")
        after = next_(ctx.cmd(f'complete {node_id} --summary "<summary>"') if node.status == Status.IN_PROGRESS
                      else ctx.cmd(f"show {node_id}"), "no docs to read",
                      or_=ctx.cmd(f'write-doc {node_id} --content "<content>"'))
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
