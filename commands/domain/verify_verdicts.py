"""An agent's verdict on a draft leaf, every quote checked; and a person's decision on a pending one.

`shipped` needs at least one quote from code (not a test, not docs) and closes the leaf through
`complete` (`commands/domain/finishing.py`), the evidence in its summary; with the project setting
`reconcile: {confirm: person}` it waits for a person instead (`verify ID --decide confirm|reject`,
CLI only, never an agent's). `partial` stays draft with what is missing; `absent` is recorded with the
committed blobs of the files it was checked against (its evidence and its packet's files), and the
draft comes back to `verify --next` only when one of them changes.
"""

from __future__ import annotations

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_FAILURE,
    EXIT_INVALID,
    EXIT_USAGE,
    CommandError,
    Mutation,
    Result,
    clean,
    fix,
    next_,
    placeholder,
    wait,
)
from leafwise.commands.domain.nodes import record as journal
from leafwise.commands.domain.verify_quotes import Committed, QuoteRefused, check, parse_place
from leafwise.commands.domain.verify_loop import TOOL, WHOLE_TREE, draft_leaf, packet_for, waits_for_person
from leafwise.commands.registry import Ctx
from leafwise.store import Node
from leafwise.store import verdicts as verdict_files
from leafwise.store import verify_leases
from leafwise.store.locks import locked
from leafwise.store.timestamps import to_text
from leafwise.store.verdicts import Quote, Verdict

SUMMARY_LIMIT = 900
MISSING_LIMIT = 1000
CONFIRM_SETTING = "reconcile"  # settings: {reconcile: {confirm: person}}


def needs_person(ctx: Ctx) -> bool:
    setting = ctx.plan().project.settings.get(CONFIRM_SETTING)
    return isinstance(setting, dict) and setting.get("confirm") == "person"


def _again(ctx: Ctx, node_id: str, agent: str | None) -> str:
    return ctx.cmd("verify", node_id, agent=agent or placeholder("agent"))


def _refused(ctx: Ctx, node_id: str, agent: str | None, exc: QuoteRefused, given: int) -> CommandError:
    return CommandError(
        f"evidence_{exc.code}", f"{exc.message}; nothing was recorded",
        fix(_again(ctx, node_id, agent), "read the packet again and quote the lines as committed "
            "(git add and commit a file first; a quote is checked against HEAD)"),
        exit_code=EXIT_USAGE if exc.code == "bad_place" else EXIT_FAILURE,
        category="usage" if exc.code == "bad_place" else "refused", source=("node", node_id),
        details={"evidence": exc.place, "reason": exc.code, "quotes_given": given})


