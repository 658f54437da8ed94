"""The `leafwise team …` commands' work: init, join, status, doctor (the handlers in
commands/handlers/team.py declare them; sync and repair are in upkeep.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from leafwise.commands.contract import (
    EXIT_CONFLICT,
    EXIT_FAILURE,
    CommandError,
    Mutation,
    Result,
    clean,
    fix,
    next_,
    placeholder,
    wait,
)
from leafwise.commands.registry import Ctx, command_line
from leafwise.commands.team import doctor, protocol, remote, status
from leafwise.commands.team.unreadable import UNREADABLE_WHY, unreadable_step
from leafwise.commands.team.remote import DEFAULT_NAMESPACE, SETTING, Team, TeamError
from leafwise.store import git


def team_of(ctx: Ctx, writes: bool = False) -> Team:
    """The plan's Team (knowing the plan's node ids: no other claim ref is read); a usage-level error
    (Fix: team init) when team mode is off; a command that `writes` claims (sync, repair) is refused in a
    clone that never joined (`session.not_joined`)."""
    paths = ctx.paths()
    try:
        team = replace(remote.load_team(paths.repo), ids=frozenset(ctx.plan().nodes))
    except TeamError as exc:
        raise error_for(ctx, exc) from exc
    except git.GitError as exc:
        raise CommandError("team_setup", f"team mode needs a git clone: {exc}",
                           fix(ctx.cmd("team init"), "run it in a clone of the team's repository"),
                           category="refused") from exc
    if writes and not team.joined:
        from leafwise.commands.team.session import not_joined

        raise not_joined(ctx)
    return team


def error_for(ctx: Ctx, exc: TeamError, team: Team | None = None, again: str | None = None) -> CommandError:
    if exc.kind == "unreachable":
        return CommandError("remote_unreachable", str(exc),
                            wait(f"the remote {team.remote if team else ''} answers".replace("  ", " "),
                                 "remote unreachable", or_=again),
                            exit_code=EXIT_FAILURE, category="io", retryable=True)
    if exc.kind == "not_joined":
        from leafwise.commands.team.session import not_joined

        return not_joined(ctx)
    if exc.kind == "refused":
        return CommandError("team_refused", f"{exc}; the fallback is {doctor.FALLBACK}",
                            fix(ctx.cmd("team doctor"), "probe the host step by step"), category="refused")
    return CommandError("team_setup", str(exc), fix(ctx.cmd("team init"), "turn team mode on for this plan"),
                        category="refused")


def _write_setting(ctx: Ctx, value: dict[str, Any]) -> None:
    """project.yaml's settings.team = value, round-trip (comments kept), under the project lock."""
    from ruamel.yaml.comments import CommentedMap

    from leafwise.commands.domain.releases import rewrite_project

    def change(doc: Any) -> None:
        settings = doc.get("settings")
        if not isinstance(settings, dict):
            doc["settings"] = settings = CommentedMap()
        settings[SETTING] = CommentedMap(value)

    rewrite_project(ctx, change)


