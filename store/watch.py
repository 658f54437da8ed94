"""Which plan files changed: a small watchfiles wrapper for the canvas and the MCP server.

It maps raw file events under `.leafwise/` to what a viewer must re-read
(node ids, the project file, the journal, claims, docs, cycles) and drops the
noise every write makes: the derived `.cache/`, the `.locks/` (but an import's
manifest, `STATE_FILES`), and the temporary files of atomic writes (but under docs/,
where a node may link any name). `watch` streams those batches to the
canvas; `PlanWatcher` answers a long-lived server's "anything since I last
looked?" synchronously; `ChangeWait` blocks a waiting call (`next --wait`) until
the plan may have changed. Nothing here knows about the UI.
"""

from __future__ import annotations

import math
import os
import stat
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Iterable

from leafwise.store import atomic, polling
from leafwise.store.ids import ID_PATTERN
from leafwise.store.paths import PlanPaths

IGNORED_DIRS = frozenset({".cache", ".locks", ".git", "__pycache__"})
# Editors' and atomic writers' scratch files: `.lw-…` temps, `foo.yaml~`, `.swp`, `.tmp`.
SCRATCH_SUFFIXES = ("~", ".swp", ".swx", ".tmp", ".part")


@dataclass
class PlanChanges:
    """One batch of changes, by kind; paths in `docs` are relative to `.leafwise/`."""

    nodes: set[str] = field(default_factory=set)
    project: bool = False
    journal: bool = False
    claims: bool = False
    cycles: bool = False
    docs: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.nodes or self.project or self.journal or self.claims or self.cycles or self.docs)

    @property
    def plan_stale(self) -> bool:
        """Whether a loaded `Plan` is out of date: a node file or project.yaml changed."""
        return bool(self.nodes or self.project)

    def merge(self, other: PlanChanges) -> None:
        self.nodes |= other.nodes
        self.docs |= other.docs
        self.project |= other.project
        self.journal |= other.journal
        self.claims |= other.claims
        self.cycles |= other.cycles


# Folders under the plan's folder a watch may take (one inotify watch each, of the user's ~8,192 to
# ~200,000 for every tool they run): a plan has a handful; a cloned plan's 200,000 empty-ish folders
# (a few MB in git) took one watch each, all of the user's, for as long as its watcher lived.
MAX_FOLDERS = 1_000


FolderStamp = tuple[int, int, int, int]


def folder_stamp(st: os.stat_result) -> FolderStamp:
    """What moves when anything is added to, removed from or renamed in a folder, or the folder is
    replaced: its mtime and ctime (a link count moves only for a subfolder, never for a link made
    in it, and btrfs keeps every folder's at 1), its inode, its link count."""
    return (st.st_ino, st.st_nlink, st.st_mtime_ns, st.st_ctime_ns)


def folder_links(base: Path | str) -> dict[str, FolderStamp] | None:
    """Each folder under `base` (itself included) with its stamp (`folder_stamp`, taken before its
    entries are read), or None when no watch may take this tree: a link to a folder inside it
    (watchfiles' notify follows it down the whole tree it names: a cloned plan's `docs/usr -> /usr`
    took 15,498 of the user's inotify watches, a link to `/` all of them), or more than MAX_FOLDERS
    folders. Every watcher here asks first, and without a safe watch compares stat walks instead
    (store/polling.py, which follows no link); a warm plan asks again when a folder's stamp moved."""
    folders: dict[str, FolderStamp] = {}
    stack = [os.fspath(base)]
    while stack:
        folder = stack.pop()
        if len(folders) >= MAX_FOLDERS:
            return None
        try:
            folders[folder] = folder_stamp(os.lstat(folder))
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_symlink():
                        if os.path.isdir(entry.path):
                            return None
                    elif entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue  # gone, or not ours to read: the watch cannot follow it either
    return folders


# Plan state inside a folder the watch otherwise ignores: an import's write-ahead manifest
# (commands/adoption/manifest.py NAME), which every command's validation reads (an interrupted import is
# an error that refuses `complete`). Dropped with the lock files, a manifest left after a warm loop
# server's start let a served `complete` finish a task its own run refused (exit 0 against 4).
STATE_FILES = (".locks/import.json",)


class FolderGuard:
    """Whether a watch may still hold the tree under `base` (`folder_links`), asked again only when a
    folder's stamp moved: a stat per folder per look. Every watcher asks it as long as it watches, not
    only when it starts: a folder holding a link to a 3,000-folder tree moved in where another was made
    the MCP server hold 3,036 inotify watches for as long as it lived (notify follows links)."""

    def __init__(self, base: Path | str):
        self.base = base
        self.folders = folder_links(base)

    @property
    def safe(self) -> bool:
        return self.folders is not None

    def still_safe(self) -> bool:
        if self.folders is None:
            return False
        for folder, stamp in self.folders.items():
            try:
                if folder_stamp(os.lstat(folder)) != stamp:
                    break
            except OSError:
                break
        else:
            return True
        self.folders = folder_links(self.base)
        return self.folders is not None


