"""How nodes read to an agent and a person: status words and marks, a task's view."""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import clean
from leafwise.store import CLOSED, Node, Plan, Status


def messages(node: Node) -> list[dict[str, Any]]:
    """A person's word for whoever works on the node: the decision's answer, unblock notes, comments.

    Oldest first; every text cleaned of control characters (plan files are untrusted).
    """
    out: list[dict[str, Any]] = []
    decision = node.data.get("decision")
    if isinstance(decision, dict) and isinstance(decision.get("answer"), dict):
        answer = decision["answer"]
        note = clean(answer.get("note"), 1000) if answer.get("note") else None
        out.append({"kind": "decision", "by": clean(answer.get("by") or "", 80),
                    "at": clean(answer.get("at") or "", 40),
                    "question": clean(decision.get("question") or "", 500),
                    "option": answer.get("option"), "choice": clean(answer.get("choice") or "", 500),
                    "note": note,
                    "text": clean(answer.get("choice") or "", 500) + (f" — {note}" if note else "")})
    comments = node.data.get("comments")
    for item in comments if isinstance(comments, list) else []:
        if isinstance(item, dict) and item.get("text"):
            kind = "unblock note" if item.get("kind") == "unblock" else "comment"
            out.append({"kind": kind, "by": clean(item.get("by") or "", 80), "at": clean(item.get("at") or "", 40),
                        "text": clean(item["text"], 1000)})
    return out


def message_lines(items: list[dict[str, Any]]) -> list[str]:
    """How a person's word reads in a text answer, one line each."""
    return [f"  {m['kind']} from {m['by'] or 'a person'}: {m['text']}" for m in items]


def task_view(plan: Plan, node: Node) -> dict[str, Any]:
    chain = list(reversed(plan.ancestors(node.id)))
    return {
        "id": node.id, "title": node.title, "status": node.status,
        "release": node.effective_release, "path": [a.id for a in chain],
        "ancestors": [{"id": a.id, "title": a.title} for a in chain],
        "depends_on": node.depends_on, "docs": node.docs, "diagrams": node.diagrams,
        "tags": node.tags, "description": node.data.get("description"),
        "priority": node.data.get("priority"),
        "messages": messages(node) if node.status not in CLOSED else [],
        "inherited_docs": inherited_docs(plan, node),
    }


def inherited_docs(plan: Plan, node: Node) -> list[dict[str, str]]:
    """The ancestors' docs, nearest ancestor first (docs flow down to the leaves)."""
    seen = set(node.docs)
    out: list[dict[str, str]] = []
    for ancestor in plan.ancestors(node.id):
        for doc in ancestor.docs:
            if doc not in seen:
                seen.add(doc)
                out.append({"path": doc, "from": ancestor.id})
    return out


MARKS = {Status.DRAFT: "○", Status.IN_PROGRESS: "◐", Status.BLOCKED: "⊘", Status.DONE: "●", Status.CANCELLED: "✕"}

# How each status reads in a sentence (the feed, the detail pane, undo, the board's columns).
STATUS_WORDS: dict[str, str] = {Status.DRAFT: "draft", Status.IN_PROGRESS: "in progress", Status.BLOCKED: "blocked",
                Status.DONE: "done", Status.CANCELLED: "cancelled"}
NO_STATUS = "(none)"  # the word for a status that is not there (a node before it existed)


def status_word(status: object) -> str:
    """'in progress', 'done'…; NO_STATUS for None; an unknown status as written (plan text: cut it)."""
    if status is None:
        return NO_STATUS
    return STATUS_WORDS.get(str(status), str(status))
