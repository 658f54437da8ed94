"""`leafwise team doctor`: a live probe of the host on `<namespace>/probe/<random>` refs, step by step:
create-only, a second create refused, a compare-and-swap update, an atomic pair, a leased delete.

Each step names what failed and what to do: a host that refuses custom refs (a pre-receive hook, a
hidden namespace, HTTP 403) gets branch mode named as the fallback; one that accepts a second create
or a stale lease cannot keep claims at all.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from leafwise.commands.team import refs
from leafwise.commands.team.refs import ClaimState, Verdict
from leafwise.commands.team.remote import Team, ask, identity

FALLBACK = ("branch mode: set settings.team.mode: branch in .leafwise/project.yaml (one state branch, "
            "fast-forward compare-and-swap on its tip)")


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True, slots=True)
class Probe:
    steps: list[Step]
    failure: str  # "": every step passed; "unreachable", "refused", "unsafe"

    @property
    def ok(self) -> bool:
        return not self.failure


def _commit(team: Team, tag: str, parent: str | None) -> str:
    state = ClaimState("PROBE-1", "doctor", tag, "-", "held", 60.0, nonce=secrets.token_hex(4))
    return refs.make_commit(team.root, state, parent, identity(team.root))


def probe(team: Team) -> Probe:
    """Run the five steps against the team's remote, stopping at the first that fails."""
    base = f"{team.namespace}/probe/{secrets.token_hex(4)}" if team.mode != "branch" else \
        f"refs/heads/{team.state_branch}-probe-{secrets.token_hex(4)}"  # branch mode: what branches allow
    a_ref, b_ref = base + "/a", base + "/b"
    first = _commit(team, "one", None)
    steps: list[Step] = []

    def run(name: str, updates: list, want: Verdict, atomic: bool = False) -> str | None:
        answer = refs.push(team.root, team.url, updates, atomic=atomic)
        steps.append(Step(name, answer.verdict is want, answer.detail or answer.verdict.value))
        if answer.verdict is want:
            return None
        if answer.verdict is Verdict.REFUSED:
            return "refused"
        if answer.verdict is Verdict.UNKNOWN:
            return "unreachable"
        return "unsafe"

    failure = run("create-only", [(a_ref, first, None)], Verdict.APPLIED)
    if not failure:
        failure = run("second create refused", [(a_ref, _commit(team, "two", None), None)], Verdict.REJECTED)
    second = _commit(team, "three", first)
    if not failure:
        failure = run("compare-and-swap update", [(a_ref, second, first)], Verdict.APPLIED)
    if not failure:
        failure = run("stale lease refused", [(a_ref, _commit(team, "four", first), first)], Verdict.REJECTED)
    if not failure:
        failure = run("atomic pair", [(a_ref, _commit(team, "five", second), second), (b_ref, first, None)],
                      Verdict.APPLIED, atomic=True)
    if steps and steps[0].ok:  # leave nothing behind, whatever failed
        deleted = _cleanup(team, a_ref, b_ref)
        if not failure:
            steps.append(Step("leased delete", deleted.verdict is Verdict.APPLIED, deleted.detail or "deleted"))
            failure = None if deleted.verdict is Verdict.APPLIED else \
                "refused" if deleted.verdict is Verdict.REFUSED else "unsafe"
    return Probe(steps, failure or "")


def _cleanup(team: Team, a_ref: str, b_ref: str) -> refs.PushAnswer:
    """Delete the probe refs, leased on what the remote has now (read by ls-remote, only the probe's)."""
    answer = ask(team, "ls-remote", "--", team.url, a_ref, b_ref)
    found = {}
    for line in answer.out.decode("utf-8", "replace").splitlines():
        sha, _, ref = line.partition("\t")
        found[ref] = sha
    updates = [(ref, None, sha) for ref, sha in found.items() if ref in (a_ref, b_ref)]
    if not updates:
        return refs.PushAnswer(Verdict.UNKNOWN, "the probe refs were not found to delete")
    return refs.push(team.root, team.url, updates)