def relevant(plan_dir: Path, path: str) -> bool:
    """False for caches, locks and scratch files: writes that change nothing a viewer shows."""
    try:
        parts = Path(path).relative_to(plan_dir).parts
    except ValueError:
        return False
    if "/".join(parts) in STATE_FILES:
        return True
    if not parts or any(p in IGNORED_DIRS for p in parts[:-1]):
        return False
    name = parts[-1]
    if parts[0] in ("docs", "diagrams") and len(parts) > 1:  # a doc may have any name a node links to,
        return True  # an atomic writer's temp's too (`.lw-notes.md`): its events come with its target's
    return not (name.startswith(".") or name.endswith(SCRATCH_SUFFIXES))


def classify(paths: PlanPaths, changed: Iterable[str]) -> PlanChanges:
    """Sort changed paths (absolute) into what they mean for the plan."""
    out = PlanChanges()
    base = paths.dir
    for raw in changed:
        if not relevant(base, raw):
            continue
        parts = Path(raw).relative_to(base).parts
        name = parts[-1]
        top = parts[0]
        if "/".join(parts) in STATE_FILES:  # what the validator derives from it: derived again
            out.project = True
        elif len(parts) == 1:
            if name == "project.yaml":
                out.project = True
            elif name == "journal.jsonl":
                out.journal = True
        elif top == "nodes" and len(parts) == 2 and name.endswith(".yaml"):
            if ID_PATTERN.match(name[:-5]):
                out.nodes.add(name[:-5])
            else:  # a file the loader reads (and names a problem) that holds no node by its name: a whole load
                out.project = True
        elif top == "claims":
            out.claims = True
        elif top == "cycles":
            out.cycles = True
        elif top in ("docs", "diagrams"):
            out.docs.add("/".join(parts))
    return out


LINKED_POLL_MS = 1_000  # how often a waiting watcher looks at the files with more than one name


def relinked(linked: polling.Snapshot, named: Iterable[str]) -> set[str]:
    """The files of `linked` (more than one name: `polling.linked`) whose stamp moved since the last
    look, which is their change: a write through another name (a hard link outside the plan's folder)
    reaches no watch of the folder, inotify tells only the folder of the name written through. `linked`
    is kept up to date, the files `named` by the watch's events taken in or out."""
    moved = set()
    for path in set(named) | linked.keys():
        try:
            st = os.lstat(path)
        except OSError:
            st = None
        stamp = polling.stamp(st) if st is not None and st.st_nlink > 1 and stat.S_ISREG(st.st_mode) else None
        if path in linked and linked[path] != stamp:
            moved.add(path)
        if stamp is None:
            linked.pop(path, None)
        else:
            linked[path] = stamp
    return moved


async def watch(paths: PlanPaths, *, debounce_ms: int = 50, step_ms: int = 5,
                stop_event: Any = None) -> AsyncIterator[PlanChanges]:
    """Yield a `PlanChanges` for every batch of relevant writes until `stop_event` is set.

    watchfiles groups events for at most `debounce_ms` (its default, 1,600 ms,
    is far too slow for a live view) and yields once `step_ms` passes quietly.
    """
    from watchfiles import awatch  # imported here: only the canvas needs it

    base = paths.dir

    def keep(_change: Any, path: str) -> bool:
        return relevant(base, path)

    import asyncio

    guard = FolderGuard(base)
    before: polling.Snapshot | None = None
    cost = 0.0  # the last stat walk's seconds: the next waits polling.pause(cost)
    try:
        if not guard.safe:  # a tree no watch may take: a stat walk instead
            raise RuntimeError("unwatchable")
        linked = polling.linked(base, IGNORED_DIRS)  # a write through one after this moves its stamp
        async for batch in awatch(base, watch_filter=keep, debounce=debounce_ms, step=step_ms,
                                  stop_event=stop_event, rust_timeout=LINKED_POLL_MS, yield_on_timeout=True):
            named = {path for _change, path in batch}
            changes = classify(paths, named | relinked(linked, named))
            if changes:
                yield changes
            if not guard.still_safe():  # the watch is let go (its watches with it); a stat walk goes on
                before, cost = await asyncio.to_thread(polling.timed, _snapshot, base)
                yield PlanChanges(project=True)  # what changed meanwhile: the viewer reads the plan again
                break
        else:
            return
    except RuntimeError:  # no inotify instance left for this user: a stat walk (store/polling.py) instead
        pass
    if before is None:
        before, cost = await asyncio.to_thread(polling.timed, _snapshot, base)
    while not (stop_event is not None and stop_event.is_set()):
        await asyncio.sleep(polling.pause(cost))
        now, cost = await asyncio.to_thread(polling.timed, _snapshot, base)
        changes, before = classify(paths, polling.moved(before, now)), now
        if changes:
            yield changes


