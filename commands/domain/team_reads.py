"""Team mode in the answers that read the claims: `next` and the next task `complete` names fetch the
claims once (bounded: the last copy when the remote does not answer, said so), and a task whose claim
this clone already moved to `done` but whose outcome this branch lacks (`complete` stopped between its
two steps: the ref, then the YAML) is named with the exact call that writes the outcome.

With no `settings.team` every function answers at once, without git. In a clone that never joined
the team (`Team.joined`) nothing is fetched and no claim is read: the read answers from what is here, and
says so (`session.unjoined_words`); a claim step there is refused (`session.not_joined`).
"""

from __future__ import annotations

from typing import Any

from leafwise.commands.contract import NextAction, fix, placeholder, wait
from leafwise.commands.text import plan_words
from leafwise.commands.registry import Ctx
from leafwise.store import Plan


def _team(ctx: Ctx, plan: Plan) -> Any:
    if not plan.project.settings.get("team"):
        return None
    from leafwise.commands.team import session

    return session.team_mode(ctx, plan)


def refresh(ctx: Ctx, plan: Plan) -> str | None:
    """Fetch the claims once before a read (team mode): None when fetched (or team mode is off), else
    the words that say the answer reads this clone's last copy."""
    team = _team(ctx, plan)
    if team is None:
        return None
    from leafwise.commands.team import session

    return session.refreshed(team) if team.joined else session.unjoined_words(ctx)


def claims_read(ctx: Ctx, plan: Plan, stale: str | None) -> str:
    """What a read's `claims` field says it read: "fetched", this clone's "last copy" (the remote did not
    answer), or "not read" in a clone that never joined (it reads no claim at all)."""
    team = _team(ctx, plan)
    if team is not None and not team.joined:
        return "not read"
    return "last copy" if stale else "fetched"


def unfinished(ctx: Ctx, plan: Plan) -> list[tuple[str, str]]:
    """(node id, agent) of this clone's `done` claims whose outcome this branch does not hold."""
    team = _team(ctx, plan)
    if team is None:
        return []
    from leafwise.commands.team import session

    return [(state.node, state.agent) for state in session.unfinished(team, plan)]


def finish_line(ctx: Ctx, node_id: str, holder: str) -> str:
    """The call that writes the outcome: the holder's own `complete` (the remote already says done
    by it, so its `complete` goes straight to the YAML)."""
    return ctx.cmd("complete", node_id, summary=placeholder("summary"), agent=holder)


def unfinished_notes(ctx: Ctx, plan: Plan, agent: str | None) -> tuple[list[str], NextAction | None, list[str]]:
    """The lines naming each unfinished completion, the hint for `agent` when one is its own (the
    outcome comes before any new work), and the ids."""
    found = unfinished(ctx, plan)
    lines = [f"  unfinished: {node_id} is done in {plan_words(holder, 80)}'s claim on the remote, but its outcome "
             f"is not in this branch (complete stopped before writing it): {finish_line(ctx, node_id, holder)}"
             for node_id, holder in found[:10]]
    own = next((node_id for node_id, holder in found if agent and holder == agent), None)
    hint = fix(finish_line(ctx, own, agent), f"write {own}'s outcome: its claim is already done") \
        if own else None
    return lines, hint, [node_id for node_id, _ in found]


def merge_wait(ctx: Ctx, plan: Plan) -> tuple[list[str], NextAction | None]:
    """When nothing is left to hand out here but tasks finished on other clones' branches: the line
    naming them and the `Wait:` for those branches (`merge_wait_for`, over this clone's copies); else
    the claims unreadable or rewound that pass tasks by. ([], None) while a task is held in a claim not
    silent past its TTL: that task is left, and the picker's Wait for its holder is the nearer step (a
    merge Wait there reads as "nothing left", and an agent stops beside a task its dead holder frees)."""
    team = _team(ctx, plan)
    if team is None or not team.joined:
        return [], None
    from leafwise.commands.team import protocol, session

    seen = protocol.snapshot(team)
    if session.held_open(plan, seen):
        return [], None
    found = merge_wait_for(session.done_elsewhere(team, plan, seen))
    return found if found[1] else session.unreadable_wait(ctx, team)


