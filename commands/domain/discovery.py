"""Discovery: show, list, tree and the command registry. None of these write."""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import EXIT_USAGE, CommandError, Result, bounded, clean, fix, next_, placeholder
from leafwise.commands.core.hints import node_hint
from leafwise.commands.core.progress import leaf_progress
from leafwise.commands.core.views import MARKS, inherited_docs
from leafwise.commands.domain import listing
from leafwise.commands.domain.holds import live_claims, unreadable_parents
from leafwise.commands.domain.messages import carry_history
from leafwise.commands.domain.nodes import get_node, plain
from leafwise.commands.registry import LAUNCHERS, Ctx, load_all
from leafwise.commands.text import path_line, readable
from leafwise.store import CLOSED, Node, Plan, journal, verdicts
from leafwise.store.schema import BY_NAME, KNOWN_FIELDS, LIST_FIELDS, decision_options, marked_priority

LISTS = frozenset(name for name in KNOWN_FIELDS if BY_NAME[name].kind in ("texts", "list"))  # [] when unset


def show(ctx: Ctx, node_id: str, agent: str | None = None) -> Result:
    """One node: fields, path, children, claim, docs and recent history."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    now = ctx.clock()
    claims = live_claims(ctx, plan)
    chain = list(reversed(plan.ancestors(node_id)))
    done, total = leaf_progress(plan, node)
    claim = claims.get(node_id)
    history = journal.read(ctx.paths(), node=node_id, limit=10)
    view = node.as_dict()
    view.update(
        path=[{"id": a.id, "title": a.title, "status": a.status} for a in chain],
        children_detail=[{"id": c, "title": plan.nodes[c].title, "status": plan.nodes[c].status}
                         for c in node.children[:50]],
        progress={"done": done, "total": total, "percent": round(100 * done / total) if total else None},
        claim=claim.as_dict() if claim else None,
        history=history,
        inherited_docs=inherited_docs(plan, node),
    )
    lines = [f"{node.id}  {clean(node.title)}", _field("status", f"{MARKS[node.status]} {node.status}")]
    if chain:
        lines.append(_field("path", path_line([f"{a.id} {clean(a.title, 80)}" for a in chain])))
    lines.append(_field("release", (node.effective_release or "-")
                        + ("" if node.release or not node.effective_release else " (inherited)")))
    for key in ("assignee", "blocked_reason", "summary", "trigger"):
        if node.data.get(key):
            lines.append(_field(key, node.data[key]))
    if claim:
        lines.append(_field("claim", f"{claim.agent} until {claim.expires} (heartbeat {claim.heartbeat})"))
    for key in LIST_FIELDS:
        if node.data.get(key):
            lines.append(_field(key, ", ".join(node.data[key])))
    if total and node.children:
        lines.append(_field("progress", f"{done}/{total} leaves done ({round(100 * done / total)}%)"))
    for child in node.children[:50]:
        c = plan.nodes[child]
        lines.append(f"    {MARKS[c.status]} {c.id} {clean(c.title)}")
    decision = node.open_decision
    if decision is not None:
        lines.append(_field("decision", clean(decision.get("question") or "", 500)))
        options = decision_options(decision)
        if options is None:
            lines.append("    (its options are no list of texts: a person fixes the node file)")
        for i, option in enumerate(options or [], 1):
            lines.append(f"    {i}. {clean(option, 500)}")
    lines += _verdict_lines(ctx, node, view)
    if view["inherited_docs"]:
        lines.append(_field("docs above", ", ".join(f"{d['path']} ({d['from']})" for d in view["inherited_docs"])))
    lines += carry_history(ctx, plan, node, view, agent)
    shown = {"id", "title", "status", "parent", "release", "assignee", "blocked_reason", "summary", "trigger",
             "depends_on", "tags", "docs", "diagrams", "created", "updated", "decision", "decisions", "comments",
             "blocked_from", "blocked_since"}
    for key, value in node.data.items():
        if key not in shown and value not in (None, [], {}):
            lines.append(_field(key, readable(value)))
    for event in history[-5:]:
        lines.append(f"  {event.get('time', '')} {event.get('actor', '')} {event.get('command', '')}")
    return Result(view, node_hint(ctx.cmd, plan, node, claims, agent, now), lines)


def _verdict_lines(ctx: Ctx, node: Node, view: dict[str, Any]) -> list[str]:
    """An agent's verified verdict (`leafwise verify`) in `view`, and its line with the first checked quote."""
    verdict = verdicts.read(ctx.paths(), node.id)
    view["verdict"] = verdict.as_dict() if verdict else None
    if verdict is None:
        return []
    first = f"; {verdict.quotes[0].place}: \"{clean(verdict.quotes[0].text, 120)}\"" if verdict.quotes else ""
    missing = f"; missing: {clean(verdict.missing, 200)}" if verdict.missing else ""
    return [_field("verdict", f"{verdict.verdict} ({verdict.state}) by {clean(verdict.agent, 60)}{first}{missing}")]


def _field(key: str, value: Any) -> str:
    return f"  {key + ':':16}{readable(value)}"


def row(plan: Plan, node: Node) -> dict[str, Any]:
    """A listed node: every field a person or an agent sets (null when unset), the file's other keys,
    then what is derived (effective release, depth, children, file), all as JSON values."""
    item: dict[str, Any] = {name: plain(node.data.get(name, [] if name in LISTS else None))
                            for name in KNOWN_FIELDS}
    item.update((key, plain(value)) for key, value in node.data.items() if key not in item)
    item.update(id=node.id, title=node.title, status=str(node.status), effective_release=node.effective_release,
                depth=node.depth, children=list(node.children), file=node.file)
    return item


