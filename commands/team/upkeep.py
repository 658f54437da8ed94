"""`leafwise team sync` (fetch, push the offline claims, close the parents whose children were finished
in clones merged here, clean old tombstones) and `leafwise team repair`
(claim refs a force-push or `push --mirror` deleted, or a force-push rewound, restored from this clone's
remote-tracking copies)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leafwise.commands.contract import EXIT_CONFLICT, CommandError, Mutation, Result, clean, fix, next_
from leafwise.commands.registry import Ctx
from leafwise.commands.team import branch as state_branch
from leafwise.commands.team import offline, protocol, refs, remote, rewinds
from leafwise.commands.team.commands import error_for, team_of
from leafwise.commands.team.unreadable import unreadable_step
from leafwise.commands.team.refs import Verdict
from leafwise.commands.team.remote import TeamError
from leafwise.commands.text import plan_words
from leafwise.store import Status

GRACE_DAYS = 7.0  # a done claim stays this long (as observed here) after its task is done in this branch


def sync(ctx: Ctx, grace_days: float = GRACE_DAYS) -> Result:
    """Fetch the claims, push this clone's offline claims create-only, close the parents owed their
    cascade (children finished in other clones, merged here), and delete the tombstones of
    tasks done in this branch for longer than `grace_days` (each delete leased on the SHA seen)."""
    team = team_of(ctx, writes=True)
    try:
        seen = protocol.snapshot(team, remote.fetch(team.root, team))
        pushed = offline.push_all(team, seen)
    except TeamError as exc:
        raise error_for(ctx, exc, team, None) from exc
    plan = ctx.plan()
    old = [item for item in seen.values() if item.state is not None and item.state.state == "done"
           and item.unchanged_s > grace_days * 86400 and item.node in plan.nodes
           and plan.nodes[item.node].status == Status.DONE]
    try:
        cleaned = _clean(team, old)
    except TeamError as exc:
        raise error_for(ctx, exc, team, None) from exc
    from leafwise.commands.domain.owed_cascades import close_owed  # children finished in clones merged here

    closed = close_owed(ctx, plan, "cascade", why="every child is closed")
    lost = [p for p in pushed if not p.won]
    lines = [f"Fetched {len(seen)} claim(s) from {team.remote}"]
    lines += [f"  cascade: {c['id']} “{clean(c['title'], 120)}” {c['from']} → {c['to']} (every child is closed)"
              for c in closed]
    lines += [f"  pushed the offline claim on {p.node} for {clean(p.agent, 80)}" for p in pushed if p.won]
    lines += [f"  LOST {p.node}: {clean(p.holder, 120)} took it first; {clean(p.agent, 80)} must stop working on it"
              for p in lost]
    if cleaned:
        lines.append(f"  cleaned {len(cleaned)} tombstone(s) done here for over {grace_days:g} days: "
                     + ", ".join(cleaned[:20]))
    data = {"claims": len(seen), "pushed": [p.node for p in pushed if p.won],
            "lost": [{"id": p.node, "agent": p.agent, "holder": p.holder} for p in lost], "cleaned": cleaned,
            "closed": closed}
    mutation = Mutation("team_sync", "team sync", bool(pushed or cleaned or closed), "synced",
                        [{"id": c["id"], "field": "status", "from": c["from"], "to": c["to"]} for c in closed])
    if lost:
        first = lost[0]
        raise CommandError("lease_lost", f"{first.node} was claimed by {plan_words(first.holder, 120)} while {first.agent} was "
                           "offline: stop working on it", fix(ctx.cmd("start", agent=first.agent, next=True),
                                                              "take another task"),
                           exit_code=EXIT_CONFLICT, category="held_by_other_agent", source=("node", first.node),
                           details=data, text=lines, mutation=mutation)
    return Result(data, next_(ctx.cmd("team status"), "see who holds what"), lines, mutation)


def _clean(team: remote.Team, old: list[protocol.Remote]) -> list[str]:
    """Delete the tombstones `old`, each leased on the SHA seen (branch mode: their files, in one
    commit leased on the tip); the ids deleted."""
    if team.mode == "branch":
        verdict, dropped = state_branch.drop(team, {item.node: item.sha for item in old},
                                             lambda: remote.fetch(team.root, team), remote.identity(team.root))
        if verdict == "refused":
            raise TeamError(f"{team.remote} refused a push to {team.state_branch}", "refused")
        return dropped
    cleaned = []
    for item in old:
        ref = refs.claim_ref(team.namespace, item.node)
        if refs.push(team.root, team.url, [(ref, None, item.sha)]).verdict is Verdict.APPLIED:
            _dropped(team, ref, item.sha)
            cleaned.append(item.node)
    return cleaned


def _dropped(team: remote.Team, ref: str, sha: str) -> None:
    """A leased delete of `ref` (at `sha`) landed: its copy goes, and its chain is retired (rewinds.py)."""
    tracking = refs.tracking_ref(team.remote, team.namespace, ref)
    refs.set_local(team.root, tracking, None)
    rewinds.retire(team.root, remote.team_dir(team.root), tracking, sha)


def _nested(team: remote.Team) -> dict[str, str]:
    """Refs mode: the remote's refs nested under a claim's name (`remote.nested_on_remote`)."""
    return {} if team.mode == "branch" else remote.nested_on_remote(team)


def missing(team: remote.Team) -> dict[str, str]:
    """Claim refs this clone has copies of that the remote no longer has: ref -> the copy's SHA
    (branch mode: the state branch itself, when the remote lost it)."""
    if team.mode == "branch":
        try:
            return state_branch.gone(team)
        except refs.git.GitError as exc:
            raise TeamError(f"remote unreachable ({team.remote}): {exc}", "unreachable") from exc
    answer = remote.ask(team, "ls-remote", "--", team.url, f"{team.namespace}/*")
    if answer.code != 0:
        raise TeamError(f"remote unreachable ({team.remote}): "
                        f"{answer.err.decode('utf-8', 'replace').strip()[:200]}", "unreachable")
    there = {line.partition("\t")[2] for line in answer.out.decode("utf-8", "replace").splitlines()}
    copies = refs.local_refs(team.root, team.tracking_prefix + "claims/")
    out = {}
    for tracking, sha in copies.items():
        ref = f"{team.namespace}/{tracking.removeprefix(team.tracking_prefix)}"
        if ref not in there:
            out[ref] = sha
    return out


def repair(ctx: Ctx, dry_run: bool = False) -> Result:
    """Re-create, create-only, every claim ref the remote lost whose copy parses as a claim of one of
    this plan's tasks, tombstones (done) first; drop every other lost copy (never pushed); and, in a
    person's call, delete the remote's claims that cannot be read (each leased on its SHA)."""
    team = team_of(ctx, writes=True)
    try:
        lost = missing(team)
        rewound = {} if team.mode == "branch" else _rewound_refs(team)
    except TeamError as exc:
        raise error_for(ctx, exc, team, None) from exc
    if team.mode == "branch":
        return _repair_branch(ctx, team, lost, dry_run)
    unwound = _unwind(team, rewound, dry_run)
    found = _sort_copies(team, set(ctx.plan().nodes), lost)
    person = ctx.overrides(True)  # deleting a claim ref is a person's act, never an agent's
    restored, failed, cleared = [], [], []
    why: dict[str, str] = {}
    nested = _nested(team)  # first: each holds the place of a claim ref restored below
    for ref, sha in nested.items() if person and not dry_run else ():
        answer = refs.push(team.root, team.url, [(ref, None, sha)])
        why[ref] = "deleted" if answer.verdict is Verdict.APPLIED else answer.detail or answer.verdict.value
    for node, sha in found.restore if not dry_run else ():
        answer = refs.push(team.root, team.url, [(refs.claim_ref(team.namespace, node), sha, None)])
        (restored if answer.verdict is Verdict.APPLIED else failed).append(node)
    for tracking in found.drop if not dry_run else ():
        refs.set_local(team.root, tracking, None)
    for node, sha in found.unreadable if person and not dry_run else ():
        answer = refs.push(team.root, team.url, [(refs.claim_ref(team.namespace, node), None, sha)])
        if answer.verdict is Verdict.APPLIED:
            _dropped(team, refs.claim_ref(team.namespace, node), sha)
            cleared.append(node)
        elif answer.verdict is Verdict.REFUSED:
            why[node] = answer.detail
    result = _repair_answer(ctx, team, found, dry_run, person, restored, failed, cleared, why, nested)
    return _with_unwound(ctx, team, result, unwound, dry_run)


def _rewound_refs(team: remote.Team) -> dict[str, dict[str, str]]:
    """The claim refs a force-push rewound, as a fetch now finds them (rewinds.py)."""
    remote.fetch(team.root, team)
    return protocol.rewound(team)


def _unwind(team: remote.Team, rewound: dict[str, dict[str, str]], dry_run: bool) -> dict[str, str]:
    """Put back each rewound claim ref (rewinds.restore): node id -> what became of it."""
    if dry_run:
        return {node: "would restore" for node in rewound}
    who, folder = remote.identity(team.root), remote.team_dir(team.root)
    return {node: rewinds.restore(team, node, seen["seen"], seen["remote"], who, folder)
            for node, seen in sorted(rewound.items())}


UNWOUND_WORDS = {"restored": "restored {n}: rewound on {remote} by a force-push, the claim this clone last saw is back",
                 "kept": "kept {n} as {remote} has it: a clone acted on it after the rewind",
                 "lost": "not restored {n}: it moved again on {remote}; run team repair again",
                 "refused": "not restored {n}: {remote} refused the push",
                 "would restore": "would restore {n}: rewound on {remote} by a force-push"}


def _with_unwound(ctx: Ctx, team: remote.Team, result: Result, unwound: dict[str, str], dry_run: bool) -> Result:
    """The rewound refs in repair's answer: a line each, `restored`/`kept_remote` in its data."""
    if not unwound:
        return result
    result.text[1:1] = [f"  {UNWOUND_WORDS[what].format(n=n, remote=team.remote)}" for n, what in unwound.items()]
    data = result.result
    data["rewound"] = sorted(unwound)
    data["restored"] = sorted(data["restored"] + [n for n, what in unwound.items() if what == "restored"])
    data["kept_remote"] = [n for n, what in unwound.items() if what == "kept"]
    if dry_run:
        result.next_action = next_(ctx.cmd("team repair"), "restore, drop and delete as listed")
    elif any(what in ("lost", "refused") for what in unwound.values()):
        result.next_action = next_(ctx.cmd("team status"), "see what moved since")
    if result.mutation is not None and any(what in ("restored", "kept") for what in unwound.values()):
        result.mutation.applied = True
    return result


