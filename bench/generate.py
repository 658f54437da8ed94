"""A realistic Leafwise plan of any size, for the benchmark.

The shape is releases × epics × features × leaves (4 × 25 × 10 × 10 = 11,100
nodes with the epics and features), one file per node in the on-disk format of
docs/plan-format.md, written by hand (no ruamel: 50,000 files must take seconds).

The plan is what a team has after a while of agent work, and it is valid:
early releases are mostly done, later ones mostly draft; parents are done only
when all their children are closed (the cascade), in progress when work under
them started; blocked tasks carry a reason; in-progress and done tasks have an
assignee; `depends_on` links only point at nodes generated earlier (no cycles)
and a started or closed task only depends on closed ones; a few docs and
diagrams exist and are linked; the journal holds the events that got it here.
Deterministic for a given shape and seed.

    python bench/generate.py DIR --nodes 11100
    python bench/generate.py DIR --releases 4 --epics 25 --features 10 --leaves 10
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

PREFIX = "BIG"
AGENTS = ("claude-1", "claude-2", "codex-1", "gemini-1", "alice", "bob")
# How far each release has got: (done, in progress, blocked, cancelled) shares of its leaves,
# and the share of its epics that are finished outright.
MATURITY = ((0.85, 0.01, 0.03, 0.03, 0.4), (0.45, 0.01, 0.02, 0.02, 0.1), (0.10, 0.005, 0.02, 0.01, 0.0),
            (0.0, 0.0, 0.005, 0.0, 0.0))
AREAS = ("Accounts", "Catalogue", "Checkout", "Payments", "Search", "Notifications", "Admin", "Reporting",
         "Onboarding", "Billing", "Inventory", "Shipping", "Reviews", "Analytics", "Support", "Settings")
VERBS = ("Add", "Build", "Wire", "Test", "Document", "Harden", "Refactor", "Cache", "Validate", "Migrate",
         "Instrument", "Paginate", "Localise", "Audit", "Expose", "Simplify")
THINGS = ("login form", "session store", "price rules", "search index", "webhook handler", "email template",
          "rate limiter", "CSV export", "audit log", "retry policy", "feature flag", "health check",
          "permission check", "image upload", "order history", "refund flow", "tax table", "stock sync",
          "review moderation", "dashboard chart", "password reset", "address book", "coupon codes")
REASONS = ("waiting for the payment provider's sandbox keys", "needs a decision on the data retention period",
           "the staging database is down", "blocked on the design review of the new layout",
           "upstream library bug, see the linked issue")
DOCS = 24
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 .,()'-]*[A-Za-z0-9.)]")


def shape_for(nodes: int) -> tuple[int, int, int, int]:
    """(releases, epics, features, leaves) of about `nodes` nodes: 10 features of 10 leaves per epic."""
    per_epic = 1 + 10 + 10 * 10
    total_epics = max(1, round(nodes / per_epic))
    releases = next(r for r in (4, 3, 2, 1) if total_epics % r == 0)
    return releases, total_epics // releases, 10, 10


def count(releases: int, epics: int, features: int, leaves: int) -> int:
    return releases * epics * (1 + features + features * leaves)


def _stamp(day: int, minute: int = 0) -> str:
    month, mday = divmod(day % 300, 28)
    return f"2026-{month % 12 + 1:02d}-{mday + 1:02d}T{9 + minute // 60 % 9:02d}:{minute % 60:02d}:00Z"


def _q(text: str) -> str:
    """Plain when YAML reads it back as the same text, else double-quoted (JSON is valid YAML)."""
    return text if _PLAIN.fullmatch(text) else json.dumps(text, ensure_ascii=False)


class _Writer:
    """Builds node files and journal events in generation order."""

    def __init__(self, root: Path, rng: random.Random):
        self.dir = root / ".leafwise"
        self.nodes_dir = self.dir / "nodes"
        self.rng = rng
        self.next_id = 1
        self.journal: list[str] = []
        self.written = 0

    def new_id(self) -> str:
        node_id = f"{PREFIX}-{self.next_id}"
        self.next_id += 1
        return node_id

    def node(self, node_id: str, title: str, status: str, *, parent: str | None = None,
             release: str | None = None, assignee: str | None = None, reason: str | None = None,
             summary: str | None = None, depends_on: list[str] = (), tags: list[str] = (),
             trigger: str | None = None, docs: list[str] = (), diagrams: list[str] = (), day: int = 0) -> None:
        lines = [f"id: {node_id}", f"title: {_q(title)}"]
        if parent:
            lines.append(f"parent: {parent}")
        if release:
            lines.append(f"release: {release}")
        lines.append(f"status: {status}")
        lines.append(f"assignee: {assignee or 'null'}")
        if reason:
            lines.append(f"blocked_reason: {_q(reason)}")
        if summary:
            lines.append(f"summary: {_q(summary)}")
        for key, values in (("depends_on", depends_on), ("tags", tags)):
            if values:
                lines.append(f"{key}: [{', '.join(values)}]")
        if trigger:
            lines.append(f"trigger: {_q(trigger)}")
        for key, values in (("docs", docs), ("diagrams", diagrams)):
            if values:
                lines.append(f"{key}: [{', '.join(values)}]")
        lines.append(f"created: {_stamp(day)}")
        lines.append(f"updated: {_stamp(day + 3, self.written % 540)}")
        (self.nodes_dir / f"{node_id}.yaml").write_text("\n".join(lines) + "\n")
        self.written += 1
        if assignee and status != "draft":
            self.event(day + 1, assignee, "start", node_id, {"status": ["draft", "in-progress"],
                                                            "assignee": [None, assignee]})
        if status == "done" and summary:
            self.event(day + 2, assignee, "complete", node_id, {"status": ["in-progress", "done"],
                                                               "summary": [None, summary]})
        elif status == "blocked":
            self.event(day + 2, assignee, "block", node_id, {"status": ["in-progress", "blocked"],
                                                            "blocked_reason": [None, reason]})

    def event(self, day: int, actor: str | None, command: str, node_id: str, changes: dict) -> None:
        self.journal.append(json.dumps({"time": _stamp(day, self.written % 540), "actor": actor or "human",
                                        "command": command, "node": node_id, "changes": changes},
                                       separators=(",", ":")))


def _leaf_status(rng: random.Random, shares: tuple[float, ...], progress: float, finished: bool) -> str:
    """A leaf's status; `progress` (0..1) places it in its feature: done work comes first."""
    done, doing, blocked, cancelled, _finished = shares
    if finished or (progress < done and rng.random() > 0.02):  # a few stay behind
        return "cancelled" if rng.random() < cancelled else "done"
    roll = rng.random()
    if roll < doing:
        return "in-progress"
    return "blocked" if roll < doing + blocked else "draft"


