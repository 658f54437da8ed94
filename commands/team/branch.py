"""Branch mode, for hosts that accept only branches and tags: every claim is a file `<ID>.json` on one
state branch (`settings.team.state_branch`, default `leafwise/state`), and every change is a commit on
its tip pushed with the tip as the lease (`--force-with-lease=refs/heads/<branch>:<tip>`), so each
change is still one compare-and-swap; a change that loses only because another claim moved the tip is
re-applied on the new tip, one that finds its own claim changed is lost.

A claim's "SHA" here is its file's blob: unchanged while the claim is, so the observed staleness of a
steal (observations.py) works as in refs mode. Commit messages carry `[skip ci]`. `team sync` deletes
old tombstones in one leased commit (`drop`); `team repair` pushes this clone's copy of the branch back,
create-only, when the remote lost it (`gone`).

A force-push that rewinds the branch (or deletes and re-creates it) moves the tip to a commit that does
not descend from the last tip this clone saw. After each fetch `check_rewind` asks git whether it does
(the runner's fetch takes every update as a fast-forward: fetch.showForcedUpdates=false); when not, the
copy is set back to the last tip seen and the rewind recorded (`rewound.json` in the clone's team
folder). Every claim step then finds its lease refused on a tip the remote no longer has (`Fix: leafwise
team repair`), and `restore` puts the copy back on top of the remote's tip.
"""

from __future__ import annotations

import json
from pathlib import Path

from leafwise.commands.team import refs
from leafwise.commands.team.records import records_locked
from leafwise.commands.team.wire import ask
from leafwise.commands.team.refs import ClaimState, Verdict
from leafwise.store import atomic, git, reader

REWIND_FILE = "rewound.json"  # in the clone's team folder: the state branch's tip that was rewound away

TRIES = 8  # re-applications on a moved tip before the step gives up (another clone is very busy)


def tip_ref(branch: str) -> str:
    return f"refs/heads/{branch}"


def tracking(remote: str, branch: str) -> str:
    return f"{refs.COPIES}/{remote}/{branch}"  # as refs.tracking_ref: outside git's own prune


class NotState(Exception):
    """The state branch's tip holds a folder or a submodule: the remote's `leafwise/state` is another
    branch (a symbolic ref to main on the remote: every plan's main has `.leafwise/`, or main's history
    pushed there). A commit on it holding the claims alone would drop all of that branch, so nothing is
    written. (A stray file at the top is dropped by the next claim commit, as before.)"""


def entries(root: Path, tip: str | None, strict: bool = False) -> dict[str, str]:
    """The state branch's files at `tip`: `<ID>.json` -> blob SHA (none for no tip). `strict` (before a
    commit on `tip`): NotState when the tip's tree holds a folder or a submodule."""
    if not tip:
        return {}
    answer = git.run_git_remote(root, "cat-file", "-p", f"{tip}^{{tree}}")
    out = {}
    for line in answer.out.decode("utf-8", "replace").splitlines() if answer.code == 0 else ():
        head, _, name = line.partition("\t")
        parts = head.split()
        if len(parts) == 3 and parts[1] == "blob" and name.endswith(".json") and refs.SHA.fullmatch(parts[2]):
            out[name] = parts[2]
        elif strict and not (len(parts) == 3 and parts[1] == "blob"):  # a folder (main's `.leafwise/`), a submodule
            raise NotState(f"the state branch's tip {tip[:12]} holds {plain(name)!r}, which is no claim file: "
                           "it is not a state branch (a symbolic ref to another branch on the remote?); "
                           "nothing was pushed to it")
    if strict and answer.code != 0:
        raise NotState(f"the state branch's tip {tip[:12]} has no tree this clone can read: nothing was pushed to it")
    return out


def plain(name: str) -> str:
    return "".join(c if c.isprintable() and c.isascii() else "?" for c in name)[:60]


def copies(root: Path, remote: str, branch: str, prefix: str) -> dict[str, str]:
    """This clone's copies of the claims, named as refs mode names them (`<prefix>claims/<ID>` -> blob)."""
    tip = refs.local_refs(root, tracking(remote, branch)).get(tracking(remote, branch))
    return {f"{prefix}claims/{name[:-5]}": sha for name, sha in entries(root, tip).items()}


