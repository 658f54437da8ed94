"""A warm plan for a long-lived process, never staler than its files.

The loader reads all 11,100 node files' stat and the sealed cache on every call (~0.1 s). A process
that answers many calls (the loop server, `commands/surfaces/loop_server.py`) keeps the plan it
loaded and a `PlanWatcher` on its folder instead: each `current()` first asks the watcher what was
written since (it writes a fence and waits for the fence's own event, so every write finished before
the call is seen), then reads again only the node files that changed. A changed file that keeps its
node where the index put it (the same id, parent, release and title: `loader.same_place`) replaces
that one node; anything else (a node added, removed, moved or broken, project.yaml, a watch that can
no longer vouch) loads the whole plan again, through the loader, as a fresh process would.

Each call gets its own `Plan` over the shared nodes (a copy of the dict and the problem list):
commands patch their plan by replacing nodes (`commands/domain/nodes.patch`), never in place, so one
call's patches never reach the next call's plan; the next call sees what the files say. What a
caller derives from a plan alone (the pick order, the validator's problems) it may keep in `memo`,
which is new with every `generation`: any node, project, doc or cycle file seen changed.
"""

from __future__ import annotations

import os

from leafwise.store.loader import load_plan, read_node_file, same_place
from leafwise.store.model import Node, Plan, Status
from leafwise.store.paths import PlanPaths
from leafwise.store.watch import MAX_FOLDERS, FolderGuard, PlanWatcher


class LinkedFolder(RuntimeError):
    """A link to a folder inside the plan's folder (the watch would follow it), or more folders than
    MAX_FOLDERS (the watch would take one each): no warm plan here."""


class LivePlan:
    def __init__(self, paths: PlanPaths):
        self.paths = paths
        self._guard = FolderGuard(paths.dir)
        if not self._guard.safe:  # before the watch starts: it would add a watch for every folder there
            raise LinkedFolder(f"a link to a folder, or over {MAX_FOLDERS} folders, in {paths.dir}")
        self._watcher = PlanWatcher(paths)  # OSError, RuntimeError: no watch here (the caller loads per call)
        self._plan: Plan | None = None
        self.reloads = 0  # whole loads so far (what the tests and the bench count)
        self.generation = 0  # moves on with every change seen: what was derived before is for the old plan
        self.memo: dict[str, object] = {}  # what callers derived from this generation's plan alone
        self.broken = False  # the watch could not be made again: nothing here vouches for a warm plan

    def current(self) -> Plan:
        """The plan as the files are now: a call's own `Plan` over the warm nodes."""
        changes = self._watcher.changes()
        if changes.plan_stale or changes.docs or changes.cycles or self._watcher.lost or self._plan is None:
            self.generation += 1
            self.memo = {}
        if self._watcher.lost:  # the folder was replaced or the fence never came back: watch anew
            self.close()
            self._plan = None
            try:
                self._watcher = PlanWatcher(self.paths)
            except (OSError, RuntimeError):  # no watch any more (its fence cannot be written): this call
                self.broken = True  # loads the plan as its own process would; the owner stops keeping it
                return load_plan(self.paths)
        elif changes.project:
            self._plan = None
        if self._plan is not None and changes.nodes and not self._merge(changes.nodes):
            self._plan = None
        if self._plan is None:
            self._plan = load_plan(self.paths)
            self.reloads += 1
        plan = self._plan
        return Plan(paths=plan.paths, project=plan.project, nodes=dict(plan.nodes), problems=list(plan.problems))

    def drop(self) -> None:
        """Forget the warm plan (a call failed half-way: what it did is not to be trusted)."""
        self._plan = None
        self.generation += 1
        self.memo = {}

    def watch_safe(self) -> bool:
        """Whether a watch may still take the plan's tree (`watch.FolderGuard`: asked again when a
        folder's stamp moved, anything made, removed or renamed in it or the folder replaced: a folder
        holding a link to /usr moved in where another was kept every link count and took 12,663
        inotify watches). A stat per folder per call."""
        return self._guard.still_safe()

    @property
    def lost(self) -> bool:
        return self._watcher.lost

    def close(self) -> None:
        try:
            self._watcher.close()
        except OSError:  # its fence's folder is no folder any more: nothing of it to remove
            pass

    def _merge(self, ids: set[str]) -> bool:
        """Replace the nodes whose files changed in place; False when that is not enough (a whole load)."""
        plan = self._plan
        assert plan is not None
        flagged = {p.node for p in plan.problems}
        fresh: dict[str, Node] = {}
        for nid in ids:
            old = plan.nodes.get(nid)
            path = self.paths.node_file(nid)
            if old is None or nid in flagged or not os.path.lexists(path):
                return False
            loaded = read_node_file(path)
            if loaded.error or loaded.data is None or loaded.data.get("id") != nid:
                return False
            if loaded.digest == old.digest:
                continue
            if not same_place(old.data, loaded.data):
                return False
            data = loaded.data
            node = Node(nid, data["title"], Status(data["status"]), data, old.file, loaded.digest)
            node.children, node.depth, node.effective_release = old.children, old.depth, old.effective_release
            fresh[nid] = node
        plan.nodes.update(fresh)
        return True
