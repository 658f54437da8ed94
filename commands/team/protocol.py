"""The claim protocol on the remote: claim, heartbeat, finish, steal, release, each one compare-and-swap.

- claim: create-only push of `held(me)` (no ref yet), or a child of a `released` state leased on its SHA;
- heartbeat: a child `held(me)` leased on my last SHA; a rejection means the lease is lost;
- finish: `done(me)` on the same ref, leased on my SHA: terminal, never deleted and re-created;
- steal: a child `held(me, stolen_from=them)` leased on their SHA, only once *this machine* has seen
  that SHA unchanged for longer than the claim's TTL (observations.py; no other clock is read);
- an unknown outcome (the transport failed mid-push) is settled by a re-fetch: the ref at my new SHA
  is success, anything else is a loss;
- a ref a force-push rewound (rewinds.py) takes no step until `team repair` puts it back.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from leafwise.commands.team import branch as state_branch
from leafwise.commands.team import observations, refs, rewinds
from leafwise.commands.team.refs import ClaimState, Verdict
from leafwise.commands.team.remote import Team, TeamError, branch, clone_id, fetch, identity, nested_on_remote, team_dir
from leafwise.store.ids import is_node_id


@dataclass(frozen=True, slots=True)
class Remote:
    """A task's claim as this clone last saw it: its ref, SHA and state (None: unreadable), and how long
    this machine has seen that SHA unchanged."""

    node: str
    sha: str
    state: ClaimState | None
    unchanged_s: float

    @property
    def stale(self) -> bool:
        """Held, and silent here for longer than its TTL: another clone may take it."""
        return self.state is not None and self.state.state == "held" and self.unchanged_s > self.state.ttl_s


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a protocol step did: `won` (the ref is at `sha` now), else why not and who holds it."""

    won: bool
    node: str
    sha: str | None = None
    state: ClaimState | None = None  # the state now on the ref (mine when won; the other's when lost)
    why: str = ""  # "held", "done", "blocked", "lost", "unreadable", "nested" when not won
    stolen_from: str = ""


def snapshot(team: Team, copies: dict[str, str] | None = None, ids: Collection[str] | None = None
             ) -> dict[str, Remote]:
    """Every claim this clone knows of (its remote-tracking copies, or `copies` of a fetch just made);
    with `ids` (the plan's node ids), only the claims of those: no other ref is read."""
    if copies is None:
        copies = team.copies()
    prefix = team.tracking_prefix + "claims/"
    by_node = {ref[len(prefix):]: sha for ref, sha in copies.items() if ref.startswith(prefix)
               and (ref[len(prefix):] in ids if ids is not None else is_node_id(ref[len(prefix):]))}
    if ids is None and team.ids is not None:
        by_node = {node: sha for node, sha in by_node.items() if node in team.ids}
    # a ref name from the remote is untrusted: only node ids (of this plan, when known)
    states = refs.read_commits(team.root, by_node, blobs=team.mode == "branch")
    folder = team_dir(team.root)
    sightings = observations.load(folder)
    return {node: Remote(node, sha, states.get(node),
                         observations.unchanged_for(folder, prefix + node, sha, sightings=sightings))
            for node, sha in by_node.items()}



def _ref(team: Team, node_id: str) -> tuple[str, str]:
    ref = refs.claim_ref(team.namespace, node_id)
    return ref, refs.tracking_ref(team.remote, team.namespace, ref)


def _cas(team: Team, node_id: str, state: ClaimState, lease: str | None, stolen_from: str = "",
         again: bool = True) -> Outcome:
    """Push `state` as a child of `lease` (None: create-only) and read the verdict; a lease the remote
    has replaced by a commit holding the very same claim (`team repair` put it back over a rewind) is
    taken on that commit, once."""
    if team.mode == "branch":
        return _cas_branch(team, node_id, state, lease, stolen_from)
    ref, tracking = _ref(team, node_id)
    sha = refs.make_commit(team.root, state, lease, identity(team.root))
    answer = refs.push(team.root, team.url, [(ref, sha, lease)])
    if answer.verdict is Verdict.APPLIED:
        refs.set_local(team.root, tracking, sha)
        return Outcome(True, node_id, sha, state, stolen_from=stolen_from)
    if answer.verdict is Verdict.REFUSED:
        raise TeamError(f"{team.remote} refused {ref}: {answer.detail}", "refused")
    copies = fetch(team.root, team)  # rejected: learn who has it; unknown: did mine land?
    now = copies.get(tracking)
    if now == sha:
        return Outcome(True, node_id, sha, state, stolen_from=stolen_from)
    if lease is not None and now == lease:  # refused on a lease the remote no longer has: gone, or rewound
        return Outcome(False, node_id, now, None, "rewound" if node_id in rewound(team) else "missing")
    if lease is None and now is None and any(name.startswith(ref + "/") for name in nested_on_remote(team)):
        return Outcome(False, node_id, None, None, "nested")  # `claims/<ID>/x` holds the place of `claims/<ID>`
    other = refs.read_commit(team.root, now, node_id) if now else None
    if again and lease is not None and now and other is not None and other == refs.read_commit(team.root, lease, node_id):
        return _cas(team, node_id, state, now, stolen_from, again=False)
    return Outcome(False, node_id, now, other, "lost")


