"""`canvas --follow`: the team's claims from the shared remote, polled in a thread every few seconds.

Each poll fetches the claim refs and the remote's default branch in one protocol-v2 request
(`commands.team.status.followed`) and keeps the claims in `app.team_claims` by node id. The tree marks
a claimed row with its holder (`agent@clone`), the detail pane adds a line, and a claim taken or
finished in another clone raises a toast. A remote that does not answer is said once; the next polls
go on trying.

The default branch (`app.team_upstream`, `commands.team.upstream`): what the agents' merged branches
closed there shows before the person pulls. The canvas never pulls (the work tree and branch are the
person's): when tasks open here are closed on `origin/main` a toast says so ("origin/main has T-2, T-3
done, open here … git pull here to see them"), said again only when a task joins that set, and their done
claims carry `merged`, so the Next bar's Wait is the pull (`team_reads.merge_wait_for`), not the merge
of branches already merged.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Sequence

from leafwise.canvas.live import PlanUpdate
from leafwise.canvas.model.state import Delta
from leafwise.canvas.widgets.team_mark import TeamClaim, holder
from leafwise.commands.registry import command_line
from leafwise.commands.text import one_line
from textual import work

DEFAULT_EVERY = 10.0  # seconds between two polls of the remote
MIN_EVERY = 0.2  # faster than this is a fetch loop, not a poll
TOASTED = 3  # claim changes named in one toast; the rest are counted

ClaimSource = Callable[[Path, bool], Any]  # the claims (a sequence), or a `status.Followed` with the default branch
SHOWN_IDS = 5  # task ids a default-branch toast names


def team_source() -> ClaimSource:
    """The real source: the team's claims as `leafwise team status` reads them, and the remote's
    default branch fetched with them."""
    from leafwise.commands.team.status import followed

    return followed


def split(found: Any) -> tuple[list[TeamClaim], Any]:
    """A source's answer as (claims, the default branch or None): a plain sequence has no branch."""
    claims = getattr(found, "claims", None)
    return (list(claims), getattr(found, "upstream", None)) if claims is not None else (list(found), None)


def failure(exc: Exception) -> str:
    """What a failed poll says; a plan or clone not set up for team mode names the commands that do it."""
    text = str(exc) or type(exc).__name__
    if getattr(exc, "kind", None) == "setup":
        text += (f"\nSet up: {command_line('team init')} (once per repository), "
                 f"{command_line('team join')} (in each clone)")
    return text


def shown(claim: TeamClaim) -> tuple[str, str, str, str, bool]:
    """What a claim's toast announces (its age alone moves on every poll: not a change to announce)."""
    return (claim.agent, claim.clone, claim.branch, claim.state, claim.stale)


def drawn(claim: TeamClaim) -> tuple[Any, ...]:
    """What the canvas draws of a claim: `shown`, and the default branch that closed its task."""
    return (*shown(claim), getattr(claim, "merged", ""))