def _parent_status(children: list[str]) -> str:
    """What the cascade and `start` leave a parent at, given its children's statuses."""
    if all(s in ("done", "cancelled") for s in children):
        return "done" if "done" in children else "cancelled"
    if any(s != "draft" for s in children):
        return "in-progress"
    return "draft"


def generate(root: Path, releases: int = 4, epics: int = 25, features: int = 10, leaves: int = 10,
             seed: int = 0) -> int:
    """Write a plan into `root/.leafwise` (which must not exist yet); returns the node count."""
    rng = random.Random(seed)
    out = _Writer(Path(root), rng)
    if out.dir.exists():
        raise FileExistsError(f"{out.dir} already exists")
    out.nodes_dir.mkdir(parents=True)
    (out.dir / "docs").mkdir()
    (out.dir / "diagrams").mkdir()
    release_lines = "".join(f"  - {{id: R{r + 1}, title: Release {r + 1}"
                            + (f", target: 2027-{r * 2 + 1:02d}-15" if r < 3 else "") + "}\n"
                            for r in range(releases))
    (out.dir / "project.yaml").write_text(
        "# A generated plan for the Leafwise benchmark (bench/generate.py).\n"
        f"schema: 1\npid: big\nname: Big plan\nid_prefix: {PREFIX}\nreleases:\n{release_lines}")
    docs = [f"docs/{AREAS[i % len(AREAS)].lower()}-{i}.md" for i in range(DOCS)]
    for i, doc in enumerate(docs):
        (out.dir / doc).write_text(f"# {AREAS[i % len(AREAS)]} notes {i}\n\nDesign notes for the benchmark plan.\n")
    diagrams = [f"diagrams/flow-{i}.mmd" for i in range(DOCS // 4)]
    for diagram in diagrams:
        (out.dir / diagram).write_text("flowchart LR\n  a --> b\n")
    closed: list[str] = []  # closed leaves so far, for dependencies of started work
    day = 0
    for r in range(releases):
        shares = MATURITY[min(r, len(MATURITY) - 1)]
        for e in range(epics):
            epic_id = out.new_id()
            area = AREAS[(r * epics + e) % len(AREAS)]
            finished = rng.random() < shares[4]
            feature_rows: list[tuple[str, str, list[str], str]] = []  # (id, title, leaf statuses, leaf day)
            for f in range(features):
                feature_id = out.new_id()
                feature_title = f"{area}: {rng.choice(THINGS)} {r + 1}.{e + 1}.{f + 1}"
                progress_offset = rng.random() * 0.3 - 0.15
                statuses: list[str] = []
                previous: list[str] = []
                for leaf in range(leaves):
                    leaf_id = out.new_id()
                    day += 1 if rng.random() < 0.05 else 0
                    status = _leaf_status(rng, shares, max(0.0, (leaf + 0.5) / leaves + progress_offset), finished)
                    statuses.append(status)
                    who = rng.choice(AGENTS) if status != "draft" else None
                    depends: list[str] = []
                    if rng.random() < 0.15:
                        pool = previous if status == "draft" else [p for p in previous if p in closed[-leaves:]]
                        pool = pool or (closed[-200:] if closed and rng.random() < 0.5 else [])
                        if pool:
                            depends = [rng.choice(pool)]
                    tech_debt = rng.random() < 0.03
                    out.node(leaf_id, f"{rng.choice(VERBS)} {rng.choice(THINGS)} ({area.lower()} {leaf + 1})",
                             status, parent=feature_id, assignee=who,
                             reason=rng.choice(REASONS) if status == "blocked" else None,
                             summary=f"Shipped {leaf_id}: tests green, docs updated." if status == "done" else
                             ("Cancelled: superseded by a simpler design." if status == "cancelled" else None),
                             depends_on=depends, tags=["tech-debt"] if tech_debt else [],
                             trigger="when traffic doubles" if tech_debt and rng.random() < 0.5 else None,
                             docs=[rng.choice(docs)] if rng.random() < 0.02 else [], day=day)
                    previous.append(leaf_id)
                    if status in ("done", "cancelled"):
                        closed.append(leaf_id)
                feature_rows.append((feature_id, feature_title, statuses, day))
            feature_statuses = [_parent_status(row[2]) for row in feature_rows]
            for (feature_id, title, statuses, fday), status in zip(feature_rows, feature_statuses):
                out.node(feature_id, title, status, parent=epic_id,
                         summary="All tasks closed." if status == "done" else None,
                         docs=[rng.choice(docs)] if rng.random() < 0.1 else [], day=fday)
            epic_status = _parent_status(feature_statuses)
            out.node(epic_id, f"{area} epic {r + 1}.{e + 1}", epic_status, release=f"R{r + 1}",
                     summary="All features closed." if epic_status == "done" else None,
                     docs=[docs[(r * epics + e) % len(docs)]],
                     diagrams=[diagrams[e % len(diagrams)]] if e % 5 == 0 else [], day=day)
    (out.dir / "journal.jsonl").write_text("".join(line + "\n" for line in out.journal))
    return out.written


def from_peer_spec(spec: Path, root: Path) -> int:
    """The very plan bench/peers/generate.py gives Task Master and Backlog.md, as a Leafwise plan.

    `spec` is its `--tool spec` output (plan.json): N flat tasks with deps. Each
    becomes a top-level node PEER-<n> in one release; todo is draft; the
    description and acceptance criteria stay as extra keys, as a user's would.
    """
    tasks = json.loads(Path(spec).read_text())
    plan = Path(root) / ".leafwise"
    if plan.exists():
        raise FileExistsError(f"{plan} already exists")
    (plan / "nodes").mkdir(parents=True)
    (plan / "project.yaml").write_text("# The peers' benchmark plan (bench/peers/generate.py --tool spec).\n"
                                       "schema: 1\npid: peer\nname: Peer plan\nid_prefix: PEER\n"
                                       "releases:\n  - {id: R1, title: Release 1}\n")
    statuses = {"done": "done", "in_progress": "in-progress", "todo": "draft"}
    for task in tasks:
        status = statuses[task["status"]]
        lines = [f"id: PEER-{task['id']}", f"title: {_q(task['title'])}", "release: R1", f"status: {status}",
                 f"assignee: {task['assignee'] or ('agent' if status == 'in-progress' else 'null')}",
                 f"depends_on: [{', '.join(f'PEER-{d}' for d in task['deps'])}]",
                 f"tags: [{', '.join(task['labels'])}]", f"priority: {task['priority']}",
                 f"description: {_q(task['description'])}"]
        if task.get("acceptance"):
            lines.append("acceptance:")
            lines += [f"  - {_q(item)}" for item in task["acceptance"]]
        lines.append(f"created: {task['created'].replace('+00:00', 'Z')}")
        (plan / "nodes" / f"PEER-{task['id']}.yaml").write_text("\n".join(lines) + "\n")
    return len(tasks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="folder to create the plan in (its .leafwise/ must not exist)")
    parser.add_argument("--nodes", type=int, help="about this many nodes (11100, 1110, 49950 ...)")
    parser.add_argument("--releases", type=int)
    parser.add_argument("--epics", type=int)
    parser.add_argument("--features", type=int)
    parser.add_argument("--leaves", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--from-peer-spec", type=Path, metavar="PLAN_JSON",
                        help="convert bench/peers/generate.py's --tool spec plan instead of generating")
    args = parser.parse_args(argv)
    if args.from_peer_spec:
        args.dir.mkdir(parents=True, exist_ok=True)
        print(f"{from_peer_spec(args.from_peer_spec, args.dir)} nodes in {args.dir / '.leafwise'}")
        return 0
    shape = list(shape_for(args.nodes) if args.nodes else (4, 25, 10, 10))
    for i, name in enumerate(("releases", "epics", "features", "leaves")):
        if getattr(args, name) is not None:
            shape[i] = getattr(args, name)
    args.dir.mkdir(parents=True, exist_ok=True)
    written = generate(args.dir, *shape, seed=args.seed)
    print(f"{written} nodes ({' × '.join(map(str, shape))}) in {args.dir / '.leafwise'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