def cas(team, node_id: str, state: ClaimState, lease: str | None, refetch, identity: tuple[str, str]
        ) -> tuple[str, str | None, str]:
    """Write `state` as `<node_id>.json` if that file is still at `lease` (None: absent): ("won", the new
    blob, ""), ("lost", the file's blob now, ""), ("missing", None, ""): the remote lost the branch
    (`team repair`), or ("refused", None, the host's words). `refetch()`:
    fetch the state branch again after a moved tip."""
    name = f"{node_id}.json"
    ref, track = tip_ref(team.state_branch), tracking(team.remote, team.state_branch)
    blob = _write(team.root, ["hash-object", "-w", "--stdin"], state.as_json())
    for _ in range(TRIES):
        tip = refs.local_refs(team.root, track).get(track)
        try:
            files = entries(team.root, tip, strict=True)
        except NotState as exc:
            return "refused", None, str(exc)
        if files.get(name) != lease:
            return "lost", files.get(name), ""
        files[name] = blob
        listing = "".join(f"100644 blob {sha}\t{n}\n" for n, sha in sorted(files.items()))
        tree = _write(team.root, ["mktree"], listing.encode())
        message = f"leafwise: {state.state} {node_id} by {state.agent} [skip ci]"
        commit = _run(team.root, "commit-tree", tree, *(["-p", tip] if tip else []), "-m", message,
                      identity=identity)
        answer = refs.push(team.root, team.url, [(ref, commit, tip)])
        if answer.verdict is Verdict.APPLIED:
            refs.set_local(team.root, track, commit)
            return "won", blob, ""
        if answer.verdict is Verdict.REFUSED:
            return "refused", None, answer.detail
        refetch()  # rejected (the tip moved) or unknown: look again
        now = refs.local_refs(team.root, track).get(track)
        if now == commit:
            return "won", blob, ""
        if now == tip and answer.verdict is Verdict.REJECTED:  # refused on a tip the remote no longer has
            return "missing", None, ""
    return "lost", None, ""


def drop(team, gone: dict[str, str], refetch, identity: tuple[str, str]) -> tuple[str, list[str]]:
    """Delete the claim files `gone` (node id -> the blob each was seen at) that are still at that blob,
    in one commit on the tip leased as every change is: ("won", the ids deleted), or ("refused", []).
    A file changed since it was seen stays (a lease on a file, as a leased delete of a ref)."""
    ref, track = tip_ref(team.state_branch), tracking(team.remote, team.state_branch)
    for _ in range(TRIES):
        tip = refs.local_refs(team.root, track).get(track)
        try:
            files = entries(team.root, tip, strict=True)
        except NotState:
            return "refused", []
        doomed = sorted(node for node, blob in gone.items() if files.get(f"{node}.json") == blob)
        if not doomed or tip is None:
            return "won", []
        listing = "".join(f"100644 blob {sha}\t{n}\n" for n, sha in sorted(files.items())
                          if n[:-5] not in doomed)
        tree = _write(team.root, ["mktree"], listing.encode())
        message = f"leafwise: cleaned {len(doomed)} done claim(s) [skip ci]"
        commit = _run(team.root, "commit-tree", tree, "-p", tip, "-m", message, identity=identity)
        answer = refs.push(team.root, team.url, [(ref, commit, tip)])
        if answer.verdict is Verdict.APPLIED:
            refs.set_local(team.root, track, commit)
            return "won", doomed
        if answer.verdict is Verdict.REFUSED:
            return "refused", []
        refetch()
    return "won", []


def gone(team) -> dict[str, str]:
    """The state branch when the remote lost it (a `push --mirror` from an ordinary clone deletes it):
    {its ref: this clone's copy of its tip}; {} when the remote has it (or this clone never saw it)."""
    ref, track = tip_ref(team.state_branch), tracking(team.remote, team.state_branch)
    answer = ask(team, "ls-remote", "--", team.url, ref)
    if answer.code != 0:
        raise git.GitError(answer.err.decode("utf-8", "replace").strip()[:200] or "ls-remote failed", answer.code)
    if any(line.partition("\t")[2] == ref for line in answer.out.decode("utf-8", "replace").splitlines()):
        return {}
    tip = refs.local_refs(team.root, track).get(track)
    return {ref: tip} if tip else {}


def last_seen(team) -> str | None:
    """This clone's copy of the state branch's tip (the last tip it saw, or wrote)."""
    track = tracking(team.remote, team.state_branch)
    return refs.local_refs(team.root, track).get(track)