def _arguments(ctx: Ctx, node_id: str | None, verdict: str, evidence: tuple[str, ...], quote: tuple[str, ...],
               missing: str | None, agent: str | None) -> str:
    """The checks of the words alone (before the plan or git is asked); the node id."""
    who = agent or placeholder("agent")
    if not agent:
        raise CommandError("agent_required", "a verdict is an agent's: name it with --agent",
                           fix(ctx.cmd("verify", node_id or placeholder("node_id"), verdict=verdict, agent=who),
                               "say who verifies"), exit_code=EXIT_USAGE, category="usage")
    if not node_id:
        raise CommandError("missing_node", "a verdict names the draft leaf it is on",
                           fix(ctx.cmd("verify", next=True, agent=who), "take the next draft to verify"),
                           exit_code=EXIT_USAGE, category="usage")
    if len(evidence) != len(quote):
        raise CommandError("unpaired_evidence", f"{len(evidence)} --evidence and {len(quote)} --quote: each "
                           "--evidence PATH:START-END takes the --quote of those lines",
                           fix(_again(ctx, node_id, agent), "give one --quote after each --evidence"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if len(evidence) > verdict_files.MAX_QUOTES:
        raise CommandError("too_much_evidence", f"at most {verdict_files.MAX_QUOTES} pieces of evidence",
                           fix(_again(ctx, node_id, agent), "keep the lines that decide it"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if verdict == "shipped" and not evidence:
        raise CommandError("evidence_required", "shipped needs evidence: --evidence PATH:START-END --quote TEXT",
                           fix(_again(ctx, node_id, agent), "quote the code that does it"),
                           exit_code=EXIT_USAGE, category="usage", source=("node", node_id))
    if verdict == "partial" and not (missing or "").strip():
        raise CommandError("missing_required", "partial needs --missing: what is not there yet",
                           fix(ctx.cmd("verify", node_id, verdict="partial", missing=placeholder("text"), agent=who),
                               "say what is missing"), exit_code=EXIT_USAGE, category="usage",
                           source=("node", node_id))
    return node_id


def _checked(ctx: Ctx, node_id: str, evidence: tuple[str, ...], quote: tuple[str, ...], agent: str | None
             ) -> tuple[Committed, list[Quote]]:
    try:
        places = [parse_place(e) for e in evidence]
        committed = Committed(ctx.paths().repo)
        return committed, [check(committed, p, q) for p, q in zip(places, quote)]
    except QuoteRefused as exc:
        raise _refused(ctx, node_id, agent, exc, len(evidence)) from None


def _not_theirs(ctx: Ctx, node: Node, agent: str) -> None:
    """Refuse a verdict on a draft another agent is verifying (its live lease)."""
    lease = verify_leases.read(ctx.paths(), node.id)
    if lease is not None and lease.agent != agent and not lease.expired(ctx.clock()):
        raise CommandError("held_by_other_agent", f"{node.id} is being verified by {clean(lease.agent, 80)} "
                           f"until {lease.expires}",
                           wait(f"{clean(lease.agent, 80)} records its verdict or the lease lapses at {lease.expires}",
                                "two agents never verify one draft", or_=ctx.cmd("verify", next=True, agent=agent)),
                           exit_code=EXIT_CONFLICT, category="held_by_other_agent", source=("node", node.id))


def _not_pending(ctx: Ctx, node: Node, agent: str) -> None:
    """Refuse a verdict on a draft whose shipped verdict waits for a person: theirs is the next word."""
    said = verdict_files.read(ctx.paths(), node.id)
    if waits_for_person(ctx, said):
        assert said is not None
        raise CommandError("verdict_pending", f"{node.id} was verified shipped by {clean(said.agent, 80)}; a person "
                           "confirms or rejects it first",
                           wait(f"a person confirms or rejects the shipped verdict on {node.id}",
                                "a verdict waiting for a person is not replaced",
                                or_=ctx.cmd("verify", next=True, agent=agent)),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id))


def record(ctx: Ctx, node_id: str | None, verdict: str, evidence: tuple[str, ...], quote: tuple[str, ...],
           missing: str | None, agent: str | None) -> Result:
    """Check every quote, then record the verdict (and close a shipped leaf, or leave it to a person)."""
    node_id = _arguments(ctx, node_id, verdict, evidence, quote, missing, agent)
    assert agent is not None
    node = draft_leaf(ctx, node_id)
    _not_theirs(ctx, node, agent)
    _not_pending(ctx, node, agent)
    committed, quotes = _checked(ctx, node.id, evidence, quote, agent)
    if verdict == "shipped" and not _from_code(quotes):
        kinds = ", ".join(sorted({q.kind for q in quotes}))
        raise CommandError("evidence_not_code", f"shipped needs a quote from code; these are from {kinds} only "
                           "(docs and tests say what should be, code says what is); nothing was recorded",
                           fix(_again(ctx, node.id, agent), "quote the code that does it, or record partial"),
                           exit_code=EXIT_FAILURE, category="refused", source=("node", node.id))
    checked = [q.path for q in quotes]
    if verdict != "shipped":  # what a later change must touch for the draft to come back
        checked += _packet_files(ctx, node)
    files = committed.blob_ids(checked) or {WHOLE_TREE: committed.tree()}
    pending = verdict == "shipped" and needs_person(ctx)
    state = "pending" if pending else "closed" if verdict == "shipped" else "recorded"
    said = Verdict(node.id, verdict, agent, to_text(ctx.clock()), committed.head, state, tuple(quotes),
                   clean(missing, MISSING_LIMIT) if missing else "", files)
    if state == "closed":
        return _close(ctx, node, said)
    return _keep(ctx, node, said)


def _from_code(quotes: list[Quote] | tuple[Quote, ...]) -> bool:
    """The rule of a shipped verdict: at least one of its quotes is from code."""
    return any(q.kind == "code" for q in quotes)


def _still_holds(ctx: Ctx, node: Node, said: Verdict) -> None:
    """Check a waiting verdict's quotes again against this clone's last commit before a person
    confirms it: the verdict file is plan content (a clone or a pull brings it), so what it says was
    checked elsewhere, or never, proves nothing here."""
    see = ctx.cmd("verify", node.id)  # rejecting is the person's own act: no hint carries --decide
    try:
        committed = Committed(ctx.paths().repo)
        # each place through the rule an agent's --evidence meets (a planted `../../etc/passwd` or `/abs` made
        # git ls-tree fail: an internal error)
        quotes = [check(committed, parse_place(f"{q.path}:{q.start}-{q.end}"), q.text) for q in said.quotes]
    except QuoteRefused as exc:
        raise CommandError("verdict_unverified", f"{node.id}'s shipped verdict does not hold in this clone: {exc}; "
                           "it was not confirmed", fix(see, "see it; reject it (--decide reject: the leaf is verified "
                                                    "again), or pull the commit it was checked against"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id)) from None
    if not _from_code(quotes):
        raise CommandError("verdict_unverified", f"{node.id}'s shipped verdict does not hold in this clone: it quotes no "
                           "code; it was not confirmed",
                           fix(see, "see it; reject it (--decide reject): the leaf is verified again"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id))


def _packet_files(ctx: Ctx, node: Node) -> list[str]:
    """The packet's files (none when it cannot be built in time: then HEAD's whole tree stands for them)."""
    try:
        return [p.path for p in packet_for(ctx, node).places if p.kind != "commit"]
    except CommandError:
        return []


def _store(ctx: Ctx, said: Verdict) -> None:
    paths = ctx.paths()
    with locked(paths, verify_leases.LOCK):
        verdict_files.write(paths, said)
        verify_leases.remove(paths, said.node)
    journal(ctx, "verify", said.node, {}, actor=said.agent, verdict=said.verdict, state=said.state,
            evidence=[q.place for q in said.quotes][:8], missing=said.missing or None, head=said.head[:12])


def summary_of(said: Verdict) -> str:
    quotes = "; ".join(f"{q.place} “{clean(q.text, 120)}”" for q in said.quotes[:4])
    return clean(f"verified by {said.agent}: shipped at {said.head[:10]}; {quotes}", SUMMARY_LIMIT)


def _quote_lines(said: Verdict) -> list[str]:
    from leafwise.commands.text import inert_line

    return [inert_line(f"  {q.kind:5} {clean(q.place, 120)} “{clean(q.text, 100)}” (checked at {said.head[:10]})")
            for q in said.quotes]


def _close(ctx: Ctx, node: Node, said: Verdict) -> Result:
    from leafwise.commands.domain.finishing import complete

    try:
        done = complete(ctx, node.id, summary_of(said), said.agent)
    except CommandError as exc:  # an open dependency, an invalid plan, a cycle's gate: the evidence is kept
        if exc.exit_code not in (EXIT_CONFLICT, EXIT_INVALID):
            raise
        return _keep(ctx, node, _decided(said, "pending", "", f"complete refused: {exc.message}"[:500]))
    _store(ctx, said)
    cascade = done.result.get("cascade", [])
    lines = [f"Verified {node.id} “{clean(node.title)}” shipped and completed it ({len(said.quotes)} quote(s) "
             "checked against the last commit)"] + _quote_lines(said)
    lines += [f"  cascade: {c['id']} {c['from']} → {c['to']}" for c in cascade]
    changes = done.mutation.changes if done.mutation else []
    return Result({"id": node.id, "verdict": said.as_dict(), "completed": True, "summary": done.result.get("summary"),
                   "cascade": cascade},
                  next_(ctx.cmd("verify", next=True, agent=said.agent), "the next draft to verify"), lines,
                  Mutation(TOOL, "shipped", True, "verified and completed", changes))


def _keep(ctx: Ctx, node: Node, said: Verdict) -> Result:
    _store(ctx, said)
    if said.state == "pending":
        why = clean(said.note, 300) if said.note else "settings reconcile.confirm: person"
        head = f"Verified {node.id} “{clean(node.title)}” shipped; it waits for a person's confirmation ({why})"
    elif said.verdict == "partial":
        head = f"Recorded {node.id} “{clean(node.title)}” as partial; it stays draft, missing: {clean(said.missing, 200)}"
    else:
        head = (f"Recorded {node.id} “{clean(node.title)}” as absent; verify --next offers it again when one of the "
                f"{len(said.files)} file(s) it was checked against changes")
    return Result({"id": node.id, "verdict": said.as_dict(), "completed": False},
                  next_(ctx.cmd("verify", next=True, agent=said.agent), "the next draft to verify"),
                  [head] + _quote_lines(said),
                  Mutation(TOOL, said.verdict, True, f"{said.verdict} recorded ({said.state})",
                           [{"id": node.id, "field": "verdict", "from": None, "to": said.verdict}]))


def decide(ctx: Ctx, node_id: str | None, decision: str, note: str | None, agent: str | None) -> Result:
    """A person confirms (the leaf is completed) or rejects a shipped verdict that waits for them.

    The canvas runs this as the person at the keyboard: its `agent` is the surface's actor, which
    `Ctx.answers` reads as no agent, so only a call an agent answers is refused."""
    if ctx.answers(agent) or ctx.for_agent:
        who = ctx.answers(agent) or ctx.caller
        raise CommandError("person_only", "confirming a verdict is a person's decision, not an agent's",
                           fix(ctx.cmd("verify", next=True, agent=who), "go on verifying"),
                           exit_code=EXIT_USAGE, category="usage")
    if not node_id:
        raise CommandError("missing_node", "--decide names the draft leaf whose verdict it decides",
                           fix(ctx.cmd("list", status="draft"), "find the draft"),
                           exit_code=EXIT_USAGE, category="usage")
    node = draft_leaf(ctx, node_id)
    said = verdict_files.read(ctx.paths(), node.id)
    if said is None or said.state != "pending":
        raise CommandError("no_pending_verdict", f"{node.id} has no shipped verdict waiting for a person",
                           fix(ctx.cmd("verify", node.id), "see its packet and verdict"),
                           exit_code=EXIT_CONFLICT, category="conflict", source=("node", node.id))
    person = ctx.person()
    text = clean(note, 500) if note else ""
    if decision == "confirm":
        _still_holds(ctx, node, said)
        return _confirm(ctx, node, said, person, text)
    decided = _decided(said, "rejected", person, text)
    verdict_files.write(ctx.paths(), decided)
    journal(ctx, "verify", node.id, {}, actor=person, decision=decision, verdict=said.verdict, note=text or None)
    lines = [f"Rejected the shipped verdict on {node.id} “{clean(node.title)}”; it stays draft"
             + (f" (note for the agent: {text})" if text else "")]
    # no node field changed: the verdict file is bookkeeping, which an undo must not try to write back
    return Result({"id": node.id, "decision": decision, "verdict": decided.as_dict()},
                  next_(ctx.cmd("verify", node.id), "it stays draft; verify --next offers it again when its code "
                        "changes"), lines, Mutation(TOOL, decision, True, f"rejected by {person}", []))


def _confirm(ctx: Ctx, node: Node, said: Verdict, person: str, note: str) -> Result:
    """Complete the leaf with the agent's evidence and the person's name; the cascade as `complete` did it."""
    from leafwise.commands.domain.finishing import complete

    done = complete(ctx, node.id, clean(summary_of(said) + f"; confirmed by {person}" + (f": {note}" if note else ""),
                                        SUMMARY_LIMIT))
    decided = _decided(said, "closed", person, note)
    verdict_files.write(ctx.paths(), decided)
    journal(ctx, "verify", node.id, {}, actor=person, decision="confirm", verdict=said.verdict, note=note or None)
    cascade = done.result.get("cascade", [])
    lines = [f"Confirmed {node.id} “{clean(node.title)}” shipped (verified by {clean(said.agent, 80)}); completed"]
    lines += [f"  cascade: {c['id']} {c['from']} → {c['to']}" for c in cascade]
    changes = done.mutation.changes if done.mutation else []
    return Result({"id": node.id, "decision": "confirm", "verdict": decided.as_dict(), "cascade": cascade},
                  done.next_action, lines, Mutation(TOOL, "confirm", True, f"confirmed by {person}", changes))


def _decided(said: Verdict, state: str, person: str, note: str) -> Verdict:
    return Verdict(said.node, said.verdict, said.agent, said.at, said.head, state, said.quotes, said.missing,
                   said.files, person, note)
