"""Refs mode: a claim ref rewound by a force-push, found after each fetch and put back by `team repair`.

Every claim step moves a claim ref to a child of the commit it leased on, so each ref's history only
grows. A ref the fetch finds at a commit that does not descend from this clone's copy before the fetch
(an older state of it, or an unrelated commit) was rewound on the remote by a force-push. Its copy is
set back to the last commit seen, and the rewind recorded (`rewound-claims.json` in the clone's team
folder: the copy's ref -> the commit seen and the remote's). While recorded, the picker passes the task
by, claim steps on it are refused with `Fix: leafwise team repair`, and `team status` and `team doctor`
name it; a fetch that finds the ref back on (or after) the commit seen forgets the rewind.
(Branch mode's state branch has the same check in branch.py.)
"""

from __future__ import annotations

import json
from pathlib import Path

from leafwise.commands.team import refs
from leafwise.commands.team.branch import descends
from leafwise.store import atomic, git, reader

FILE = "rewound-claims.json"


def recorded(folder: Path) -> dict[str, dict[str, str]]:
    """The rewinds this clone has found (its team folder's record): copy ref -> {"seen", "remote"}."""
    try:
        data = reader.read_json(folder / FILE, reader.SETTINGS)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {ref: {"seen": v["seen"], "remote": v["remote"]} for ref, v in data.items()
            if isinstance(ref, str) and isinstance(v, dict) and all(isinstance(v.get(k), str) and
                                                                     refs.SHA.fullmatch(v[k]) for k in ("seen", "remote"))}


def _save(folder: Path, record: dict[str, dict[str, str]]) -> None:
    if record:
        atomic.replace(folder / FILE, json.dumps(record, indent=0, sort_keys=True).encode(), durable=False)
    else:
        (folder / FILE).unlink(missing_ok=True)


def check(root: Path, before: dict[str, str], after: dict[str, str], folder: Path) -> dict[str, str]:
    """After a fetch: every copy in `before` (ref -> SHA before the fetch) that `after` moved to a commit
    not descending from it is set back and recorded; a recorded one the remote has on (or after) the
    commit seen again is forgotten. The copies as they stand then."""
    record = recorded(folder)
    out = dict(after)
    changed = False
    for ref, old in before.items():
        new = after.get(ref)
        if new is None:
            continue
        if new == old or descends(root, new, old):
            changed |= record.pop(ref, None) is not None
            continue
        refs.set_local(root, ref, old)
        out[ref] = old
        if record.get(ref) != {"seen": old, "remote": new}:
            record[ref] = {"seen": old, "remote": new}
            changed = True
    if changed:
        _save(folder, record)
    return out


def nodes(folder: Path, prefix: str) -> dict[str, dict[str, str]]:
    """The recorded rewinds by node id (`prefix`: the copies' prefix, `<tracking>claims/`)."""
    return {ref[len(prefix):]: value for ref, value in recorded(folder).items() if ref.startswith(prefix)}


def forget(folder: Path, ref: str) -> None:
    record = recorded(folder)
    if record.pop(ref, None) is not None:
        _save(folder, record)


def restore(team, node_id: str, seen: str, tip: str, identity: tuple[str, str], folder: Path) -> str:
    """Put the claim this clone last saw (`seen`) back on a ref the remote rewound to `tip`, leased on
    `tip`: `seen` itself when `tip` is an older state of it; a commit on `tip` holding `seen`'s state
    (both its parents: every clone's copy descends) when `tip` cannot be read, shares no history with
    `seen` (no claim step made it) or `seen` is a finish (terminal); else the remote's state stands (a
    clone acted on the rewound ref). "restored", "kept", "lost" (the ref moved again) or "refused"."""
    ref = refs.claim_ref(team.namespace, node_id)
    tracking = refs.tracking_ref(team.remote, team.namespace, ref)
    ours, theirs = refs.read_commit(team.root, seen, node_id), refs.read_commit(team.root, tip, node_id)
    if descends(team.root, seen, tip):
        new = seen
    elif ours is not None and (theirs is None or ours.state == refs.TERMINAL or unrelated(team.root, tip, seen)):
        new = refs.make_commit(team.root, ours, tip, identity, also=seen)
    else:
        refs.set_local(team.root, tracking, tip)
        forget(folder, tracking)
        return "kept"
    pushed = refs.push(team.root, team.url, [(ref, new, tip)])
    if pushed.verdict is refs.Verdict.APPLIED:
        refs.set_local(team.root, tracking, new)
        forget(folder, tracking)
        return "restored"
    return "refused" if pushed.verdict is refs.Verdict.REFUSED else "lost"


def unrelated(root: Path, tip: str, seen: str) -> bool:
    """Whether `tip`'s history has a first commit `seen`'s lacks: no claim step led from one to the other."""
    try:
        return git.run_git(root, "log", "--format=%H", "--max-parents=0", "-n", "1", tip, f"^{seen}", "--").strip() != b""
    except git.GitError:
        return True