def check_rewind(team, seen: str | None, folder: Path) -> None:
    """After a fetch: when the remote's tip does not descend from `seen` (the copy before the fetch),
    put the copy back at `seen` and record the rewind in `folder` (the clone's team folder); forget a
    rewind once the tip descends again."""
    with records_locked(folder):  # another fetch of this clone records or forgets it at the same moment
        _check_rewind(team, seen, folder)


def _check_rewind(team, seen: str | None, folder: Path) -> None:
    path = folder / REWIND_FILE
    tip = last_seen(team)
    if seen is None or tip is None or tip == seen or descends(team.root, tip, seen):
        path.unlink(missing_ok=True)
        return
    refs.set_local(team.root, tracking(team.remote, team.state_branch), seen)
    atomic.replace(path, json.dumps({"branch": team.state_branch, "seen": seen}).encode(), durable=False)


def rewound_from(team, folder: Path) -> str | None:
    """The last tip this clone saw of a state branch the remote has rewound since, or None (`folder`:
    the clone's team folder)."""
    try:
        data = reader.read_json(folder / REWIND_FILE, reader.SETTINGS)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("branch") != team.state_branch:
        return None
    seen = data.get("seen")
    return seen if isinstance(seen, str) and refs.SHA.fullmatch(seen) else None


def descends(root: Path, tip: str, older: str) -> bool:
    """Whether `tip` is `older` or a commit after it (nothing of `older` lies outside `tip`'s history)."""
    try:
        return git.run_git(root, "log", "--format=%H", "-n", "1", older, f"^{tip}", "--").strip() == b""
    except git.GitError:
        return False


def restore(team, seen: str, identity: tuple[str, str], folder: Path) -> tuple[str, list[str]]:
    """Put the state this clone last saw (`seen`) back on a rewound state branch, leased on the remote's
    tip now: `seen` itself when that tip is an older state of it (a plain rewind), else a commit on the
    tip holding both (a claim file both have and that differs keeps the remote's: it was changed after the
    rewind by a clone that acted on it). ("won" | "lost" | "refused", the files the remote's kept)."""
    ref, track = tip_ref(team.state_branch), tracking(team.remote, team.state_branch)
    scratch = f"{refs.COPIES}/{team.remote}/rewound/{team.state_branch}"
    answer = ask(team, "fetch", "--no-tags", "--no-write-fetch-head", "--quiet", "--", team.url, f"+{ref}:{scratch}")
    tip = refs.local_refs(team.root, scratch).get(scratch) if answer.code == 0 else None
    if tip is None:
        return "lost", []  # the branch is gone meanwhile: `gone` restores it create-only
    kept: list[str] = []
    new = seen
    try:
        entries(team.root, tip, strict=True)
    except NotState:
        refs.set_local(team.root, scratch, None)
        return "refused", []
    if not descends(team.root, seen, tip):
        ours, theirs = entries(team.root, seen), entries(team.root, tip)
        kept = sorted(n[:-5] for n in ours if n in theirs and ours[n] != theirs[n])
        files = {**ours, **theirs}
        listing = "".join(f"100644 blob {sha}\t{n}\n" for n, sha in sorted(files.items()))
        tree = _write(team.root, ["mktree"], listing.encode())
        new = _run(team.root, "commit-tree", tree, "-p", tip, "-p", seen, "-m",
                   "leafwise: the claims before a rewind, restored [skip ci]", identity=identity)
    pushed = refs.push(team.root, team.url, [(ref, new, tip)])
    refs.set_local(team.root, scratch, None)
    if pushed.verdict is not Verdict.APPLIED:
        return ("refused" if pushed.verdict is Verdict.REFUSED else "lost"), []
    refs.set_local(team.root, track, new)
    check_rewind(team, new, folder)  # the copy descends from itself: the record goes
    return "won", kept


def _write(root: Path, argv: list[str], data: bytes) -> str:
    answer = git.run_git_remote(root, argv[0], *argv[1:], stdin=data)
    if answer.code != 0:
        raise git.GitError(f"{argv[0]} failed: {answer.err.decode('utf-8', 'replace')[:200]}", answer.code)
    return answer.out.decode().strip()


def _run(root: Path, sub: str, *args: str, identity: tuple[str, str]) -> str:
    answer = git.run_git_remote(root, sub, *args, identity=identity)
    if answer.code != 0:
        raise git.GitError(f"{sub} failed: {answer.err.decode('utf-8', 'replace')[:200]}", answer.code)
    return answer.out.decode().strip()