@dataclass(frozen=True, slots=True)
class _Sorted:
    restore: list[tuple[str, str]]  # (node, sha): lost on the remote, a claim of this plan's task here
    drop: list[str]  # tracking refs: lost on the remote, and no claim of this plan's tasks
    unreadable: list[tuple[str, str]]  # (node, sha): on the remote, a task of this plan, its claim unreadable


def _sort_copies(team: remote.Team, ids: set[str], lost: dict[str, str]) -> _Sorted:
    """This clone's copies, sorted through the one claim parser (`refs.read_commits`): a ref whose name is
    not one of `ids` is never read."""
    prefix = team.tracking_prefix + "claims/"
    copies = refs.local_refs(team.root, prefix)
    named = {tracking: tracking[len(prefix):] for tracking in copies}
    states = refs.read_commits(team.root, {n: copies[t] for t, n in named.items() if n in ids})
    gone = {refs.tracking_ref(team.remote, team.namespace, ref) for ref in lost}
    good = {t for t, n in named.items() if n in ids and states.get(n) is not None}
    restore = sorted(((named[t], copies[t]) for t in gone & good),
                     key=lambda item: (0 if (states.get(item[0]) or _NONE).state == "done" else 1, item[0]))
    unreadable = sorted((n, copies[t]) for t, n in named.items() if t not in gone and n in ids and t not in good)
    return _Sorted(restore, sorted(gone - good), unreadable)