def _cas_branch(team: Team, node_id: str, state: ClaimState, lease: str | None, stolen_from: str) -> Outcome:
    verdict, blob, detail = state_branch.cas(team, node_id, state, lease, lambda: fetch(team.root, team),
                                             identity(team.root))
    if verdict == "refused":
        raise TeamError(f"{team.remote} refused {state_branch.tip_ref(team.state_branch)}: {detail}", "refused")
    if verdict == "won":
        return Outcome(True, node_id, blob, state, stolen_from=stolen_from)
    if verdict == "missing":
        return Outcome(False, node_id, lease, None, "missing")
    other = refs.read_commits(team.root, {node_id: blob}, blobs=True).get(node_id) if blob else None
    return Outcome(False, node_id, blob, other, "lost")


def current(team: Team, node_id: str) -> tuple[str | None, ClaimState | None]:
    """The claim on `node_id` as this clone last saw it: its SHA (branch mode: its file's blob) and state."""
    prefix = team.tracking_prefix + "claims/"
    sha = team.copies().get(prefix + node_id)
    if sha is None:
        return None, None
    return sha, refs.read_commits(team.root, {node_id: sha}, blobs=team.mode == "branch").get(node_id)


def mine(team: Team, state: ClaimState | None, agent: str) -> bool:
    return state is not None and state.agent == agent and team.joined and state.clone == clone_id(team.root)


def rewound(team: Team) -> dict[str, dict[str, str]]:
    """Refs mode: the tasks whose claim ref a force-push rewound, as this clone's fetches found it
    (node id -> the commit seen and the remote's; rewinds.py)."""
    if team.mode == "branch":
        return {}
    return rewinds.nodes(team_dir(team.root), team.tracking_prefix + "claims/")


def refusal(team: Team, node_id: str, agent: str, seen: Remote | None) -> Outcome | None:
    """Why `claim` refuses `node_id` to `agent` before any push (`seen`: its claim as this clone saw it):
    rewound, unreadable, closed (done or blocked), or held by another and not silent past its TTL; None
    when `claim` would push (the one rule `start` and `diagnose` answer from)."""
    if seen is None:
        return None
    if node_id in rewound(team):
        return Outcome(False, node_id, seen.sha, seen.state, "rewound")
    current = seen.state
    if current is None:
        return Outcome(False, node_id, seen.sha, None, "unreadable")
    if current.state in refs.CLOSED_STATES:
        return Outcome(False, node_id, seen.sha, current, current.state)
    if current.state == "held" and not mine(team, current, agent) and not seen.stale:
        return Outcome(False, node_id, seen.sha, current, "held")
    return None


def claim(team: Team, node_id: str, agent: str, ttl_s: float, seen: Remote | None, since: str) -> Outcome:
    """Take `node_id` for `agent`: create it, take it back from `released`, renew my own, or steal a
    stale one (`seen`: the claim as the caller's fetch saw it, None when there was none)."""
    base = ClaimState(node_id, agent, clone_id(team.root), branch(team.root), "held", ttl_s, since=since)
    if seen is None:
        return _cas(team, node_id, base.next(seq=0), None)
    refused = refusal(team, node_id, agent, seen)
    if refused is not None:
        return refused
    current = seen.state
    assert current is not None  # an unreadable claim is refused above
    if current.state == "held" and not mine(team, current, agent):
        return _cas(team, node_id, current.next(agent=agent, clone=base.clone, branch=base.branch, state="held",
                                                ttl_s=ttl_s, since=since, stolen_from=current.holder),
                    seen.sha, stolen_from=current.holder)
    keep = current.since if current.state == "held" else since
    return _cas(team, node_id, current.next(agent=agent, clone=base.clone, branch=base.branch, state="held",
                                            ttl_s=ttl_s, since=keep, stolen_from=""), seen.sha)


def move(team: Team, node_id: str, agent: str, to: str, ttl_s: float | None = None, force: bool = False,
         since: str = "") -> Outcome:
    """Move my claim on `node_id` to state `to` ("held": a heartbeat; "done", "released", "blocked"),
    leased on the SHA this clone last saw. Another's claim moves only with `force` (a person's act);
    a task with no claim yet gets one created in that state (a person completing untaken work). A clone
    that never joined moves none (TeamError "not_joined", from its missing id)."""
    clone_id(team.root)
    if node_id in rewound(team):  # repaired since, maybe (by another clone): look again first
        fetch(team.root, team)
    sha, now = current(team, node_id)
    if sha is None:
        if to in ("held", "released"):  # nothing to renew or give up
            return Outcome(False, node_id, None, None, "lost" if to == "held" else "none")
        state = ClaimState(node_id, agent, clone_id(team.root), branch(team.root), to, ttl_s or 3600, since=since)
        return _cas(team, node_id, state.next(seq=0), None)
    if node_id in rewound(team):  # the lease would be a commit the remote no longer has
        return Outcome(False, node_id, sha, now, "rewound")
    if now is None:
        return Outcome(False, node_id, sha, None, "unreadable")
    if now.state == "done":  # terminal; its holder (or, forced, a person) may still write the outcome
        return Outcome(to == "done" and (force or mine(team, now, agent)), node_id, sha, now, "done")
    if not mine(team, now, agent) and not (force or (to != "held" and now.state != "held")):
        return Outcome(False, node_id, sha, now, "held" if now.state == "held" else "lost")
    taken = now.holder if not mine(team, now, agent) and now.state == "held" else ""
    state = now.next(agent=agent, clone=clone_id(team.root), branch=branch(team.root), state=to,
                     ttl_s=ttl_s or now.ttl_s, stolen_from=taken)
    return _cas(team, node_id, state, sha, stolen_from=taken)