class PlanWatcher:
    """What changed in the plan since the last `changes()`, asked synchronously (`leafwise mcp`).

    watchfiles delivers events from a background thread, so a write that
    finished just before a call may not have arrived when the call asks. So
    `changes()` first touches a fence file of its own and drains events until
    the fence's own event shows up: the kernel queues a watch's events in order
    (one inotify queue for both folders watched), so every write finished before
    the call has arrived by then. The fence lives in the plan's folder of the
    person's cache folder (`store/cache.py`), never in the work tree: a clone
    could plant a link where a fence is written. `lost` turns true when the watch can no longer vouch for
    anything (the plan's folder or `nodes/` removed or replaced, the fence not
    seen in time): its owner then closes it and makes a new one.

    A write through another name of a file (a hard link outside the plan's folder) reaches no watch
    of the folder: inotify tells the folder of the name written through, and nothing else. So the
    files with more than one name (`polling.linked`, found when the watch starts and among the
    files each batch names) are stat'ed on every call, and a moved stamp is their change.
    """

    def __init__(self, paths: PlanPaths, *, timeout: float = 1.0, docs: bool = True):
        """`docs=False`: an owner that keeps nothing of the docs (the MCP server's warm plan) walks
        no docs/ or diagrams/ when it polls."""
        from watchfiles import watch  # imported here: only long-lived processes watch

        self.paths = paths
        self._skip = IGNORED_DIRS if docs else IGNORED_DIRS | DOC_DIRS
        self.lost = False
        self._timeout = timeout
        self._identity = _identity(paths)
        from leafwise.store.cache import cache_file, own_folder

        self._fence = cache_file(paths.repo, f"watch-{os.getpid()}-{id(self):x}.fence")[0]
        own_folder(self._fence.parent)  # before the watch starts, so its fence is watched from the start
        atomic.replace(self._fence, b"0", durable=False)
        self._remove_fence = weakref.finalize(self, self._fence.unlink, missing_ok=True)  # also at exit
        self._ticks = 0
        base, fence = paths.dir, os.fspath(self._fence)
        self._gone = {os.fspath(base), os.fspath(paths.nodes)}  # an event on these: the watch is lost
        self._polled: polling.Snapshot | None = None
        self._events: Any = iter(())
        self._linked: polling.Snapshot = {}
        self._guard = FolderGuard(base)
        if not self._guard.safe:  # a tree no watch may take: each call compares a stat walk instead
            self._polled = _snapshot(base, self._skip)
            return
        self._events = watch(base, self._fence.parent,
                             watch_filter=lambda _c, path: path == fence or path in self._gone
                             or relevant(base, path), debounce=50, step=1, rust_timeout=1,
                             yield_on_timeout=True, raise_interrupt=False)
        try:
            next(self._events)  # starts the watch: every write from here on is queued
        except RuntimeError:  # no inotify instance left: each call compares a stat walk instead
            self._polled = _snapshot(base, self._skip)
            return
        self._linked = polling.linked(base, IGNORED_DIRS)  # after the start: a link made since is in a batch

    @property
    def fence(self) -> Path:
        """The file this watcher touches to know it has caught up (outside the work tree)."""
        return self._fence

    def changes(self) -> PlanChanges:
        """Every relevant change since the last call, including writes that finished just now."""
        out = PlanChanges()
        if self.lost or _identity(self.paths) != self._identity:
            self.lost = True
            return out
        if self._polled is not None:  # synchronous: every write finished before the call is in the walk
            now = _snapshot(self.paths.dir, self._skip)
            out.merge(classify(self.paths, polling.moved(self._polled, now)))
            self._polled = now
            return out
        fence = os.fspath(self._fence)
        try:
            self._ticks += 1
            atomic.replace(self._fence, str(self._ticks).encode(), durable=False)
            deadline = time.monotonic() + self._timeout
            named: set[str] = set()
            while True:
                batch = {path for _change, path in next(self._events)}
                named |= batch
                out.merge(classify(self.paths, batch - {fence}))
                if fence in batch or batch & self._gone or time.monotonic() > deadline:
                    self.lost = fence not in batch or bool(batch & self._gone)
                    break
        except (OSError, RuntimeError, StopIteration):  # the fence's folder gone, the watcher stopped
            self.lost = True
            return out
        out.merge(classify(self.paths, relinked(self._linked, named - {fence})))
        if not self._guard.still_safe():  # a link to a folder or too many folders now: the owner watches
            self.lost = True  # anew, and the new watcher compares stat walks
        return out

    def close(self) -> None:
        if hasattr(self._events, "close"):
            self._events.close()
        self._remove_fence()


