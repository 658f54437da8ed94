"""The team's remote: its settings (project.yaml `settings.team`), its URL, this clone's id, and the fetch
of every claim ref into this clone's remote-tracking copies.

Pushes and fetches go to the remote's URL, never by its name, so no `remote.<name>.receivepack`,
`uploadpack` or proxy setting of a cloned repository's config is ever read; a local remote (a path or
file://) is served by the program the runner names (store/git.py `LOCAL_SERVICE`), never its own hooks.
"""

from __future__ import annotations

import re
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leafwise.commands.team import refs
from leafwise.commands.team.wire import TeamError, ask
from leafwise.store import atomic, git, reader
from leafwise.store.paths import PlanPaths, find_root

SETTING = "team"  # project.yaml settings key
DEFAULT_NAMESPACE = "refs/leafwise"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # a remote's name, a clone id
FETCH_DEADLINE = 20.0


@dataclass(frozen=True, slots=True)
class Team:
    """One clone's view of team mode: the plan, the remote (name and URL), the ref namespace, the mode."""

    paths: PlanPaths
    remote: str
    url: str
    namespace: str
    mode: str  # "refs": one ref per claim; "branch": one state branch (hosts that refuse custom refs)
    state_branch: str = "leafwise/state"
    # The plan's node ids, when the caller has the plan: a claim ref of any other name (a remote may hold
    # thousands) is dropped before any per-ref work (`copies`, the sightings, `protocol.snapshot`).
    ids: frozenset[str] | None = None

    @property
    def root(self) -> Path:
        return self.paths.repo

    @property
    def joined(self) -> bool:
        """Whether this clone has joined the team (`team join`: its clone id): only then does it write claims."""
        return joined(self.root)

    @property
    def tracking_prefix(self) -> str:
        return f"{refs.COPIES}/{self.remote}/{self.namespace.removeprefix('refs/')}/"

    @property
    def refspec(self) -> str:
        if self.mode == "branch":
            return f"+refs/heads/{self.state_branch}:{refs.COPIES}/{self.remote}/{self.state_branch}"
        return f"+{self.namespace}/claims/*:{self.tracking_prefix}claims/*"  # all team mode reads

    def copies(self) -> dict[str, str]:
        """This clone's copies of the claims: ref -> SHA (branch mode: the same names -> each file's blob);
        only the plan's tasks' when `ids` is known."""
        from leafwise.commands.team import branch

        if self.mode == "branch":
            found = branch.copies(self.root, self.remote, self.state_branch, self.tracking_prefix)
        else:
            found = refs.local_refs(self.root, self.tracking_prefix + "claims/")
        if self.ids is None:
            return found
        start = len(self.tracking_prefix + "claims/")
        return {ref: sha for ref, sha in found.items() if ref[start:] in self.ids}


def settings_of(project_settings: dict[str, Any]) -> dict[str, Any] | None:
    """The team setting of a project (checked by store/project_file.py), or None: team mode is off."""
    value = project_settings.get(SETTING)
    return value if isinstance(value, dict) and value.get("remote") else None


def team_of(paths: PlanPaths, project_settings: dict[str, Any]) -> Team | None:
    """This clone's Team when the plan has team mode on, else None; TeamError when its remote is unknown here."""
    found = settings_of(project_settings)
    if found is None:
        return None
    name = str(found["remote"])
    return Team(paths, name, remote_url(paths.repo, name), str(found.get("namespace") or DEFAULT_NAMESPACE),
                str(found.get("mode") or "refs"), str(found.get("state_branch") or "leafwise/state"))


def remote_url(root: Path, name: str) -> str:
    """The push URL of the remote `name` in this clone (its pushurl when it has one)."""
    if not NAME.fullmatch(name):
        raise TeamError(f"{name[:40]!r} is not a remote's name", "setup")
    for key in (f"remote.{name}.pushurl", f"remote.{name}.url"):
        try:
            url = git.run_git(root, "config", "--get", key, deadline=5).decode("utf-8", "replace").strip()
        except git.GitError:
            continue
        if url:
            return url
    raise TeamError(f"this clone has no remote named {name}", "setup")


def load_team(root: Path) -> Team:
    """The Team of the plan found from `root`; TeamError("setup") when team mode is off there."""
    from leafwise.store.project_file import load_project

    paths = find_root(root)
    project, _ = load_project(paths)
    team = team_of(paths, project.settings)
    if team is None:
        raise TeamError("team mode is off in this plan (no settings.team in project.yaml)", "setup")
    return team


