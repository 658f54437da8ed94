"""The plan as merged on the remote's default branch, for `canvas --follow`: a person watching from any
machine sees what the agents' merged branches closed, before pulling.

Each poll fetches the remote's `HEAD` (its default branch) in the same request as the claims, into
`refs/remotes-leafwise/<remote>/HEAD` (beside the claim copies: never the person's `refs/remotes/`,
and never their branch or work tree: the canvas shows, the person pulls). The node files at that commit
are read once per commit (`git ls-tree`, one `cat-file --batch`), each parsed by the plan's safe loader
behind its size cap, and only their `status` kept: the tasks closed there that are open here are what
the canvas names ("origin/main has T-2, T-3 done: git pull here").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from leafwise.commands.team import refs, remote
from leafwise.commands.team.remote import Team, TeamError
from leafwise.store import CLOSED, Plan, git
from leafwise.store.ids import id_order, is_node_id
from leafwise.store.reader import NODE
from leafwise.store.safe_yaml import MAX_NODE_BYTES, load_yaml

BATCH = 400  # node files per cat-file query (their names fit git.MAX_INPUT)
MAX_NODES = 20_000  # node files read at one commit: a default branch is the team's, but bounded all the same


@dataclass(frozen=True, slots=True)
class Upstream:
    """The remote's default branch as the last poll fetched it: its name as this clone calls it
    (`origin/main`), its commit, the statuses of its plan's nodes, and how many of its commits this
    clone's HEAD lacks."""

    name: str
    sha: str
    statuses: dict[str, str]
    behind: int

    def closed_there(self, plan: Plan) -> list[str]:
        """Tasks closed on the default branch (done, cancelled) and open in `plan`: merged there, not
        pulled here. By id."""
        nodes = plan.nodes
        return sorted((nid for nid, status in self.statuses.items() if status in CLOSED and nid in nodes
                       and nodes[nid].status not in CLOSED), key=id_order)

    def open_there(self, plan: Plan) -> list[str]:
        """Open tasks on the default branch that `plan` lacks: added there, not pulled here. By id."""
        return sorted((nid for nid, status in self.statuses.items() if status not in CLOSED
                       and nid not in plan.nodes), key=id_order)


def copy_ref(team: Team) -> str:
    return f"{refs.COPIES}/{team.remote}/HEAD"


def refspec(team: Team) -> str:
    return f"+HEAD:{copy_ref(team)}"


def fetch(team: Team) -> tuple[dict[str, str], bool]:
    """The claims' fetch with the default branch in the same request: (the claim copies, whether the
    default branch came too). A remote whose HEAD names no branch (a bare repository made with another
    default) is fetched again for the claims alone."""
    try:
        return remote.fetch(team.root, team, also=(refspec(team),)), True
    except TeamError as exc:
        if "couldn't find remote ref" not in str(exc).lower():
            raise
    return remote.fetch(team.root, team), False


def name(team: Team) -> str:
    """The default branch as a person names it here: `origin/main` (the clone's own
    `refs/remotes/<remote>/HEAD`, set by `git clone`), else `origin/HEAD`."""
    try:
        found = git.run_git(team.root, "rev-parse", "--abbrev-ref", f"refs/remotes/{team.remote}/HEAD", deadline=5)
        text = found.decode("utf-8", "replace").strip()
    except git.GitError:
        text = ""
    fits = text.startswith(f"{team.remote}/") and text.isprintable() and len(text) <= 200
    return text if fits else f"{team.remote}/HEAD"


_READ: dict[tuple[str, str], dict[str, str]] = {}  # (repo, commit) -> statuses: a commit never changes


def read(team: Team) -> Upstream | None:
    """The default branch as this clone's copy has it (None: never fetched)."""
    sha = refs.local_refs(team.root, copy_ref(team)).get(copy_ref(team))
    if sha is None:
        return None
    key = (str(team.root), sha)
    if key not in _READ:
        _READ[key] = statuses(team.root, sha, team.paths.nodes)
    return Upstream(name(team), sha, _READ[key], behind(team.root, sha))


def statuses(root: Path, sha: str, nodes: Path) -> dict[str, str]:
    """node id -> status of the node files at commit `sha` (the plan's nodes folder there); a file that
    does not parse, is too large or has no plain status is left out."""
    folder = git.pin(root).rel(nodes)
    try:
        listed = git.run_git(root, "ls-tree", "-z", "--name-only", sha, "--", folder + "/", deadline=10)
    except git.GitError:
        return {}
    # a name is untrusted: only `<node id>.yaml` (no newline can reach the batch query, which is line-based)
    names = [n for n in (raw.decode("utf-8", "replace") for raw in listed.split(b"\0"))
             if n.endswith(".yaml") and is_node_id(n.rpartition("/")[2].removesuffix(".yaml"))][:MAX_NODES]
    found: dict[str, str] = {}
    for start in range(0, len(names), BATCH):
        found.update(_batch(root, sha, names[start:start + BATCH]))
    return found



def _batch(root: Path, sha: str, names: list[str]) -> dict[str, str]:
    query = "".join(f"{sha}:{n}\n" for n in names).encode()
    try:
        answer = git.run_git_remote(root, "cat-file", "--batch", stdin=query,
                                    limit=len(names) * (MAX_NODE_BYTES + 128))
    except git.GitError:
        return {}
    data = answer.out if answer.code == 0 else b""
    out: dict[str, str] = {}
    for path in names:
        head, _, data = data.partition(b"\n")
        parts = head.split()
        if len(parts) != 3 or not parts[2].isdigit():  # `<name> missing`, `<name> ambiguous`: no body
            continue
        size = int(parts[2])
        body, data = data[:size], data[size + 1:]  # every object's body is taken off, a tree's too: a
        if parts[1] != b"blob":  # folder named `T-5.yaml` left its bytes to be read as the next header
            continue
        node_id = path.rpartition("/")[2].removesuffix(".yaml")
        try:
            doc = load_yaml(body, NODE)
        except Exception:  # noqa: BLE001 - a file that does not load there is one this canvas cannot read
            continue
        if isinstance(doc, dict) and isinstance(doc.get("status"), str) and doc.get("id", node_id) == node_id:
            out[node_id] = doc["status"]
    return out


def behind(root: Path, sha: str) -> int:
    """Commits of `sha` that this clone's HEAD lacks (0 when it has them all, or cannot tell)."""
    try:
        return len(git.run_git(root, "log", "--format=%H", "-n", "1000", sha, "^HEAD", "--", deadline=10).split())
    except git.GitError:
        return 0
