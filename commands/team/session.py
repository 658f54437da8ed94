"""Team mode inside the agent loop's commands: is it on for this plan, the remote's claims as holds the
picker understands, and the answers for a remote that does not answer or refuses.

The domain modules (claiming, finishing, blocking, holds) call only this module and `protocol`; with
no `settings.team` in project.yaml every function here answers "off" without starting git.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from leafwise.commands.contract import EXIT_CONFLICT, EXIT_FAILURE, CommandError, fix, wait
from leafwise.commands.registry import command_line
from leafwise.commands.team import protocol, refs, remote
from leafwise.commands.team.remote import Team, TeamError
from leafwise.commands.team.unreadable import UNREADABLE_WHY, unreadable_step
from leafwise.commands.text import plan_words
from leafwise.store import CLOSED, Plan
from leafwise.store import claims as leases
from leafwise.store import git

_URLS: dict[tuple[str, str, tuple[int, int] | None], str] = {}  # (repo, remote, config stat) -> URL


def team_mode(ctx: Any, plan: Plan) -> Team | None:
    """The plan's Team when `settings.team` is set, else None (team mode off).

    project.yaml comes with a clone or a pull request, so a clone may have team mode on without having
    joined (`Team.joined`). It reads: the holds and the team's lines are empty there (no claim was ever
    fetched into it; `holds`, `team_reads`), so `next`, `show`, `progress` answer from what is here. It
    writes no claim: every write asks `fetched` first (start, unclaim), or names its clone in the claim
    (`protocol.claim` / `move`: heartbeat, complete, block), or keeps it to push later
    (`offline.remember`); each refuses with `not_joined`, exit 3 and `Fix: leafwise team join`."""
    found = remote.settings_of(plan.project.settings)
    if found is None:
        return None
    try:  # a long-lived server (MCP, the canvas) sees `git remote set-url`: the key holds the config's stat
        config = (plan.paths.repo / ".git" / "config").stat()
        seen: tuple[int, int] | None = (config.st_mtime_ns, config.st_size)
    except OSError:  # a linked worktree's .git is a file: its URL is read once per process
        seen = None
    key = (str(plan.paths.repo), str(found["remote"]), seen)
    if key not in _URLS:
        try:
            _URLS[key] = remote.remote_url(plan.paths.repo, key[1])
        except (TeamError, git.GitError) as exc:
            raise CommandError("team_setup", f"team mode names the remote {key[1]}, but {exc} "
                               f"(git remote add {key[1]} <url>)",
                               fix(ctx.cmd("team join"), "join this clone to the team once its remote is added"),
                               category="refused") from exc
    return Team(plan.paths, key[1], _URLS[key], str(found.get("namespace") or remote.DEFAULT_NAMESPACE),
                str(found.get("mode") or "refs"), str(found.get("state_branch") or "leafwise/state"),
                frozenset(plan.nodes))


def join_line(ctx: Any = None) -> str:
    # a person's step: never carries the calling agent (an agent's `--agent` is no part of joining)
    return command_line("team join", root=getattr(ctx, "root", None))


def not_joined(ctx: Any = None) -> CommandError:
    """The refusal of a claim step in a clone that never joined the team (the one wording)."""
    return CommandError("team_not_joined", remote.NOT_JOINED,
                        fix(join_line(ctx), "a person joins this clone to the team once, then the step goes on"),
                        exit_code=EXIT_CONFLICT, category="refused")


def unjoined_words(ctx: Any) -> str:
    """What a read in a clone that never joined says of the claims (its last line names the join)."""
    return (f"claims not read: this clone has not joined the team, so other clones' claims are not seen here "
            f"and start, heartbeat, complete refuse until a person runs {join_line(ctx)}")


def offline_line(ctx: Any, node_id: str | None, agent: str, ttl: float | None) -> str:
    """The call that claims in this clone only: `start … --offline` once `start` takes the flag, else
    `team claim …` (the same claim)."""
    from leafwise.commands.registry import REGISTRY

    spec = REGISTRY.get("start")
    if spec is not None and any(p.name == "offline" for p in spec.params):
        return ctx.cmd("start", *([node_id] if node_id else []), agent=agent, ttl=ttl, next=not node_id, offline=True)
    return ctx.cmd("team claim", *([node_id] if node_id else []), agent=agent, ttl=ttl, next=not node_id)


def fetched(ctx: Any, team: Team, offline_line: str | None) -> dict[str, protocol.Remote]:
    """Fetch the claims, as a snapshot; a remote that does not answer is `Wait:` (with `Or:` the
    offline form of the call, when it has one). A clone that never joined is refused first (`not_joined`)."""
    if not team.joined:
        raise not_joined(ctx)
    try:
        return protocol.snapshot(team, remote.fetch(team.root, team))
    except TeamError as exc:
        raise failed(ctx, team, exc, offline_line) from exc


REFRESH_DEADLINE = 5.0  # an answer that only reads the claims waits this long for the remote, then reads its copy


def refreshed(team: Team, deadline: float = REFRESH_DEADLINE) -> str | None:
    """One fetch of the claims for an answer that only reads them (`next`, the next task `complete`
    names), bounded by `deadline`: None when the remote answered, else the words that say the answer
    reads this clone's last copy (the remote did not answer)."""
    try:
        remote.fetch(team.root, team, deadline=deadline)
    except (TeamError, git.GitError) as exc:
        why = " ".join(str(exc).split())[:160]
        return f"claims as this clone last fetched them: the remote {team.remote} did not answer ({why})"
    return None