def merge_wait_for(found: list[Any]) -> tuple[list[str], NextAction | None]:
    """The one wording of "done in other clones, waiting for their branches" (`next`, `start --next`,
    `complete` and the canvas's Next bar): `found` the claims `commands.team.status.done_elsewhere`
    gives. `Wait:` instead of a hint that reads the plan as stuck: once merged, the next
    `start --next` (or `team sync`) closes their parents."""
    if not found:
        return [], None
    merged = [s for s in found if getattr(s, "merged", "")]  # canvas --follow: closed on the default branch
    if len(merged) == len(found):
        there = plan_words(merged[0].merged, 80)
        ids = ", ".join(s.node_id for s in found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        return [f"  {len(found)} task(s) are done on {there}, not pulled here: {ids}"], \
            wait(f"a person runs git pull here: {there} has {ids} done, their branches merged there (commit this "
                 "clone's own changes first): what waits on them is free then", "merged, not pulled here")
    names = ", ".join(f"{s.node_id} ({plan_words(s.branch, 60)} in {plan_words(s.clone, 40)})" for s in found[:5])
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    line = (f"  {len(found)} task(s) are done in other clones' claims, on branches not merged here: "
            f"{names}{more}")
    return [line], wait(f"the branches that finished {', '.join(s.node_id for s in found[:5])}{more} are merged "
                        "into this one (whoever merges the agents' branches; then commit this clone's own changes, "
                        "a cascade start --next wrote among them, and git pull here): "
                        "what waits on them is free then", "done in another clone, not merged here")


def added_there_wait(there: str, ids: list[str]) -> NextAction:
    """canvas --follow with nothing left here while the default branch has open work this clone lacks:
    the pull, not `Done.` (the plan here is behind the team's)."""
    named = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
    return wait(f"a person runs git pull here: {plan_words(there, 80)} has {named} open, which this clone "
                "lacks (commit this clone's own changes first)", "added on the default branch, not pulled here")


def claim_refusal(ctx: Ctx, plan: Plan, node_id: str, agent: str | None) -> Any:
    """Team mode: the refusal `start` answers for `node_id` from its claim ref as this clone last fetched
    it (`protocol.refusal`, start's own rule, in start's own words: done or blocked in a claim, unreadable,
    rewound), as a CommandError; None when start would go on to push, or a hold speaks (held by another
    clone: the holds every reader shares already name it)."""
    team = _team(ctx, plan)
    if team is None:
        return None
    from leafwise.commands.team import protocol, session

    if not team.joined:
        return session.not_joined(ctx)  # start refuses there before anything else
    try:
        seen = protocol.snapshot(team, ids={node_id}).get(node_id)
    except session.git.GitError:
        return None
    outcome = protocol.refusal(team, node_id, agent or ctx.person(), seen)
    if outcome is None or outcome.why == "held":
        return None
    return session.lost(ctx, outcome, agent, "start_task", "start")


def lead_reason(reason: str, cause: list[str]) -> str:
    """Why nothing is handed out, as the answer's text leads with it and its `reason` field says it: the
    team's cause (`merge_wait`'s first line) when there is one, else the picker's reason."""
    return cause[0].strip() if cause else reason


def cause_first(lines: list[str], cause: list[str]) -> list[str]:
    """An answer that hands out nothing, led by the team's cause (`merge_wait`'s lines: tasks finished
    on branches not merged here, claims unreadable or rewound) in place of the picker's reason, which
    reads the tasks those claims pass by as merely not ready."""
    if not cause:
        return lines
    return [f"No task to hand out: {lead_reason('', cause)}", *cause[1:], *lines[1:]]


CLAIM_STEPS = ("start", "heartbeat", "complete", "block", "unclaim", "team claim", "team sync", "team repair")


def join_first(ctx: Ctx, outcome: Any) -> Any:
    """A read's answer in a clone that never joined the team: when its hint is a claim step (which
    `session.not_joined` refuses there), the hint is the join, naming the step it frees; every other
    answer as it is. The runner passes every read's answer through it (`commands/runner.py`); without
    `settings.team` it answers at once, importing nothing."""
    from leafwise.commands.contract import Result, next_

    plan = ctx.loaded_plan
    hint = outcome.next_action if isinstance(outcome, Result) else None
    if hint is None or not hint.command or plan is None or not plan.project.settings.get("team"):
        return outcome
    words = hint.command.split()
    if not any(words[1:1 + len(step.split())] == step.split() for step in CLAIM_STEPS):
        return outcome
    from leafwise.commands.team import remote, session

    if remote.settings_of(plan.project.settings) is None or remote.joined(plan.paths.repo):
        return outcome
    outcome.next_action = next_(session.join_line(ctx), f"this clone has not joined the team: {hint.command} is "
                                                       "refused until a person joins it once")
    return outcome


def finished_by_other(ctx: Ctx, plan: Plan, node_id: str, agent: str | None) -> Any:
    """Team mode: `complete` by `agent` of a task this branch already holds done, whose claim (as this
    clone last fetched it) is done by *another* holder: the refusal `complete` answers then (`session.lost`:
    "complete refused: T-7 is done in a11@ci-3's claim"), as a CommandError; None when the claim is the
    agent's own, there is none, or team mode is off. Two agents of one clone share the YAML: a stalled
    holder whose task was taken and finished by the other would otherwise read "already done", a success
    that hides that its work was superseded (seen in bench/team_mcp_trial.py --stall). For
    `finishing.complete`, before its already-done answer."""
    team = _team(ctx, plan)
    if team is None or not team.joined or not agent:
        return None
    from leafwise.commands.team import protocol, refs, session

    try:
        sha, state = protocol.current(team, node_id)
    except session.git.GitError:
        return None
    if sha is None or state is None or state.state != refs.TERMINAL or protocol.mine(team, state, agent):
        return None
    return session.lost(ctx, protocol.Outcome(False, node_id, sha, state, "done"), agent, "complete_task", "complete")