# Folders an owner that keeps no doc may leave out of its stat walks (the MCP server's warm plan, a wait
# for free work): a cloned plan's 100,000 files in docs/ made each of the MCP server's calls 0.5 s.
DOC_DIRS = frozenset({"docs", "diagrams"})


def _snapshot(base: Path, skip: frozenset[str] = IGNORED_DIRS) -> polling.Snapshot:
    """The stat walk that stands in for a watch: the plan's files and its STATE_FILES."""
    found = polling.snapshot(base, skip)
    for rel in STATE_FILES:
        path = os.path.join(os.fspath(base), rel)
        try:
            found[path] = polling.stamp(os.lstat(path))
        except OSError:
            pass
    return found


def _identity(paths: PlanPaths) -> tuple[tuple[int, int], ...] | None:
    """(device, inode) of the plan folder and of nodes/: a replaced folder has new ones."""
    try:
        return tuple((st.st_dev, st.st_ino) for st in (os.stat(paths.dir), os.stat(paths.nodes)))
    except OSError:
        return None


class ChangeWait:
    """A watch on the plan that starts when made, then blocks on request until a relevant write
    (`leafwise next --wait`: check the plan, then sleep until it may have changed).

    `watchfiles.watch` starts watching only on its first iteration, which blocks: a write between
    the caller's check and that start would go unseen until the timeout. So this holds watchfiles'
    own engine, `RustNotify` (what `watch` iterates over, as `watchfiles.main` names it; documented
    in watchfiles' API reference, "Rust backend"), which watches from the moment it is made and
    queues every event until `wait` asks. While waiting, the GIL is released; the Rust side looks
    at its queue every `STEP_MS`.
    """

    DEBOUNCE_MS = 100  # a burst of writes (lease, node, journal) is one wake-up, at most this late
    STEP_MS = 20  # how soon after the last write of a burst the waiter wakes

    def __init__(self, paths: PlanPaths, *, docs: bool = False):
        """`docs=False`: no doc frees work, so its stat walks, when it polls, leave docs/ out."""
        from watchfiles.main import RustNotify  # imported here: only a waiting call needs it

        self.paths = paths
        self._skip = IGNORED_DIRS if docs else IGNORED_DIRS | DOC_DIRS
        self._polled: polling.Snapshot | None = None
        self._linked: polling.Snapshot = {}
        self._cost = 0.0  # the last stat walk's seconds: the next waits polling.pause of it
        self._guard = FolderGuard(paths.dir)
        try:
            if not self._guard.safe:  # a tree no watch may take: stat walks instead
                raise RuntimeError("unwatchable")
            self._notify = RustNotify([os.fspath(paths.dir)], False, False, 300, True, False)
        except RuntimeError:  # "Too many open files": no inotify instance left for this user
            self._notify = None
            self._polled = _snapshot(paths.dir, self._skip)
            return
        self._linked = polling.linked(paths.dir, IGNORED_DIRS)

    def wait(self, seconds: float, stop: Any = None) -> PlanChanges | None:
        """The first batch of relevant changes within `seconds`; None when the time ran out or
        `stop` (anything with `is_set()`) was set first. Ctrl-C raises KeyboardInterrupt."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._notify is None:
                changes = self._poll(left, stop)
                if changes is None or changes:
                    return changes
                continue
            slice_ms = min(max(1, math.ceil(left * 1000)), LINKED_POLL_MS)
            raw = self._notify.watch(self.DEBOUNCE_MS, self.STEP_MS, slice_ms, stop)
            if raw == "signal":
                raise KeyboardInterrupt
            if raw == "stop":
                return None
            named = set() if raw == "timeout" else {path for _change, path in raw}
            changes = classify(self.paths, named | relinked(self._linked, named))
            if not self._guard.still_safe():  # the watch is let go (its watches with it): stat walks from here
                self._notify.close()
                self._notify, self._polled = None, _snapshot(self.paths.dir, self._skip)
                changes.project = True  # what changed meanwhile: the waiter looks at the plan again
            if changes:
                return changes
        return None

    def _poll(self, left: float, stop: Any) -> PlanChanges | None:
        """One stat walk after a short sleep (store/polling.py): what moved, or None when stopped."""
        time.sleep(min(left, polling.pause(self._cost)))
        if stop is not None and stop.is_set():
            return None
        now, self._cost = polling.timed(_snapshot, self.paths.dir, self._skip)
        changes = classify(self.paths, polling.moved(self._polled or {}, now))
        self._polled = now
        return changes

    def close(self) -> None:
        if self._notify is not None:
            self._notify.close()

    def __enter__(self) -> ChangeWait:
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()