def init(ctx: Ctx, remote_name: str = "origin") -> Result:
    """Turn team mode on: record the remote and the namespace in project.yaml, then probe the host."""
    paths = ctx.paths()
    try:
        url = remote.remote_url(paths.repo, remote_name)
    except (TeamError, git.GitError) as exc:
        raise CommandError("team_setup", f"{exc} (add it first: git remote add {clean(remote_name, 40)} <url>)",
                           fix(ctx.cmd("team init", remote=remote_name), "once the remote is added"),
                           category="refused") from exc
    team = Team(paths, remote_name, url, DEFAULT_NAMESPACE, "refs")
    found = doctor.probe(team)
    mode = "refs"
    if found.failure == "refused":  # the host refuses custom refs: the state branch, if branches work
        refused = found
        found = doctor.probe(Team(paths, remote_name, url, DEFAULT_NAMESPACE, "branch"))
        mode = "branch"
        found = doctor.Probe(refused.steps + found.steps, found.failure)
    if found.failure == "unreachable":
        raise error_for(ctx, TeamError(f"remote unreachable ({remote_name}): {found.steps[-1].detail}",
                                    "unreachable"), team, None)
    if found.failure:  # team mode stays off: claims there would be refused or unsafe
        raise CommandError("team_refused", f"{remote_name} cannot keep claims in {DEFAULT_NAMESPACE}/* "
                           f"({found.steps[-1].name}: {clean(found.steps[-1].detail, 200)}), nor on a state branch",
                           fix(ctx.cmd("team init", remote=remote_name), "again once the host allows refs/leafwise/*"),
                           exit_code=EXIT_CONFLICT, category="refused", text=_step_lines(found))
    _write_setting(ctx, {"remote": remote_name, "namespace": DEFAULT_NAMESPACE, "mode": mode})
    clone = remote.clone_id(paths.repo, create=True)
    where = f"{DEFAULT_NAMESPACE}/claims/<ID>" if mode == "refs" else \
        "<ID>.json on the branch leafwise/state (the host refuses custom refs: branch mode)"
    lines = [f"Team mode on: claims in {where} on {remote_name} ({clean(url, 200)})",
             f"  this clone: {clone}"] + _step_lines(found) + [
        "  then commit and push .leafwise/project.yaml: the other clones see team mode only once they have "
        "it; each clone runs team join (this one too)"]
    return Result({"remote": remote_name, "url": url, "namespace": DEFAULT_NAMESPACE, "mode": mode, "clone": clone,
                   "probe": [_step(s) for s in found.steps]},
                  next_(ctx.cmd("team join"), "commit .leafwise/project.yaml; each other clone runs team join"),
                  lines, Mutation("team_init", "team init", True, "team mode on",
                                  [{"id": None, "field": "settings.team", "from": None, "to": remote_name}]))


def _step(step: doctor.Step) -> dict[str, Any]:
    return {"name": step.name, "ok": step.ok, "detail": step.detail}


def _step_lines(found: doctor.Probe) -> list[str]:
    return [f"  {'ok ' if s.ok else 'FAILED'} {s.name}" + ("" if s.ok else f": {clean(s.detail, 300)}")
            for s in found.steps]


def join(ctx: Ctx) -> Result:
    """Join this clone: its id, and a first fetch of every claim."""
    team = team_of(ctx)
    clone = remote.clone_id(team.root, create=True)
    try:
        copies = remote.fetch(team.root, team)
    except TeamError as exc:
        raise error_for(ctx, exc, team, None) from exc
    count = sum(1 for ref in copies if ref.startswith(team.tracking_prefix + "claims/"))
    return Result({"clone": clone, "remote": team.remote, "claims": count, "refspec": team.refspec},
                  next_(ctx.cmd("team status"), "see who holds what"),
                  [f"This clone is {clone}; {count} claim(s) fetched from {team.remote} "
                   f"(every fetch: {team.refspec})"],
                  Mutation("team_join", "team join", True, "joined"))


def show_status(ctx: Ctx, fetch: bool = True) -> Result:
    """Every claim: agent@clone, branch, state, and how long this machine has seen it unchanged."""
    team = team_of(ctx)
    try:
        copies = remote.fetch(team.root, team) if fetch else None
    except TeamError as exc:
        raise error_for(ctx, exc, team, ctx.cmd("team status", local=True)) from exc
    seen = protocol.snapshot(team, copies, set(ctx.plan().nodes))
    rows = status.rows(seen)
    me = remote.clone_id(team.root) if team.joined else None
    from leafwise.commands.team import session  # a done claim of this clone whose outcome this branch lacks

    unwritten = {state.node for state in session.unfinished(team, ctx.plan(), seen)}
    lines = [f"{len(rows)} claim(s) on {team.remote}" + ("" if fetch else " (this clone's last copies)")]
    for row in rows:
        stale = "  silent past its lease: may be taken" if row.stale else \
            "  its outcome is not in this branch: " + ctx.cmd("complete", row.node_id, summary=placeholder("summary"),
                                                                agent=row.agent) if row.node_id in unwritten else ""
        where = "here" if row.clone == me else row.clone
        lines.append(f"  {row.node_id:<12} {row.state:<9} {clean(row.agent, 40)}@{where}  {clean(row.branch, 60)}  "
                     f"unchanged {_age(row.age_seconds)}{stale}")
    hint = next_(ctx.cmd("next"), "the picker passes by what others hold")
    if me is None:
        lines.append("  this clone has not joined the team: its start, heartbeat, complete are refused until then")
        hint = next_(command_line("team join", root=ctx.root), "a person joins this clone once")
    if any(row.state == "unreadable" for row in rows):
        lines.append(f"  unreadable: {UNREADABLE_WHY}")
        hint = unreadable_step(ctx)
    rewound = rewind_words(team)
    if rewound:
        lines.append(f"  {rewound}")
        hint = fix(ctx.cmd("team repair"), "put the claims this clone last saw back")
    return Result({"remote": team.remote, "clone": me, "claims": [_row(r) for r in rows],
                   "unwritten": sorted(unwritten), "rewound": bool(rewound),
                   "rewound_claims": sorted(protocol.rewound(team))}, hint, lines)