def failed(ctx: Any, team: Team, exc: TeamError, offline_line: str | None = None) -> CommandError:
    """The answer for a team step that could not reach or use the remote."""
    if exc.kind == "refused":
        return CommandError("team_refused", f"{exc}; this host refuses custom refs",
                            fix(ctx.cmd("team doctor"), "name the refusal and the branch-mode fallback"),
                            category="refused", source=("plan", None))
    if exc.kind == "not_joined":
        return not_joined(ctx)
    if exc.kind == "setup":
        return CommandError("team_setup", str(exc), fix(ctx.cmd("team join"), "join this clone to the team"),
                            category="refused")
    if exc.kind == "locked":  # the remote answered: offline would be wrong
        return CommandError("copies_locked", str(exc),
                            wait("this clone's other git finishes, or a person removes the .lock file a crashed "
                                 "git left under .git/refs/remotes-leafwise/", "claim copies locked"),
                            exit_code=EXIT_FAILURE, category="io", retryable=True)
    return CommandError("remote_unreachable", str(exc),
                        wait(f"the remote {team.remote} answers (a few seconds to minutes)", "remote unreachable",
                             or_=offline_line),
                        exit_code=EXIT_FAILURE, category="io", retryable=True)


def holds(team: Team, now: datetime, seen: dict[str, protocol.Remote] | None = None
          ) -> tuple[dict[str, leases.Claim], set[str]]:
    """The remote's live claims as leases (an agent of another clone named `agent@clone`, each expiring
    when this machine may take it), and the tasks never to hand out (done or blocked in their ref):
    the rule of `status.holds`, over this clone's copies (or the snapshot `seen`). None in a clone that
    never joined: it never fetched a claim, and a read answers from what is here."""
    from leafwise.commands.team import status

    if not team.joined:
        return {}, set()
    if seen is None:
        try:
            seen = protocol.snapshot(team)
        except git.GitError:
            return {}, set()
    found, closed = status.holds(status.rows(seen), now, remote.clone_id(team.root))
    rewound = protocol.rewound(team)  # no step on a rewound ref until `team repair`: passed by
    return {n: c for n, c in found.items() if n not in rewound}, closed | set(rewound)


def unfinished(team: Team, plan: Plan, seen: dict[str, protocol.Remote] | None = None) -> list[refs.ClaimState]:
    """This clone's `done` claims, made on this branch, whose task this branch does not hold closed: a
    `complete` stopped between moving the ref and writing the YAML (its holder's `complete` again
    writes the outcome)."""
    if not team.joined:
        return []  # no claim of its own
    seen = protocol.snapshot(team) if seen is None else seen
    me = remote.clone_id(team.root)
    mine = [item.state for item in seen.values() if item.state is not None and item.state.state == refs.TERMINAL
            and item.state.clone == me and item.node in plan.nodes and plan.nodes[item.node].status not in CLOSED]
    if not mine:
        return []
    here = remote.branch(team.root)
    return sorted((state for state in mine if state.branch == here), key=lambda s: s.node)


def done_elsewhere(team: Team, plan: Plan, seen: dict[str, protocol.Remote] | None = None) -> list[Any]:
    """Tasks open here whose claim says `done` by another clone or on another branch (`status.done_elsewhere`
    over this clone's copies, or the snapshot `seen`): rows of `status.TeamClaim`."""
    from leafwise.commands.team import status

    seen = protocol.snapshot(team) if seen is None else seen
    if not any(item.state is not None and item.state.state == refs.TERMINAL for item in seen.values()):
        return []  # no done claim: no git call for the branch
    return status.done_elsewhere(status.rows(seen, status.where(team.root)), plan)