UNREACHABLE_WORDS = ("could not read", "unable to access", "could not resolve", "connection refused",
                     "unable to connect", "timed out", "took longer", "does not appear to be a git repository",
                     "early eof", "the remote end hung up", "could not connect", "no route", "failed to connect",
                     "network is unreachable", "not found")


def fetch(root: Path, team: Team | None = None, deadline: float | None = None,
          also: tuple[str, ...] = ()) -> dict[str, str]:
    """Fetch every ref of the team's namespace into this clone's remote-tracking copies (one protocol-v2
    request that names only that prefix); the copies, ref -> SHA, after it. TeamError when the remote
    does not answer. Refs the remote no longer has keep their copies (what `team repair` restores from), and
    so does a ref a force-push rewound (rewinds.py; branch mode: branch.check_rewind). `also`: more
    refspecs in the same request (`canvas --follow`: the default branch, `upstream.py`)."""
    from leafwise.commands.team import observations

    team = team or load_team(root)
    branch_mode = team.mode == "branch"
    if branch_mode:
        from leafwise.commands.team import branch as state_branch

        seen = state_branch.last_seen(team)
    before = None if branch_mode else _without_nested(team)  # each claim ref's history only grows: checked below
    excluded: list[str] = []
    for wait_s in LOCAL_LOCK_RETRIES:
        answer = ask(team, "fetch", "--no-tags", "--no-write-fetch-head", "--quiet", *(["--stdin"] if excluded else []),
                     "--", team.url, team.refspec, *also, deadline=FETCH_DEADLINE if deadline is None else deadline,
                     stdin="".join(f"^{ref}\n" for ref in excluded).encode() if excluded else None)
        if answer.code == 0 or not local_lock(answer.text):
            break
        if not branch_mode and not excluded and NESTED_WORDS in answer.text:
            excluded = sorted(nested_on_remote(team))  # each, as a negative refspec: one `*` cannot say "a '/'"
            if excluded:
                continue
        time.sleep(wait_s)  # another process of this clone updates the same copies: its fetch is ours
    if answer.code != 0 and not (branch_mode and "couldn't find remote ref" in answer.text.lower()):
        raise _failure(team, answer.text)  # (a state branch not made yet is no failure)
    if branch_mode:
        state_branch.check_rewind(team, seen, team_dir(team.root))
    copies = team.copies()
    if before:
        from leafwise.commands.team import rewinds

        copies = rewinds.check(team.root, before, copies, team_dir(team.root))
    observations.seen(team_dir(team.root), copies)
    return copies


NESTED_WORDS = "exists; cannot create"  # git: a ref and one nested under its name cannot both be


def nested_on_remote(team: Team) -> dict[str, str]:
    """The remote's refs under `claims/` whose name holds a `/` (`claims/T-2/x`), ref -> SHA: no claim is
    named so. Each one holds the place of the claim ref it sits under, there (a push of `claims/T-2` fails)
    and in every clone that keeps a copy of `claims/T-2` (its fetch cannot write `…/T-2/x`). {} when the
    remote does not answer."""
    prefix = f"{team.namespace}/claims/"
    answer = ask(team, "ls-remote", "--", team.url, f"{prefix}*")
    found = {}
    for line in answer.out.decode("utf-8", "replace").splitlines() if answer.code == 0 else ():
        sha, _, name = line.partition("\t")
        if name.startswith(prefix) and "/" in name[len(prefix):] and refs.SHA.fullmatch(sha):
            found[name] = sha
    return found


def _without_nested(team: Team) -> dict[str, str]:
    """`team.copies()`, after deleting this clone's copies under `claims/` whose name holds a `/` (run
    before each fetch). No claim is named so, and a copy of one a remote held even briefly (`claims/T-4/x`:
    the refspec's `*` takes it, and copies of refs the remote deleted are kept) blocks the copy of the claim
    it sits under (git: "'…/T-4/x' exists; cannot create '…/T-4'"): every fetch of this clone failed for
    good once anyone claimed T-4. A negative refspec cannot say "a name with a slash" (one `*` a refspec)."""
    prefix = team.tracking_prefix + "claims/"
    found = refs.local_refs(team.root, prefix)
    for ref in [ref for ref in found if "/" in ref[len(prefix):]]:
        del found[ref]
        try:
            refs.set_local(team.root, ref, None)
        except git.GitError:  # another process of this clone deleted it first
            pass
    return found if team.ids is None else {ref: sha for ref, sha in found.items() if ref[len(prefix):] in team.ids}