def rewind_words(team: Team) -> str:
    """As the last fetch found it: the state branch (branch mode) or claim refs (refs mode) rewound by a
    force-push ("" when not)."""
    from leafwise.commands.team import branch

    if team.mode != "branch":
        found = protocol.rewound(team)
        if not found:
            return ""
        named = ", ".join(f"{node} (seen at {v['seen'][:12]}, now {v['remote'][:12]})" for node, v in
                          sorted(found.items())[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        return (f"{len(found)} claim ref(s) on {team.remote} were rewound (a force-push): {named}; each no longer "
                "descends from the last commit this clone saw, and its row here is that copy")
    seen = branch.rewound_from(team, remote.team_dir(team.root))
    if seen is None:
        return ""
    return (f"the state branch {team.state_branch} on {team.remote} was rewound (a force-push): its tip no "
            f"longer descends from {seen[:12]}, the last tip this clone saw; the claims here are that copy")


def _row(row: status.TeamClaim) -> dict[str, Any]:
    return {"node_id": row.node_id, "agent": row.agent, "clone": row.clone, "branch": row.branch,
            "state": row.state, "age_seconds": round(row.age_seconds, 1), "stale": row.stale}


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def run_doctor(ctx: Ctx) -> Result:
    """Probe the host live; name the failing step and the fallback."""
    team = team_of(ctx)
    found = doctor.probe(team)
    lines = [f"Probe of {team.remote} ({clean(team.url, 200)}) on {team.namespace}/probe/…"] + _step_lines(found)
    data = {"remote": team.remote, "ok": found.ok, "failure": found.failure or None,
            "steps": [_step(s) for s in found.steps], "fallback": None}
    if found.failure == "unreachable":
        raise error_for(ctx, TeamError(f"remote unreachable ({team.remote}): {found.steps[-1].detail}",
                                    "unreachable"), team, None)
    if found.failure == "refused":
        data["fallback"] = "branch"
        raise CommandError("team_refused", f"{team.remote} refuses custom refs ({found.steps[-1].detail}); "
                           f"the fallback is {doctor.FALLBACK}",
                           fix(ctx.cmd("team status"), "after switching to branch mode"),
                           exit_code=EXIT_CONFLICT, category="refused", details=data, text=lines)
    if found.failure:
        raise CommandError("team_unsafe", f"{team.remote} does not keep compare-and-swap on refs "
                           f"({found.steps[-1].name}); claims there would not be safe",
                           fix(ctx.cmd("team status"), "use another host for claims"),
                           exit_code=EXIT_CONFLICT, category="refused", details=data, text=lines)
    lines.append("The host keeps claims safely.")
    try:  # the claims themselves: a force-push may have rewound the state branch or a claim ref
        remote.fetch(team.root, team)
    except TeamError as exc:
        raise error_for(ctx, exc, team, None) from exc
    if rewound := rewind_words(team):
        data["rewound"] = True
        raise CommandError("state_rewound", rewound, fix(ctx.cmd("team repair"),
                                                         "put the claims this clone last saw back"),
                           exit_code=EXIT_CONFLICT, category="conflict", details=data, text=lines)
    return Result(data, next_(ctx.cmd("team status"), "the host keeps claims"), lines)