def _repair_answer(ctx: Ctx, team: remote.Team, found: _Sorted, dry_run: bool, person: bool,
                   restored: list[str], failed: list[str], cleared: list[str],
                   why: dict[str, str] | None = None, nested: dict[str, str] | None = None) -> Result:
    prefix = team.tracking_prefix + "claims/"
    dropped = [plan_words(t[len(prefix):], 80) for t in found.drop]
    lines = [f"{len(found.restore) + len(found.drop)} claim ref(s) missing on {team.remote}"
             + (" (dry run: nothing pushed)" if dry_run else "")]
    lines += [f"  restored {n}" for n in restored] + [f"  not restored {n}: it exists again" for n in failed]
    lines += [f"  would restore {n}" for n, _ in found.restore] if dry_run else []
    lines += [f"  {'would drop' if dry_run else 'dropped'} {n}: this clone's copy is no readable claim of a task of this plan"
              for n in dropped]
    lines += [f"  {'deleted' if n in cleared else 'unreadable'} {n}: its claim on {team.remote} cannot be read"
              + (f"; not deleted: {plan_words((why or {})[n], 300)}" if n in (why or {}) else "")
              for n, _ in found.unreadable]
    for ref in nested or {}:
        said = (why or {}).get(ref)
        done_word = "deleted" if said == "deleted" else "would delete" if dry_run or not person else "not deleted"
        lines.append(f"  {done_word} {plan_words(ref, 200)}: no claim is named with a '/'; it holds the place of the "
                     "claim it sits under" + (f" ({plan_words(said, 200)})" if said and said != "deleted" else ""))
    left = [n for n, _ in found.unreadable if n not in cleared]
    data: dict[str, Any] = {"missing": [n for n, _ in found.restore], "restored": restored, "skipped": failed,
                            "dropped": dropped, "unreadable": left, "deleted": cleared}
    data["nested"] = sorted(nested or {})
    if (left or nested) and not person:
        hint = unreadable_step(ctx)
    elif dry_run and (found.restore or found.drop or left or nested):
        hint = next_(ctx.cmd("team repair"), "restore, drop and delete as listed")
    else:
        hint = next_(ctx.cmd("team status"), "see who holds what")
    done = bool(restored or cleared or (found.drop and not dry_run) or "deleted" in (why or {}).values())
    return Result(data, hint, lines, Mutation("team_repair", "team repair", done, "repaired"))