# Another agent of this clone fetching at the same moment holds a copy's ref lock: git says so, and the
# remote answered (the copies are this clone's own files). Fetch again, a few times, before any verdict.
LOCAL_LOCK_WORDS = ("cannot lock ref", "unable to update local ref", ".lock': file exists")
LOCAL_LOCK_RETRIES = (0.05, 0.2, 0.5, 1.0, 0.0)


def local_lock(text: str) -> bool:
    low = text.lower()
    return any(words in low for words in LOCAL_LOCK_WORDS)


def _failure(team: Team, text: str) -> TeamError:
    low = text.lower()
    first = " ".join(line.strip() for line in text.splitlines() if line.strip())[:300] or "no answer"
    if local_lock(text):
        return TeamError(f"this clone's copies of {team.remote}'s claims are locked by another process "
                         f"(a git that crashed leaves a .lock file): {first}", "locked")
    if "403" in low or "denied" in low:
        return TeamError(f"{team.remote} ({team.url}) refused: {first}", "refused")
    return TeamError(f"remote unreachable ({team.remote}): {first}", "unreachable")


def common_dir(root: Path) -> Path:
    """The clone's own git folder (shared by its worktrees): where team mode keeps this clone's files."""
    out = git.run_git(root, "rev-parse", "--git-common-dir", deadline=5)
    return git.pin(root).work_tree / out.decode("utf-8", "surrogateescape").strip()  # git runs in the work tree


_DIRS: dict[str, Path] = {}


def team_dir(root: Path) -> Path:
    """`<the clone's git folder>/leafwise/`, made on first use (found once per process)."""
    if str(root) not in _DIRS:
        folder = common_dir(root) / "leafwise"
        folder.mkdir(exist_ok=True)
        _DIRS[str(root)] = folder
    return _DIRS[str(root)]


_CLONES: dict[str, str] = {}
NOT_JOINED = ("project.yaml turns team mode on, but this clone has not joined the team: claims are pushed to the "
              "remote with the person's git credentials, so a person joins each clone once")


def clone_id(root: Path, create: bool = False) -> str:
    """This clone's id (`<host>-<random>`), kept in the clone's git folder; made only by `team init` and
    `team join` (`create`). Every claim a clone writes names it, so a clone without one (it never joined)
    writes none: TeamError "not_joined", which `session.failed` answers with `Fix: leafwise team join`."""
    if str(root) not in _CLONES:
        _CLONES[str(root)] = _clone_id(root, create)
    return _CLONES[str(root)]


def _clone_id(root: Path, create: bool) -> str:
    path = team_dir(root) / "clone-id"
    try:
        found = reader.read_text(path, reader.POINTER).strip()
        if NAME.fullmatch(found):
            return found
    except (OSError, ValueError):
        pass
    if not create:
        raise TeamError(NOT_JOINED, "not_joined")
    host = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:20].strip("-") or "clone"
    made = f"{host}-{secrets.token_hex(3)}"
    try:
        atomic.create(path, (made + "\n").encode())
    except atomic.Exists:  # another process of this clone made it first: theirs
        return reader.read_text(path, reader.POINTER).strip()
    return made


def joined(root: Path) -> bool:
    """Whether this clone has its id (it ran `team join` or `team init`): reads answer either way."""
    try:
        clone_id(root)
    except TeamError:
        return False
    return True


_IDENTITY: dict[str, tuple[str, str]] = {}


def identity(root: Path) -> tuple[str, str]:
    """The author of claim commits: the person's git identity, else Leafwise's (read once per clone)."""
    if str(root) not in _IDENTITY:
        _IDENTITY[str(root)] = _identity(root)
    return _IDENTITY[str(root)]


def _identity(root: Path) -> tuple[str, str]:
    name = git.person_name(root)
    try:
        email = git.printable(git.run_git(root, "config", "--get", "user.email", deadline=5).decode("utf-8", "replace"))
    except git.GitError:
        email = ""
    return name or "leafwise", email or "leafwise@localhost"


def branch(root: Path) -> str:
    """The branch this clone works on ("HEAD" when detached, or when its name is one a claim cannot carry:
    git allows a bidi override or a format character in a branch's name, `refs.branch_name` does not)."""
    try:
        name = git.run_git(root, "rev-parse", "--abbrev-ref", "HEAD", deadline=5).decode("utf-8", "replace").strip()
    except git.GitError:
        return "HEAD"
    return name if refs.branch_name(name) else "HEAD"
