"""A claim as git objects, and the compare-and-swap push that moves its ref on the remote.

A claim ref (`refs/leafwise/claims/<ID>`) points at a commit chain: each commit's tree holds one
`claim.json` (`ClaimState`), each commit's parent is the state it replaced, so the chain is a
fast-forward history (the same protocol works on a branch). The objects are made with plumbing
(`hash-object -w`, `mktree`, `commit-tree`) through the one git runner; the push names the SHA the
caller decided on as the lease (`--force-with-lease=<ref>:<sha>`, empty for create-only), so the
server's ref transaction decides every race.

A claim fetched from the remote is untrusted plan input: read with a byte cap, every value checked.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import asdict, dataclass, replace
from enum import Enum
from pathlib import Path

from leafwise.store import git, reader, values
from leafwise.store.ids import agent_problem
from leafwise.store.paths import check_id
from leafwise.store.timestamps import parse as parse_time

CLAIM_FILE = "claim.json"
MAX_CLAIM_BYTES = 4 * 1024  # as a local claim file (store/claims.py, reader.CLAIM)
CLAIM_JSON = reader.Kind("claim on the remote", MAX_CLAIM_BYTES, 4)
STATES = ("held", "done", "released", "blocked")
TERMINAL = "done"  # never moved again, never deleted before the grace period
CLOSED_STATES = frozenset(STATES) - {"held", "released"}  # passed by: done, or blocked in some clone
# This clone's copies of the claims live beside refs/remotes/, never in it: git's own `fetch --prune`
# (or fetch.prune=true, `git remote prune`, `git remote rm`) deletes every ref under refs/remotes/<remote>/
# that its configured refspecs do not map from the remote: every copy, and with it the lease a
# heartbeat or complete names and what `team repair` restores from.
COPIES = "refs/remotes-leafwise"
SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")  # sha1 or sha256, nothing else


@dataclass(frozen=True, slots=True)
class ClaimState:
    """One state of a task's claim: who holds it (agent in clone, working on branch) and how long a
    silence lasts before another clone may take it (`ttl_s`, judged on the observer's own clock)."""

    node: str
    agent: str
    clone: str
    branch: str
    state: str
    ttl_s: float
    seq: int = 0
    since: str = ""  # the holder's wall clock, for display only: never compared across machines
    stolen_from: str = ""
    nonce: str = ""

    def as_json(self) -> bytes:
        return (json.dumps(asdict(self), indent=1, sort_keys=True) + "\n").encode()

    @property
    def holder(self) -> str:
        return f"{self.agent}@{self.clone}"

    def next(self, **changes: object) -> ClaimState:
        """The state that follows this one (its seq one more, a fresh nonce)."""
        fields = {"seq": self.seq + 1, "nonce": secrets.token_hex(4), **changes}
        return replace(self, **fields)  # type: ignore[arg-type]


def parse_state(raw: bytes, node_id: str) -> ClaimState:
    """A claim state from `claim.json` as fetched; ValueError naming what is wrong."""
    if len(raw) > MAX_CLAIM_BYTES:
        raise ValueError(f"the claim of {node_id} is over {MAX_CLAIM_BYTES} bytes")
    data = reader.load_json(raw, CLAIM_JSON)  # a remote's claim is a clone author's: bounded size and depth
    if not isinstance(data, dict):
        raise ValueError("a claim must be a JSON object")
    text = {k: values.text(data.get(k, ""), k, limit=200) for k in
            ("node", "agent", "clone", "branch", "state", "since", "stolen_from", "nonce")}
    ttl = data.get("ttl_s")
    seq = data.get("seq", 0)
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not 0 < ttl <= 7 * 24 * 3600:
        raise ValueError(f"the claim of {node_id} has no valid ttl_s")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise ValueError(f"the claim of {node_id} has no valid seq")
    if text["node"] != node_id or text["state"] not in STATES:
        raise ValueError(f"the claim of {node_id} names {text['node'][:40]!r} in state {text['state'][:20]!r}")
    for key in ("agent", "clone", "stolen_from"):  # names that go into hints: the one rule of a name
        if text[key] and agent_problem(text[key]):
            raise ValueError(f"the claim of {node_id}: its {key} {agent_problem(text[key])}")
    # Shown in team status and the canvas: each only what a writer puts there (a branch's name, the
    # holder's clock, hex), never a line break, an escape or a bidi override of someone else's text.
    if text["branch"] and not branch_name(text["branch"]):
        raise ValueError(f"the claim of {node_id}: its branch is no branch name")
    if text["since"] and not (_plain(text["since"]) and parse_time(text["since"]) is not None):
        raise ValueError(f"the claim of {node_id}: its since is no time with its zone")
    if text["nonce"] and not (len(text["nonce"]) <= 64 and all(c in "0123456789abcdef" for c in text["nonce"])):
        raise ValueError(f"the claim of {node_id}: its nonce is not hex")
    return ClaimState(ttl_s=float(ttl), seq=seq, **text)  # type: ignore[arg-type]


def _plain(text: str) -> bool:
    return all(c.isprintable() and not c.isspace() for c in text)


def branch_name(text: str) -> bool:
    """Whether `text` can be a branch's short name as git spells one (or HEAD): printable, no space and
    none of the characters git refuses in a ref (check-ref-format)."""
    return len(text) <= 200 and _plain(text) and not any(c in "~^:?*[\\" for c in text) \
        and not text.startswith(("-", "/")) and ".." not in text and "@{" not in text


def claim_ref(namespace: str, node_id: str) -> str:
    return f"{namespace}/claims/{check_id(node_id)}"


def tracking_ref(remote: str, namespace: str, ref: str) -> str:
    """Where this clone keeps its copy of the remote's `ref` (`refs/leafwise/x` ->
    `refs/remotes-leafwise/origin/leafwise/x`: outside refs/remotes/, which git's own prune empties)."""
    return f"{COPIES}/{remote}/{namespace.removeprefix('refs/')}/{ref.removeprefix(namespace + '/')}"


def _ok(answer: git.GitAnswer, what: str) -> str:
    if answer.code != 0:
        first = answer.err.decode("utf-8", "replace").strip().splitlines()[:1]
        raise git.GitError(f"{what} failed" + (f": {first[0][:200]}" if first else ""), answer.code)
    return answer.out.decode("utf-8", "replace").strip()


def make_commit(root: Path, state: ClaimState, parent: str | None, identity: tuple[str, str],
                also: str | None = None) -> str:
    """The commit holding `state` (its parent the state it replaces; `also`, a second parent: a claim
    put back over a rewind descends from both sides); its SHA."""
    blob = _ok(git.run_git_remote(root, "hash-object", "-w", "--stdin", stdin=state.as_json()), "hash-object")
    tree = _ok(git.run_git_remote(root, "mktree", stdin=f"100644 blob {blob}\t{CLAIM_FILE}\n".encode()), "mktree")
    parents = [word for sha in (parent, also) if sha for word in ("-p", sha)]
    args = [tree, *parents, "-m", f"leafwise: {state.state} {state.node} by {state.agent}"]
    return _ok(git.run_git_remote(root, "commit-tree", *args, identity=identity), "commit-tree")


def commits(root: Path, shas: list[str]) -> set[str]:
    """Those of `shas` that name commits. A claim ref is a commit: `<sha>:claim.json` also reads through
    an annotated tag or a tree a planted ref names, and the next claim made on such a lease is a commit
    git refuses (`commit-tree -p <tag>`: every `start` of that task failed with a GitError)."""
    found: set[str] = set()
    for start in range(0, len(shas), 1000):  # 1,000 lines of query fit git.MAX_INPUT
        chunk = shas[start:start + 1000]
        try:
            answer = git.run_git_remote(root, "cat-file", "--batch-check", stdin="".join(f"{s}\n" for s in chunk)
                                        .encode(), limit=len(chunk) * 128)
        except git.GitError:
            continue
        for line in answer.out.decode("utf-8", "replace").splitlines() if answer.code == 0 else ():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "commit":
                found.add(parts[0])
    return found


def read_commit(root: Path, sha: str, node_id: str) -> ClaimState | None:
    """The claim state a commit holds, or None when it holds none this clone can trust."""
    if not SHA.fullmatch(sha) or sha not in commits(root, [sha]):
        return None
    try:
        answer = git.run_git_remote(root, "cat-file", "blob", f"{sha}:{CLAIM_FILE}", limit=MAX_CLAIM_BYTES + 1)
    except git.GitError:
        return None
    if answer.code != 0:
        return None
    try:
        return parse_state(answer.out, node_id)
    except (ValueError, UnicodeDecodeError):
        return None


_STATES: dict[tuple[str, str], ClaimState | None] = {}  # a commit never changes: its state is read once


def forget() -> None:
    """Drop the claim states read so far (a test that rewrites a repository's objects)."""
    _STATES.clear()


def read_commits(root: Path, wanted: dict[str, str], blobs: bool = False) -> dict[str, ClaimState | None]:
    """node id -> the claim state its commit holds (`blobs`: the SHAs are the claim files themselves;
    None: none this clone can trust), for node id -> SHA; one `cat-file --batch` for those not read before."""
    todo = [(n, sha) for n, sha in wanted.items() if (n, sha) not in _STATES and SHA.fullmatch(sha)]
    if todo and not blobs:
        made = commits(root, sorted({sha for _, sha in todo}))
        for n, sha in todo:
            if sha not in made:
                _STATES[(n, sha)] = None
        todo = [(n, sha) for n, sha in todo if sha in made]
    for start in range(0, len(todo), 800):  # 800 lines of query fit git.MAX_INPUT
        _read_batch(root, todo[start:start + 800], blobs)
    return {n: _STATES.get((n, sha)) for n, sha in wanted.items()}


def _read_batch(root: Path, order: list[tuple[str, str]], blobs: bool) -> None:
    query = "".join(f"{sha}\n" if blobs else f"{sha}:{CLAIM_FILE}\n" for _, sha in order).encode()
    try:
        answer = git.run_git_remote(root, "cat-file", "--batch", stdin=query,
                                    limit=len(order) * (MAX_CLAIM_BYTES + 128))
    except git.GitError:  # a planted blob too large for the cap: each one on its own, capped
        for node_id, sha in order:
            _STATES[(node_id, sha)] = read_commit(root, sha, node_id)
        return
    data = answer.out if answer.code == 0 else b""
    for node_id, sha in order:
        head, _, data = data.partition(b"\n")
        parts = head.split()
        if len(parts) != 3 or not parts[2].isdigit():  # `<sha> missing`: no body follows
            _STATES[(node_id, sha)] = None
            continue
        size = int(parts[2])
        body, data = data[:size], data[size + 1:]  # a tree's or commit's body too, or it is read as the next header
        if parts[1] != b"blob":
            _STATES[(node_id, sha)] = None
            continue
        try:
            _STATES[(node_id, sha)] = parse_state(body, node_id)
        except (ValueError, UnicodeDecodeError):
            _STATES[(node_id, sha)] = None


def local_refs(root: Path, prefix: str) -> dict[str, str]:
    """Refs under `prefix` in this clone, with their SHAs."""
    answer = git.run_git_remote(root, "for-each-ref", "--format=%(objectname) %(refname)", prefix)
    found: dict[str, str] = {}
    for line in _ok(answer, "for-each-ref").splitlines():
        sha, _, name = line.partition(" ")
        if SHA.fullmatch(sha):
            found[name] = sha
    return found


def set_local(root: Path, ref: str, sha: str | None) -> None:
    """Point this clone's `ref` at `sha` (None: delete it)."""
    args = ("-d", ref) if sha is None else (ref, sha)
    _ok(git.run_git_remote(root, "update-ref", "--no-deref", *args), "update-ref")


class Verdict(Enum):
    """How a push ended: applied; rejected (the ref was not what we leased: someone else moved it);
    refused by the host (a hook, a hidden ref, HTTP 403: this kind of ref is not allowed there);
    unknown (the transport failed: the push may or may not have landed, re-fetch and compare)."""

    APPLIED = "applied"
    REJECTED = "rejected"
    REFUSED = "refused"
    UNKNOWN = "unknown"


REJECTED_WORDS = ("stale info", "fetch first", "non-fast-forward", "cannot lock ref", "already exists",
                  "but expected", "failed to update ref", "atomic transaction failed", "atomic push failed",
                  "incorrect old value")
REFUSED_WORDS = ("hook declined", "hidden ref", "funny ref", "error: 403", "prohibited", "not permitted",
                 "denied", "deny")


@dataclass(frozen=True, slots=True)
class PushAnswer:
    verdict: Verdict
    detail: str  # the line of git's answer that says why (empty when applied)


def push(root: Path, url: str, updates: list[tuple[str, str | None, str | None]], atomic: bool = False,
         deadline: float = git.REMOTE_DEADLINE) -> PushAnswer:
    """Push each (ref, new SHA or None to delete, leased SHA or None for create-only) to `url`."""
    deleted = [ref for ref, new, _old in updates if new is None]
    if deleted and (through := symbolic(root, url, deleted, deadline)) is not None:
        return through
    args = ["--porcelain", "--no-verify"] + (["--atomic"] if atomic else [])
    specs = []
    for ref, new, old in updates:
        args.append(f"--force-with-lease={ref}:{old or ''}")
        specs.append(f"{new or ''}:{ref}")
    try:
        answer = git.run_git_remote(root, "push", *args, "--", url, *specs, deadline=deadline)
    except git.GitError as exc:  # timed out: whether it landed is unknown
        return PushAnswer(Verdict.UNKNOWN, str(exc))
    return PushAnswer(verdict_of(answer), "" if answer.code == 0 else _why(answer.text))


def symbolic(root: Path, url: str, names: list[str], deadline: float) -> PushAnswer | None:
    """A refusal when one of the refs `names` is a symbolic ref on the remote (protocol v2 names each
    one's target): the host deletes the ref it points at (a claim ref made `-> refs/heads/main` made
    `team repair` delete main), so Leafwise never deletes through one. UNKNOWN when the remote did not say."""
    try:
        answer = git.run_git_remote(root, "ls-remote", "--symref", "--", url, *names, deadline=deadline)
    except git.GitError as exc:
        return PushAnswer(Verdict.UNKNOWN, str(exc))
    if answer.code != 0:
        return PushAnswer(Verdict.UNKNOWN, _why(answer.text))
    for line in answer.out.decode("utf-8", "replace").splitlines():
        head, _, name = line.partition("\t")
        if head.startswith("ref: ") and name in names:
            target = "".join(c if c.isprintable() and c.isascii() else "?" for c in head[5:])[:120]
            return PushAnswer(Verdict.REFUSED, f"{name} is a symbolic ref to {target} on the remote: "
                                               "Leafwise never deletes through one (a person removes it there)")
    return None


def verdict_of(answer: git.GitAnswer) -> Verdict:
    """The verdict of a push from its exit code and words (porcelain lines `!` mark a refused ref)."""
    text = answer.text.lower()
    lines = answer.out.decode("utf-8", "replace").splitlines()
    if answer.code == 0 and not any(line.startswith("!") for line in lines):
        return Verdict.APPLIED
    if any(word in text for word in REJECTED_WORDS):
        return Verdict.REJECTED
    if "[remote rejected]" in text or any(word in text for word in REFUSED_WORDS):
        return Verdict.REFUSED
    return Verdict.UNKNOWN


def _why(text: str) -> str:
    for line in text.splitlines():
        low = line.lower()
        if line.startswith("!") or "rejected" in low or "error" in low or "fatal" in low:
            return line.strip().replace("\t", " ")[:300]
    return text.strip().splitlines()[-1][:300] if text.strip() else "no answer"
