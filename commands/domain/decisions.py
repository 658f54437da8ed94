"""Decisions for a person: `ask` blocks a node with a question; `decide` answers and unblocks."""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_INVALID,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Placeholder,
    Result,
    clean,
    fix,
    next_,
    placeholder,
)
from leafwise.commands.core import lifecycle
from leafwise.commands.core.hints import pick_hint
from leafwise.commands.domain.blocking import unblock
from leafwise.commands.domain.claiming import next_view
from leafwise.commands.domain.holds import pick_for
from leafwise.commands.domain.messages import carry_pick
from leafwise.commands.domain.nodes import change_list, get_node, plain, record, set_fields, write
from leafwise.commands.registry import Ctx
from leafwise.store import Status, claims
from leafwise.store.model import open_decision
from leafwise.store.node_files import read_node_file
from leafwise.store.schema import decision_options


def ask(ctx: Ctx, node_id: str, question: str, option: tuple[str, ...] = (), agent: str | None = None) -> Result:
    """Block a node with a question and at least two options for a person to choose from."""
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    question = clean(question, 500)
    options = [clean(o, 500) for o in option if clean(o, 500)]
    if not question or len(options) < 2:
        raise CommandError("bad_decision", "a decision needs a question and at least two options",
                           fix(ctx.cmd("ask", node_id, placeholder("question"),
                                       option=[Placeholder("A: <choice>"), Placeholder("B: <choice>")]),
                               "give the person real choices"), exit_code=EXIT_USAGE, category="usage")
    if lifecycle.transition("ask", node.status) is None:
        raise CommandError("closed", f"{node_id} is {node.status}", fix(ctx.cmd("next"), "ask on open work"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id))
    now = ctx.clock()
    who = ctx.who(agent)

    def mark(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        values: dict[str, Any] = {
            "status": Status.BLOCKED, "blocked_reason": f"Decision needed: {question}",
            "decision": {"question": question, "options": options, "asked_by": who, "asked": now}}
        values.update(_keep_earlier(ctx, node_id, doc))
        if doc.get("status") != Status.BLOCKED:
            values["blocked_from"] = doc.get("status")
            values["blocked_since"] = now
        return set_fields(doc, values)

    changes = write(ctx, node, mark)
    claims.remove(ctx.paths(), node_id)
    record(ctx, "ask", node_id, changes, actor=who, question=question)
    plan = ctx.plan()
    chosen = pick_for(ctx, agent, plan)
    view = next_view(plan, chosen)  # the agent's next task, with the person's words waiting on it (as block's)
    lines = [f"Asked on {node_id}: {question}"] + [f"  {i}. {o}" for i, o in enumerate(options, 1)]
    lines += carry_pick(ctx, plan, chosen, view, agent)
    return Result({"id": node_id, "question": question, "options": options, "status": Status.BLOCKED,
                   "next": view},
                  pick_hint(ctx.cmd, chosen, agent), lines,
                  Mutation("ask_decision", "ask", True, "blocked for a decision", change_list(node_id, changes)))


MAX_DECISIONS = 50  # earlier decisions a node keeps: each ask journals the list, a journal line is bounded


def _keep_earlier(ctx: Ctx, node_id: str, doc: dict[str, Any]) -> dict[str, Any]:
    """The node's decision history with its current decision appended, when it has one: a new
    question never replaces an answer (nor an unanswered question) in the file."""
    current = doc.get("decision")
    if not isinstance(current, dict) or not current.get("question"):
        return {}
    earlier = doc.get("decisions")
    earlier = plain(earlier) if isinstance(earlier, list) else []
    if len(earlier) >= MAX_DECISIONS:
        raise CommandError("too_many_decisions", f"{node_id} already keeps {MAX_DECISIONS} earlier decisions",
                           fix(ctx.cmd("show", node_id), "read them; a person trims old ones by editing the node"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    return {"decisions": [*earlier, plain(current)]}


def _changed(ctx: Ctx, node_id: str, why: str) -> CommandError:
    """The decision is not what the person read: answer nothing (a pull or the asking agent rewrote it)."""
    return CommandError("decision_changed", f"{why}; nothing was recorded",
                        fix(ctx.cmd("show", node_id), "read the decision again, then answer"),
                        exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id))


def decide(ctx: Ctx, node_id: str, option: int, note: str | None = None, expect: str | None = None) -> Result:
    """Record the answer to a node's open decision, then unblock the node: a person's act (a call
    an agent answers, any MCP call and `bulk` through it included, is refused)."""
    if ctx.for_agent:
        raise CommandError("person_only", "answering a decision is a person's act, not an agent's",
                           fix(ctx.cmd("start", next=True, agent=ctx.caller or placeholder("agent")),
                               "take other work while a person answers"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    plan = ctx.plan()
    node = get_node(ctx, node_id, plan)
    decision = node.open_decision
    if decision is None:
        raise CommandError("no_decision", f"{node_id} has no open decision",
                           fix(ctx.cmd("show", node_id), "look at the node"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id))
    options = decision_options(decision)
    if options is None:
        raise CommandError("bad_decision", f"{node_id}'s decision holds no list of options to choose from "
                           f"(options: {str(decision.get('options'))[:60]}); nothing was recorded",
                           fix(ctx.cmd("diagnose", node_id), "a person fixes the node file's options"),
                           exit_code=EXIT_INVALID, category="invalid_plan", source=("node", node_id))
    if not 1 <= option <= len(options):
        raise CommandError("bad_option", f"option {option} is not between 1 and {len(options)}",
                           fix(ctx.cmd("decide", node_id, option=1), "pick one of the listed options"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if expect is not None and expect != options[option - 1]:
        raise _changed(ctx, node_id, f"option {option} of {node_id} now reads {clean(options[option - 1], 300)!r}, "
                       f"not {clean(expect, 300)!r}")
    now = ctx.clock()
    answer = {"option": option, "choice": options[option - 1], "by": ctx.who(), "at": now}
    if note:
        answer["note"] = clean(note, 1000)

    def settle(doc: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        current = open_decision(doc)
        if current is None:
            raise CommandError("already_decided", f"{node_id}'s decision was answered meanwhile",
                               fix(ctx.cmd("show", node_id), "read the answer"),
                               exit_code=EXIT_CONFLICT, category="conflict", source=("node", node_id))
        # as the plan reads it (the loader's YAML, not the round-trip editor's): what decide itself read
        fresh = open_decision(read_node_file(ctx.paths().node_file(node_id)).data or {})
        if fresh is None or fresh.get("question") != decision.get("question") or decision_options(fresh) != options:
            raise _changed(ctx, node_id, f"{node_id}'s question or options were rewritten while it was answered")
        before = plain(current)
        current["answer"] = answer
        return {"decision": (before, plain(current))}

    changes = write(ctx, node, settle)
    record(ctx, "decide", node_id, changes, choice=options[option - 1])
    unblocked = unblock(ctx, node_id)
    status = unblocked.result["status"]
    listed = change_list(node_id, changes) + (unblocked.mutation.changes if unblocked.mutation else [])
    return Result({"id": node_id, "answer": plain(answer), "status": status},
                  next_(ctx.cmd("next"), "the decision is recorded and the node unblocked"),
                  [f"Decided {node_id}: {options[option - 1]}", f"{node_id} → {status}"],
                  Mutation("decide", "decide", True, "answered and unblocked", listed))