def held_open(plan: Plan, seen: dict[str, protocol.Remote]) -> list[str]:
    """Tasks open in `plan` whose claim is held and not silent past its TTL (`seen`: a snapshot): work
    left, that comes free by itself when its holder finishes or goes silent."""
    from leafwise.commands.team import status

    return status.held_open(status.rows(seen), plan)


def unreadable_wait(ctx: Any, team: Team) -> tuple[list[str], Any]:
    """When nothing is left to hand out: the tasks whose claim cannot be read (over this clone's copies),
    named, with their one step (`unreadable_step`); ([], None) when there are none."""
    try:
        seen = protocol.snapshot(team)
    except git.GitError:
        return [], None
    rewound = sorted(protocol.rewound(team))
    if rewound:
        more = f" and {len(rewound) - 5} more" if len(rewound) > 5 else ""
        return [f"  {len(rewound)} task(s) passed by, their claim ref rewound on {team.remote} by a force-push: "
                f"{', '.join(rewound[:5])}{more}: {REWOUND_WHY}"], rewound_step(ctx)
    ids = sorted(node for node, item in seen.items() if item.state is None)
    if not ids:
        return [], None
    more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
    return [f"  {len(ids)} task(s) passed by, their claim unreadable: {', '.join(ids[:5])}{more}: {UNREADABLE_WHY}"], \
        unreadable_step(ctx)


REWOUND_WHY = ("no step takes them until team repair puts back the claims this clone last saw (the force-push "
               "moved each ref to a commit that does not descend from the last one seen here)")


def rewound_step(ctx: Any) -> Any:
    return fix(ctx.cmd("team repair"), "put back the claims this clone last saw")


def lost(ctx: Any, outcome: protocol.Outcome, agent: str | None, tool: str, verb: str) -> CommandError:
    """Exit 3: the remote says another clone has the task now (or it is done): `verb` is refused."""
    from leafwise.commands.contract import Mutation

    state = outcome.state
    who = plan_words(state.holder, 120) if state else "another clone"  # a remote claim's text is a clone's
    what = {"done": f"{outcome.node} is done in {who}'s claim (branch {state.branch if state else '?'})",
            "blocked": f"{outcome.node} is blocked by {who}"}.get(outcome.why,
                                                                  f"{outcome.node} is held by {who} (remote)")
    if outcome.why == "unreadable":
        return CommandError("claim_unreadable", f"{verb} refused: the claim of {outcome.node}: {UNREADABLE_WHY}",
                            unreadable_step(ctx), exit_code=EXIT_CONFLICT, category="refused",
                            source=("node", outcome.node))
    if outcome.why == "nested":
        return CommandError("claim_blocked", f"{verb} refused: a ref under the claim ref of {outcome.node} on the remote "
                            f"(refs/…/claims/{outcome.node}/…) holds its place; no claim is named with a '/'",
                            unreadable_step(ctx), exit_code=EXIT_CONFLICT, category="refused",
                            source=("node", outcome.node))
    if outcome.why == "rewound":
        message = (f"{verb} refused: the claim ref of {outcome.node} was rewound on the remote (a force-push moved "
                   "it to a commit that does not descend from the last one this clone saw)")
        return CommandError("claim_rewound", message, rewound_step(ctx), exit_code=EXIT_CONFLICT, category="refused",
                            source=("node", outcome.node))
    if outcome.why == "missing":
        message = (f"{verb} refused: the claim of {outcome.node} is gone from the remote (a force-push or "
                   "push --mirror deletes refs/leafwise/*; branch mode: the state branch was deleted or rewound); "
                   "restore it from this clone's copies")
        return CommandError("claim_missing", message, fix(ctx.cmd("team repair"), "restore the claim refs"),
                            exit_code=EXIT_CONFLICT, category="refused", source=("node", outcome.node))
    if state is None and outcome.why == "lost":
        what = f"{outcome.node} has no claim of yours on the remote"
    message = f"{verb} refused: {what}"
    other = ctx.cmd("start", agent=agent, next=True) if agent else ctx.cmd("team status")
    return CommandError("lease_lost" if verb != "start" else "claim_held", message,
                        fix(other, "take another task; the work stays on your branch"),
                        exit_code=EXIT_CONFLICT, category="held_by_other_agent", source=("node", outcome.node),
                        details={"holder": who}, mutation=Mutation(tool, "lease_lost", False, message))
