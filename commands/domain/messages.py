"""A person's words waiting for an agent on a task, and their delivery.

`core/views.messages` reads what was said on a node (every decision's answer, unblock notes,
comments), each with an id. This module knows which of them still wait for one agent: the words
not said by that agent itself and not yet delivered to it. A word is delivered when an answer
shows it to the agent that holds the task (it was handed the task, or told to go on with it);
the journal records that as a `delivered` event with the agent and the word ids, so delivery
holds across processes and MCP sessions, and each agent that takes the task gets the words once.

An answer that only shows a task to an agent not holding it (`next` before `start`, the next task
of `complete` that is not yet the agent's) shows the words without delivering them: the agent
that then takes the task is told again.
"""

from __future__ import annotations

import json
from typing import Any

from leafwise.commands.contract import Result, clean
from leafwise.commands.core import views
from leafwise.commands.core.picker import Pick
from leafwise.commands.registry import Ctx
from leafwise.store import CLOSED, Node, Plan, journal
from leafwise.store import claims as leases

DELIVERED = "delivered"  # the journal's command for words shown to the agent that holds the task


def delivery_payload(node_id: str, agent: str, words: list[Any]) -> bytes:
    """What a delivery's seal covers: the node, the agent, the words."""
    return json.dumps([node_id, agent, [str(w) for w in words]], ensure_ascii=False).encode()


def delivered_to(ctx: Ctx, node_id: str) -> dict[str, set[str]]:
    """For each word id on the node, the agents it was delivered to: the journal's `delivered` events
    this machine sealed. The journal is committed, so a clone could plant a delivery of a person's
    word (its id is a hash of its text) and that agent would never see it; a delivery made on
    another machine counts there only (here the agent is told again: never lost, at worst twice)."""
    from leafwise.store import cache

    out: dict[str, set[str]] = {}
    for event in journal.read(ctx.paths(), node=node_id):
        ids, actor = event.get("words"), event.get("actor")
        if event.get("command") == DELIVERED and isinstance(ids, list) and actor and \
                cache.sealed_here(DELIVERED, delivery_payload(node_id, str(actor), ids), event.get("seal")):
            for word in ids:
                out.setdefault(str(word), set()).add(str(actor))
    return out


def _said(node: Node) -> list[dict[str, Any]]:
    # through the module, not a copy of the name: the simulation's self-check replaces it
    return views.messages(node) if node.status not in CLOSED else []


def waiting(ctx: Ctx, node: Node, agent: str | None) -> list[dict[str, Any]]:
    """The words on `node` that wait for `agent` (no agent: every word, none delivered)."""
    words = _said(node)
    if not agent or not words:
        return words
    seen = delivered_to(ctx, node.id)
    return [w for w in words if w["by"] != agent and agent not in seen.get(w["id"], ())]


def history(ctx: Ctx, node: Node, agent: str | None) -> list[dict[str, Any]]:
    """Every word on `node` (closed or not), each marked `delivered` (to `agent`; no agent: to
    anyone) with the agents it reached: what `show` lists."""
    words = views.messages(node)
    seen = delivered_to(ctx, node.id) if words else {}
    out = []
    for word in words:
        reached = sorted(seen.get(word["id"], ()))
        out.append({**word, "delivered": (agent in reached or word["by"] == agent) if agent else bool(reached),
                    "delivered_to": reached})
    return out


def holds(ctx: Ctx, plan: Plan, node: Node, agent: str | None) -> bool:
    """Whether `agent` holds the task now (a live lease, or an in-progress assignment without one)."""
    if not agent:
        return False
    claim = leases.read(ctx.paths(), node.id)
    if claim is not None:
        return claim.agent == agent and not claim.expired(ctx.clock())
    return node.status == "in-progress" and node.assignee == agent


def deliver(ctx: Ctx, node_id: str, agent: str, words: list[dict[str, Any]]) -> None:
    """Journal that `words` reached `agent` (nothing for no words)."""
    if words:
        from leafwise.store import cache

        ids = [w["id"] for w in words]
        journal.append(ctx.paths(), {"actor": agent, "command": DELIVERED, "node": node_id, "words": ids,
                                     "seal": cache.seal_record(DELIVERED, delivery_payload(node_id, agent, ids))})


def carry(ctx: Ctx, plan: Plan, node: Node, view: dict[str, Any], agent: str | None,
          resumed: bool = False) -> list[str]:
    """Put the words waiting for `agent` into the task view's `messages` and answer their text
    lines; delivered (journaled) when the agent holds the task (`resumed`: the picker says so)."""
    words = waiting(ctx, node, agent)
    view["messages"] = words
    if words and agent and (resumed or holds(ctx, plan, node, agent)):
        deliver(ctx, node.id, agent, words)
    return views.message_lines(words, node.id)


def carry_pick(ctx: Ctx, plan: Plan, chosen: Pick, view: dict[str, Any] | None, agent: str | None) -> list[str]:
    """`carry` for the picker's task in an answer's view."""
    if chosen.node is None or view is None:
        return []
    return carry(ctx, plan, plan.nodes.get(chosen.node.id, chosen.node), view, agent, chosen.resumed)


def carry_into(ctx: Ctx, result: Result, node: Node, agent: str | None, key: str = "task") -> Result:
    """The words waiting for `agent` on `node` added to an answer about it (heartbeat, doc): its
    text lines, and `result.result[key]` (the task view, created as {id, title} when absent)."""
    view = result.result.setdefault(key, {"id": node.id, "title": clean(node.title)})
    result.text.extend(carry(ctx, ctx.plan(), node, view, agent))
    return result


def carry_history(ctx: Ctx, plan: Plan, node: Node, view: dict[str, Any], agent: str | None) -> list[str]:
    """`show`: every word on the node in `view["messages"]`, each marked `delivered`, and its text
    lines; the ones not seen yet are delivered now when the agent holds the task."""
    words = history(ctx, node, agent)
    view["messages"] = words
    fresh = [w for w in words if not w["delivered"]]
    if fresh and agent and node.status not in CLOSED and holds(ctx, plan, node, agent):
        deliver(ctx, node.id, agent, fresh)
    return views.message_lines(words, node.id)
