"""Refs mode: a claim ref rewound by a force-push, found after each fetch and put back by `team repair`.

What a rewind is: the remote's ref moved from the commit this clone saw (`seen`) to one (`tip`) that
does not descend from it, by no path the protocol takes. Every claim step moves a ref to a child of the
commit it leased on, so its history only grows; the protocol's one other path is a leased delete (`team
sync` dropping a `done` tombstone after its grace period, a person's `team repair` dropping an unreadable
claim) followed by a new claim, whose create-only push starts a new chain: a first commit with no parent
holding a first state (seq 0). So a `tip` whose history has exactly one first commit, one that `seen`'s
history lacks (the two share no commit), holding such a state of this task, is that claim re-created,
not a rewind: the copy follows the remote (`seen` may be the tombstone, or any state before it that this
clone saw before it stopped fetching), and the chain left behind is retired (`retired-claims.json`: its
first commit, the last 8 per ref). Anything else is a rewind: an older commit of the chain, a chain that
forked from it, a retired chain pushed back (a stale mirror), a first commit that is no first state (a
foreign push), or a history with two first commits. A force-push of a chain this clone never saw,
starting at a first state, cannot be told from a re-created claim, and is taken as one.

A rewound ref's copy is set back to the last commit seen, and the rewind recorded (`rewound-claims.json`
in the clone's team folder: the copy's ref -> the commit seen and the remote's). While recorded, the
picker passes the task by, claim steps on it are refused with `Fix: leafwise team repair`, and `team
status` and `team doctor` name it; a fetch that finds the ref back on (or after) the commit seen, or on a
re-created claim, forgets the rewind. (Branch mode's state branch has the same check in branch.py.)

Both records are read, changed and written back by every fetch, `team sync` and `team repair` of the
clone, so each change holds the team folder's lock (`records.records_locked`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

from leafwise.commands.team import refs
from leafwise.commands.team.branch import descends
from leafwise.commands.team.records import records_locked as _locked
from leafwise.store import atomic, git, reader

FILE = "rewound-claims.json"


@contextmanager
def records(folder: Path) -> Iterator[dict[str, dict[str, str]]]:
    """The recorded rewinds to change in place, written back under the lock when changed."""
    with _locked(folder):
        record = recorded(folder)
        old = dict(record)
        yield record
        if record != old:
            _save(folder, record)


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


def _save(folder: Path, record: dict, name: str = FILE) -> None:
    if record:
        atomic.replace(folder / name, json.dumps(record, indent=0, sort_keys=True).encode(), durable=False)
    else:
        (folder / name).unlink(missing_ok=True)


def check(root: Path, before: dict[str, str], after: dict[str, str], folder: Path) -> dict[str, str]:
    """After a fetch: every copy in `before` (ref -> SHA before the fetch) that `after` moved to a commit
    not descending from it, and not to a claim made anew (`recreated`), is set back and recorded; a
    recorded one the remote has on (or after) the commit seen again is forgotten. The copies as they
    stand then."""
    with _locked(folder):
        return _check(root, before, after, folder)


def _check(root: Path, before: dict[str, str], after: dict[str, str], folder: Path) -> dict[str, str]:
    record, gone = recorded(folder), retired(folder)
    out = dict(after)
    changed = False
    for ref in sorted(before.keys() | record.keys()):
        new = after.get(ref)
        if new is None:
            continue
        # A recorded rewind is judged against the commit seen, never against `before`: another process of
        # this clone may have fetched between the fetch that found the rewind and its setting the copy
        # back, so its `before` is the rewound commit, which would read as nothing moved and forget it.
        old = record[ref]["seen"] if ref in record else before[ref]
        if new == old or descends(root, new, old):
            changed |= record.pop(ref, None) is not None
            continue
        if recreated(root, new, old, ref.rpartition("/")[2], gone.get(ref, ())):
            _retire(root, folder, ref, old)  # a push of the chain left behind is a rewind from now on
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


def recreated(root: Path, tip: str, seen: str, node_id: str, retired: Collection[str] = ()) -> bool:
    """Whether `tip` is a claim on `node_id` made anew after its ref was deleted (the module's definition):
    `tip`'s history has one first commit, outside `seen`'s history and no chain this clone followed
    before (`retired`), holding a first state (seq 0)."""
    first = first_commit(root, tip)
    if first is None or first in retired or descends(root, seen, first):
        return False  # in `seen`'s history: the same chain, moved back
    state = refs.read_commit(root, first, node_id)
    return state is not None and state.seq == 0


def first_commit(root: Path, sha: str) -> str | None:
    """The one commit of `sha`'s history without a parent (None: none, or two: no create-only push
    makes a history with two, a claim put back over a rewind does)."""
    try:
        found = git.run_git(root, "log", "--format=%H", "--max-parents=0", "-n", "2", sha, "--").split()
    except git.GitError:
        return None
    return found[0].decode() if len(found) == 1 else None


def retire(root: Path, folder: Path, ref: str, sha: str) -> None:
    """This clone deleted the claim ref whose copy is `ref` (at `sha`: a tombstone, an unreadable claim):
    its chain never comes back, so a push of it later is a rewind."""
    with _locked(folder):
        _retire(root, folder, ref, sha)


def _retire(root: Path, folder: Path, ref: str, sha: str) -> None:
    found = retired(folder)
    found[ref] = [*found.get(ref, ())[-(KEEP_RETIRED - 1):], first_commit(root, sha) or sha]
    _save(folder, found, RETIRED_FILE)


RETIRED_FILE = "retired-claims.json"  # copy ref -> the first commits of chains a re-created claim replaced
KEEP_RETIRED = 8


def retired(folder: Path) -> dict[str, list[str]]:
    """The first commits of the chains this clone retired, by copy ref (the last 8 each)."""
    try:
        data = reader.read_json(folder / RETIRED_FILE, reader.SETTINGS)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {ref: [sha for sha in v if isinstance(sha, str) and refs.SHA.fullmatch(sha)][-KEEP_RETIRED:]
            for ref, v in data.items() if isinstance(ref, str) and isinstance(v, list)}


def nodes(folder: Path, prefix: str) -> dict[str, dict[str, str]]:
    """The recorded rewinds by node id (`prefix`: the copies' prefix, `<tracking>claims/`)."""
    return {ref[len(prefix):]: value for ref, value in recorded(folder).items() if ref.startswith(prefix)}


def forget(folder: Path, ref: str) -> None:
    with records(folder) as record:
        record.pop(ref, None)


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