def _repair_branch(ctx: Ctx, team: remote.Team, lost: dict[str, str], dry_run: bool) -> Result:
    """Branch mode: push this clone's copy of the state branch back, create-only, when the remote lost it;
    put it back on top of the remote's tip when a force-push rewound it."""
    seen = None if lost else _rewound(ctx, team)
    claims = sorted(ref.rsplit("/", 1)[1] for ref in team.copies()) if lost or seen else []
    kept: list[str] = []
    if lost:
        restored = not dry_run and all(refs.push(team.root, team.url, [(ref, tip, None)]).verdict is Verdict.APPLIED
                                       for ref, tip in lost.items())
    else:
        verdict, kept = ("", []) if not seen or dry_run else \
            state_branch.restore(team, seen, remote.identity(team.root), remote.team_dir(team.root))
        restored = verdict == "won"
    where = f"the state branch {team.state_branch}"
    lines = [f"{where} is missing on {team.remote}, with {len(claims)} claim(s)" if lost else
             f"{where} was rewound on {team.remote} (a force-push); this clone's copy has {len(claims)} claim(s)"
             if seen else f"{where} is on {team.remote}: nothing to restore"]
    if lost or seen:
        lines.append("  dry run: nothing pushed" if dry_run else
                     "  restored from this clone's copy" if restored else "  not restored: it moved again")
    lines += [f"  {n}: kept as the remote has it (changed there after the rewind)" for n in kept]
    data: dict[str, Any] = {"missing": claims, "restored": claims if restored else [], "rewound": bool(seen),
                            "kept_remote": kept,
                            "skipped": claims if (lost or seen) and not dry_run and not restored else []}
    hint = next_(ctx.cmd("team repair"), "restore it") if dry_run and (lost or seen) else \
        next_(ctx.cmd("team status"), "see who holds what")
    return Result(data, hint, lines, Mutation("team_repair", "team repair", restored, "repaired"))


def _rewound(ctx: Ctx, team: remote.Team) -> str | None:
    """The last tip this clone saw of a state branch the remote has rewound, as a fetch finds it now."""
    try:
        remote.fetch(team.root, team)
    except TeamError as exc:
        raise error_for(ctx, exc, team, None) from exc
    return state_branch.rewound_from(team, remote.team_dir(team.root))


class _None:
    state = ""


_NONE = _None()
