"""How nodes read to an agent and a person: status words and marks, a task's view."""

from __future__ import annotations

import hashlib
from typing import Any

from leafwise.commands.contract import clean
from leafwise.store import CLOSED, Node, Plan, Status


def messages(node: Node) -> list[dict[str, Any]]:
    """A person's word for whoever works on the node: every decision's answer (the earlier ones in
    `decisions`, then `decision`), unblock notes, comments; oldest first, each with an `id` that
    stays the same however the list around it changes (a hash of what was said, by whom, when).

    Every text cleaned of control characters (plan files are untrusted). Which of them still wait
    for an agent is commands/domain/messages.py's.
    """
    out: list[dict[str, Any]] = []
    history = node.data.get("decisions")
    for decision in [*(history if isinstance(history, list) else []), node.data.get("decision")]:
        if isinstance(decision, dict) and isinstance(decision.get("answer"), dict):
            out.append(_decision_word(decision, decision["answer"]))
    comments = node.data.get("comments")
    for item in comments if isinstance(comments, list) else []:
        if isinstance(item, dict) and item.get("text"):
            kind = "unblock note" if item.get("kind") == "unblock" else "comment"
            word = {"kind": kind, "by": clean(item.get("by") or "", 80), "at": clean(item.get("at") or "", 40),
                    "text": clean(item["text"], 1000)}
            out.append({"id": word_id(word), **word})
    return out


def _decision_word(decision: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    note = clean(answer.get("note"), 1000) if answer.get("note") else None
    choice = clean(answer.get("choice") or "", 500)
    word = {"kind": "decision", "by": clean(answer.get("by") or "", 80), "at": clean(answer.get("at") or "", 40),
            "question": clean(decision.get("question") or "", 500), "option": answer.get("option"),
            "choice": choice, "note": note, "text": choice + (f" — {note}" if note else "")}
    return {"id": word_id(word), **word}


def word_id(word: dict[str, Any]) -> str:
    """A word's id: the same for the same word wherever it is read (journaled when it reaches an agent)."""
    key = "\x1f".join(str(word.get(k) or "") for k in ("kind", "by", "at", "question", "text"))
    return "w-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def message_lines(items: list[dict[str, Any]], node_id: str = "") -> list[str]:
    """How a person's word reads in a text answer, one line each (one already seen is marked so)."""
    on = f" on {node_id}" if node_id else ""
    out = []
    for m in items:
        what = "answer" if m["kind"] == "decision" else m["kind"]
        said = f"“{m['question']}” → {m['text']}" if m.get("question") else m["text"]
        seen = " (already seen)" if m.get("delivered") else ""
        out.append(f"  {m['by'] or 'a person'}'s {what}{on}{seen}: {said}")
    return out


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