class FollowTeam:
    """The part of `CanvasApp` that polls the team's remote (a mixin: `self` is the app)."""

    def _init_follow(self, follow: bool, every: float | None, source: ClaimSource | None) -> None:
        self.following = follow or every is not None
        self.follow_every = max(MIN_EVERY, every if every is not None else DEFAULT_EVERY)
        self._claim_source = source
        self.team_claims: dict[str, TeamClaim] = {}
        self.team_since: dict[str, datetime] = {}  # when this machine first saw each claim as it is now
        self.team_error: str | None = None  # what the last poll said when it failed
        self.team_polls = 0  # polls answered, good or not (tests wait on it)
        self.team_upstream: Any = None  # the remote's default branch as the last poll fetched it
        self.upstream_said: frozenset[str] = frozenset()  # the tasks closed there, open here, last said
        self.upstream_added_said: frozenset[str] = frozenset()  # the open tasks there this clone lacks, last said
        self.upstream_sha: str | None = None
        self._polling = False

    def _start_following(self) -> None:
        if not self.following:
            return
        if self._claim_source is None:
            self._claim_source = team_source()
        self._poll_team()
        self.set_interval(self.follow_every, self._poll_team)

    def _poll_team(self) -> None:
        if not self._polling:  # a slow remote: the next poll waits for this one, threads never pile up
            self._polling = True
            self._fetch_claims()

    @work(thread=True, group="follow")
    def _fetch_claims(self) -> None:
        source = self._claim_source
        assert source is not None
        try:
            found, upstream = split(source(self.paths.repo, True))
        # A poller must outlive anything the remote or its git says; the person reads it in a toast.
        except Exception as exc:  # noqa: BLE001
            self.call_from_thread(self._team_failed, failure(exc))
            return
        self.call_from_thread(self._team_seen, found, upstream)

    def _team_failed(self, message: str) -> None:
        self._polling = False
        self.team_polls += 1
        if message != self.team_error:
            self.notify(f"{message}\nThe canvas asks again every {self.follow_every:g} s.",
                        title="Not following the team", severity="warning", timeout=10)
        self.team_error = message

    def _team_seen(self, found: list[TeamClaim], upstream: Any = None) -> None:
        self._polling = False
        first = self.team_polls == 0 or self.team_error is not None
        if self.team_error is not None and self.team_polls:
            self.notify("The team's remote answers again.", title="Following the team")
        self.team_error = None
        self.team_polls += 1
        fresh = {claim.node_id: claim for claim in found}
        closed_there = self._upstream_seen(upstream)
        for nid in closed_there & fresh.keys():
            if hasattr(fresh[nid], "merged"):
                fresh[nid] = replace(fresh[nid], merged=upstream.name)  # type: ignore[type-var]
        old = self.team_claims
        moved = {nid for nid in old.keys() | fresh.keys()
                 if (nid in old) != (nid in fresh) or (nid in old and drawn(old[nid]) != drawn(fresh[nid]))}
        news = {nid for nid in moved if nid not in old or nid not in fresh or shown(old[nid]) != shown(fresh[nid])}
        now = datetime.now().astimezone()
        self.team_since = {nid: self.team_since[nid] if nid in self.team_since and nid not in moved
                           else now - timedelta(seconds=max(0.0, claim.age_seconds)) for nid, claim in fresh.items()}
        self.team_claims = fresh
        if not first:
            self._announce_claims([fresh[nid] for nid in sorted(news) if nid in fresh])
        self._claims_moved(moved)

    def _upstream_seen(self, upstream: Any) -> set[str]:
        """Keep the default branch the poll fetched; the tasks closed there and open here, said in a
        toast when one is new (the first poll too: a person opening the canvas behind is told)."""
        self.team_upstream = upstream
        state = self.state
        if upstream is None or state is None:
            return set()
        closed = upstream.closed_there(state.plan)
        if set(closed) - self.upstream_said:  # a task newly closed there (a pull that took some: no toast)
            named = ", ".join(closed[:SHOWN_IDS]) + (f" and {len(closed) - SHOWN_IDS} more"
                                                     if len(closed) > SHOWN_IDS else "")
            lacks = f"; this clone lacks {upstream.behind} of its commit(s)" if upstream.behind else ""
            there = one_line(upstream.name, 80)
            self.notify(f"{there} has {len(closed)} task(s) done that are open here: {named}{lacks}.\n"
                        "git pull here to see them (commit this clone's own changes first).",
                        title=f"{there} moved", timeout=15)
        self.upstream_said = frozenset(closed)
        added = upstream.open_there(state.plan)
        if set(added) - self.upstream_added_said:  # work added there that this clone lacks
            named = ", ".join(added[:SHOWN_IDS]) + (f" and {len(added) - SHOWN_IDS} more"
                                                    if len(added) > SHOWN_IDS else "")
            there = one_line(upstream.name, 80)
            self.notify(f"{there} has {len(added)} open task(s) this clone lacks: {named}.\n"
                        "git pull here to see them (commit this clone's own changes first).",
                        title=f"{there} moved", timeout=15)
        self.upstream_added_said = frozenset(added)
        if upstream.sha != self.upstream_sha:  # the Next bar reads the default branch too
            self.upstream_sha = upstream.sha
            self.plan_updated.publish(PlanUpdate(Delta(), claims=True))
        return set(closed)

    def _claims_moved(self, ids: set[str]) -> None:
        state = self.state
        if state is None or not ids:
            return
        self.plan_updated.publish(PlanUpdate(Delta(changed={nid for nid in ids if nid in state.nodes}),
                                             claims=True))

    def _announce_claims(self, claims: list[TeamClaim]) -> None:
        news = [c for c in claims if c.state in ("held", "done", "blocked")]
        if not news:
            return
        words = [f"{c.node_id} {c.state} by {holder(c)} on {one_line(c.branch, 60) or 'no branch'}"
                 for c in news[:TOASTED]]
        if len(news) > TOASTED:
            words.append(f"and {len(news) - TOASTED} more (leafwise team status)")
        self.notify("\n".join(words), title="Team")