def list_nodes(ctx: Ctx, status: str | None = None, release: str | None = None, tag: str | None = None,
               parent: str | None = None, assignee: str | None = None, priority: str | None = None,
               search: str | None = None, blocked: bool = False, ready: bool = False, sort: str | None = None,
               limit: int = 200) -> Result:
    """Nodes by fields, words (`listing.search`), readiness (the picker's own rule) and an order."""
    plan = ctx.plan()
    if release is not None and release not in plan.project.release_rank():
        raise CommandError("unknown_release", f"release {release!r} is not in project.yaml",
                           fix(ctx.cmd("context"), "see the releases"), exit_code=EXIT_USAGE, category="usage")
    words = listing.search_words(search)
    if search is not None and not words:
        raise CommandError("empty_search", "--search needs a word to look for",
                           fix(ctx.cmd("list", search=placeholder("words")), "give the words to find"),
                           exit_code=EXIT_USAGE, category="usage")
    chosen = listing.Filters(status, release, tag, parent, assignee, priority).select(plan.nodes.values())
    why: dict[str, str] = {}
    if blocked:
        why = listing.waiting(plan, live_claims(ctx, plan))
        chosen = [n for n in chosen if n.id in why]
    if ready:
        pool = set(listing.ready(plan, live_claims(ctx, plan), unreadable_parents(plan) - {None}))
        chosen = [n for n in chosen if n.id in pool]
    matched: dict[str, list[str]] = {}
    if words:
        matched = listing.search(plan, chosen, words)
        chosen = [n for n in chosen if n.id in matched]
    found = listing.order(plan, chosen, sort or ("pick" if ready else "release"))
    page = bounded(found, limit)
    page["items"] = [row(plan, n) | ({"why": why[n.id]} if n.id in why else {})
                     | ({"found_in": matched[n.id]} if words else {}) for n in page["items"]]
    lines = [_line(i) for i in page["items"]]
    lines.append(f"{page['total']} node(s)" + (f", first {limit} shown" if page["truncated"] else ""))
    if ready and found:
        hint = next_(ctx.cmd("start", next=True, agent=placeholder("agent")), "start --next claims the first of them")
    elif len(found) == 1:
        hint = next_(ctx.cmd("show", found[0].id), "look at the first one")
    else:
        hint = next_(ctx.cmd("next"), "the picker chooses among them")
    return Result(page, hint, lines)


def _line(i: dict[str, Any]) -> str:
    shown = i["effective_release"] or "-"
    return (f"{MARKS[i['status']]} {i['id']:10} {i['status']:11} {clean(shown, 64):6} {clean(i['title'])}"
            + (f"  [{clean(i['assignee'], 80)}]" if i["assignee"] else "")
            + (f"  ({i['priority']})" if marked_priority(i["priority"]) else "")
            + (f"  — {clean(i['why'])}" if i.get("why") else
               f"  — {clean(i['blocked_reason'])}" if i["blocked_reason"] else "")
            + (f"  (found in {', '.join(clean(d, 120) for d in i['found_in'])})" if i.get("found_in") else ""))


def tree(ctx: Ctx, node_id: str | None = None, depth: int | None = None, limit: int = 200) -> Result:
    plan = ctx.plan()
    rows: list[dict[str, Any]] = []
    key = plan.sort_key()
    if node_id:
        tops = [get_node(ctx, node_id, plan)]
    else:
        tops = sorted(plan.roots(), key=key)
    base = tops[0].depth if node_id else 0
    for top in tops:
        stack = [top]
        while stack:
            node = stack.pop()
            level = node.depth - base
            if depth is not None and level >= depth:
                continue
            done, total = leaf_progress(plan, node)
            rows.append({"id": node.id, "title": node.title, "status": node.status, "level": level,
                         "release": node.effective_release, "assignee": node.assignee,
                         "done": done, "total": total})
            stack.extend(reversed([plan.nodes[c] for c in node.children]))
    page = bounded(rows, limit)
    lines = []
    current_release = object()
    for r in page["items"]:
        if not node_id and r["level"] == 0 and r["release"] != current_release:
            current_release = r["release"]
            title = next((x.title for x in plan.project.releases if x.id == r["release"]), "no release")
            lines.append(f"[{clean(r['release'] or '-', 64)}] {clean(title)}")
        pct = f"  {r['done']}/{r['total']}" if r["total"] and r["total"] > 1 or r["level"] == 0 else ""
        lines.append("  " * (r["level"] + 1) + f"{MARKS[r['status']]} {r['id']} {clean(r['title'])}{pct}"
                     + (f"  [{clean(r['assignee'], 80)}]" if r["assignee"] and r["status"] not in CLOSED else ""))
    if page["truncated"]:
        lines.append(f"… {page['total'] - len(page['items'])} more rows (use --limit or tree ID)")
    return Result(page, next_(ctx.cmd("next"), "the picker chooses the next task"), lines)


def commands(ctx: Ctx) -> Result:
    registry = load_all()  # every handler module, not only those imported so far
    items = [registry[name].describe() for name in sorted(registry)]
    items += [{"name": launcher.name, "summary": launcher.summary, "kind": "launcher", "mcp_tool": None,
               "arguments": []} for launcher in LAUNCHERS.values()]
    lines = [f"  {i['name']:16} {i['kind']:10} {i['mcp_tool'] or '-':22} {i['summary']}" for i in items]
    return Result({"items": items, "total": len(items), "limit": None, "truncated": False},
                  next_(ctx.cmd("context"), "start a session from the plan's context"), lines)
